"""Archives: zip layout, pickles, debug records, export (module -> archive) and loading."""
from .errors import ArchiveError, PicklingError, UnpicklingError
from .export import archive_records, save_module
from .extra_files import list_extra_files, read_extra_files
from .loader import load_module
from .zip_archive import ArchiveReader, ArchiveWriter

__all__ = ["ArchiveError", "PicklingError", "UnpicklingError", "archive_records", "save_module",
           "load_module", "ArchiveReader", "ArchiveWriter", "list_extra_files", "read_extra_files"]
