"""PythonPrint: code objects -> readable Python source with source-range records."""
from .files import CodeFile, print_code_files, qualifier_path
from .python_print import ConstantTable, PythonPrinter, quote_string

__all__ = ["CodeFile", "print_code_files", "qualifier_path", "ConstantTable", "PythonPrinter",
           "quote_string"]
