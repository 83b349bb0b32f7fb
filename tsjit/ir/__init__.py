"""The IR: types, graphs, schemas, functions and the compilation unit. Imports nothing else of tsjit."""
from . import types
from .compilation_unit import CompilationUnit, QualifiedName
from .diagnostics import CompileError, ParseError, Source, SourceRange, TsjitError
from .function import Function, schema_from_graph
from .graph import Block, Graph, Node, Use, Value
from .lint import LintError, lint
from .printer import format_float_literal, graph_str
from .schema import NO_DEFAULT, Argument, FunctionSchema, parse_schema, parse_type

__all__ = [
    "types", "CompilationUnit", "QualifiedName", "CompileError", "ParseError", "Source",
    "SourceRange", "TsjitError", "Function", "schema_from_graph", "Block", "Graph", "Node",
    "Use", "Value", "LintError", "lint", "format_float_literal", "graph_str", "NO_DEFAULT",
    "Argument", "FunctionSchema", "parse_schema", "parse_type",
]
