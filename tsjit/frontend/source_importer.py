"""Compiling an archive's `code/` files: qualified names -> class types and functions.

A name `__torch__.a.b.C` lives in `code/__torch__/a/b.py`. A file is parsed when one of
its names is first needed, and every class and function in it is declared then; method
and function bodies compile lazily, on first call or schema lookup. Archive code reaches
only registered operators and the archive's own code objects: `torch.<op>` and
`ops.<ns>.<op>` name operators, `__torch__.*` names archive classes and functions,
`CONSTANTS.cN` the archive's tensor constants.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from ..ir import CompilationUnit, Function
from ..ir import types as T
from ..ir.diagnostics import CompileError, SourceRange
from ..ir.limits import LimitError, current_limits
from . import ast
from .builtins import lookup_builtin
from .annotations import BUILTIN_TYPE_NAMES
from .code_outline import outline
from .compiler import FunctionCompiler
from .constants import eval_constant
from .parser import expand, parse
from .resolver import Resolver
from .upgraders import emit_upgraded, old_schemas
from .sugared import (ClassNamespaceValue, ClassValue, FunctionValue, NamespaceValue,
                      SimpleValue, SugaredValue)


# NamedTuples of torch itself that archives name but do not define in code/.
BUILTIN_NAMED_TUPLES: dict[str, dict[str, T.Type]] = {
    "__torch__.torch.nn.utils.rnn.PackedSequence": {
        "data": T.TensorType, "batch_sizes": T.TensorType,
        "sorted_indices": T.OptionalType(T.TensorType),
        "unsorted_indices": T.OptionalType(T.TensorType)},
}


class ArchiveResolver(Resolver):
    """Names visible to archive code."""

    def __init__(self, importer: "SourceImporter") -> None:
        self.importer = importer

    def resolve_name(self, name: str, c: Any, rng: SourceRange) -> Optional[SugaredValue]:
        if name == "torch":
            return NamespaceValue("aten", "torch")
        if name == "__torch__":
            return ClassNamespaceValue("__torch__")
        if name == "CONSTANTS":
            return _ConstantsValue(self.importer.constants)
        if name in ("inf", "nan"):
            return SimpleValue(c.emit_constant(float(name), rng))
        return lookup_builtin(name)

    def resolve_qualified(self, name: str, c: Any, rng: SourceRange) -> SugaredValue:
        found = self.importer.lookup(name, rng)
        if isinstance(found, Function):
            return FunctionValue(found)
        if found is not None:
            return ClassValue(found)
        return ClassNamespaceValue(name)

    def resolve_type(self, name: str, c: Any, rng: SourceRange) -> Optional[T.Type]:
        found = self.importer.lookup(name, rng)
        if found is None or isinstance(found, Function):
            raise CompileError(f"unknown type {name} (not defined in this archive)", rng)
        return found

    def resolve_annotation(self, e: ast.Expr, c: Any) -> Optional[SugaredValue]:
        return None

    def function(self, name: str, c: Any, rng: SourceRange) -> Optional[Function]:
        found = self.importer.lookup(name, rng)
        return found if isinstance(found, Function) else None

    def old_schemas(self, name: str) -> dict:
        return old_schemas(name, self.importer.version)

    def emit_upgraded(self, c: Any, schema: Any, inputs: list, rng: SourceRange) -> Any:
        return emit_upgraded(c, schema, inputs, rng)


class _ConstantsValue(SugaredValue):
    kind = "CONSTANTS"

    def __init__(self, constants: list) -> None:
        self.constants = constants

    def attr(self, c: Any, rng: SourceRange, name: str) -> SugaredValue:
        if not name.startswith("c") or not name[1:].isdigit() or int(name[1:]) >= len(self.constants):
            raise CompileError(f"CONSTANTS.{name} does not exist in this archive "
                               f"({len(self.constants)} constants)", rng)
        return SimpleValue(c.emit_constant(self.constants[int(name[1:])], rng, T.TensorType))


class SourceImporter:
    """Loads code objects of one archive into `cu` on demand."""

    def __init__(self, cu: CompilationUnit, read_code: Callable[[str], Optional[tuple]],
                 constants: list, version: Optional[int] = None) -> None:
        self.cu = cu
        # the archive's format version: operators that changed since are upgraded
        self.version = version
        # "code/__torch__/a/b.py" -> (text, record name, origin map or None), or None
        self.read_code = read_code
        self.constants = constants
        self.resolver = ArchiveResolver(self)
        self.loaded_files: set[str] = set()
        # Named types whose declaration is parsed but not built yet (built on first lookup,
        # so declarations may refer to types defined later in the file).
        self.pending: dict[str, Callable[[], None]] = {}
        # Attribute types by their annotation's text: archive code names types by fully
        # qualified names, so the same text means the same type anywhere in the archive,
        # and PythonPrint repeats annotations (`training : bool` in every module class).
        self.annotation_types: dict[str, T.Type] = {}
        self.class_body: Optional[FunctionCompiler] = None   # resolves attribute annotations
        # Classes whose bodies are being declared (one declaration can load another file's).
        self.declaring: list[T.ClassType] = []
        self.classes_of_text: dict[str, tuple[T.ClassType, ...]] = {}   # in an attribute's type

    def lookup(self, name: str, rng: Optional[SourceRange] = None) -> Any:
        """The type or function named `name`, loading its file first; None if no such name."""
        found = self.cu.types.get(name) or self.cu.functions.get(name)
        if found is not None:
            return found
        builtin = BUILTIN_NAMED_TUPLES.get(name)
        if builtin is not None:
            # Types PyTorch resolves from its own Python package rather than from code/.
            t = T.TupleType(tuple(builtin.values()), tuple(builtin), name)
            self.cu.register_type(t)
            return t
        pending = self.pending.pop(name, None)
        if pending is not None:
            pending()
            return self.cu.types.get(name)
        prefix, dot, _ = name.rpartition(".")     # (rsplit(".", 1)[0], not parsing bounds)
        if not dot:
            prefix = name
        path = "code/" + prefix.replace(".", "/") + ".py"
        if path not in self.loaded_files:
            self.loaded_files.add(path)
            got = self.read_code(path)
            if got is not None:
                self.load_file(prefix, got[0], got[1], got[2])
            pending = self.pending.pop(name, None)   # a named type the file just declared
            if pending is not None:
                pending()
        return self.cu.types.get(name) or self.cu.functions.get(name)

    def load_files(self, paths: Any) -> None:
        """Declare everything in the code files `paths` ("code/__torch__/a/b.py") not loaded
        yet, named types included (a whole archive's code, to check it all)."""
        for path in paths:
            if path not in self.loaded_files:
                self.loaded_files.add(path)
                got = self.read_code(path)
                if got is not None:
                    self.load_file(path[len("code/"):-len(".py")].replace("/", "."), *got)
        while self.pending:
            self.pending.pop(next(iter(self.pending)))()

    def load_class(self, name: str) -> T.Type:
        """The class type `name`; an error if the archive does not define it."""
        t = self.lookup(name)
        if t is None or isinstance(t, Function):
            raise CompileError(f"the archive has no class {name}")
        return t

    def load_file(self, prefix: str, text: str, filename: str, origin: Any = None) -> None:
        # The outline leaves function bodies unparsed (DefSpan) until they are compiled.
        module = outline(text, filename) or parse(text, filename)
        module.range.source.origin = origin
        bodies = []
        for stmt in module.body:
            _check_no_decorators(stmt)
            if isinstance(stmt, ast.ClassDef):
                qualified = f"{prefix}.{stmt.name}"
                bases = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "")
                         for b in stmt.bases]
                if len(bases) > 1 or (bases and bases[0] not in _ARCHIVE_BASES):
                    # As PyTorch: archive classes are modules, named types or plain classes.
                    raise CompileError("Torchscript does not support class inheritance",
                                       stmt.bases[-1].range)
                if not _NAMED_TYPE_BASES.isdisjoint(bases):
                    self.pending[qualified] = lambda q=qualified, c=stmt, b=bases: \
                        self.declare_named_type(q, expand(c), b)
                    continue
                t = T.ClassType(qualified, is_module="Module" in bases)
                self.cu.register_type(t)
                bodies.append((t, stmt))
            elif isinstance(stmt, (ast.Def, ast.DefSpan)):
                self.declare_function(f"{prefix}.{stmt.name}", stmt, None)
            else:
                raise CompileError("archive code files hold only classes and functions", stmt.range)
        for t, stmt in bodies:
            self.declare_class(t, stmt)

    def declare_function(self, qualified: str, d: Any, owner: Optional[T.ClassType]) -> Function:
        def define(fn: Function) -> None:
            node = expand(d)
            fn.source_def = node
            FunctionCompiler(self.cu, self.resolver, fn, node, owner).compile()
        fn = Function(qualified, owner=owner, definer=define)
        if owner is None:
            self.cu.register_function(fn)
        else:
            owner.methods[d.name] = fn
        return fn

    def declare_named_type(self, qualified: str, c: ast.ClassDef, bases: list[str]) -> None:
        if "NamedTuple" in bases:
            self.cu.register_type(self.named_tuple(qualified, c))
        elif "Enum" in bases:
            self.cu.register_type(self.enum(qualified, c))
        else:
            self.cu.register_type(self.interface(qualified, c, "ModuleInterface" in bases))

    def declare_class(self, t: T.ClassType, c: ast.ClassDef) -> None:
        """Attributes, constants and (lazily compiled) methods of a class body."""
        if len(self.declaring) >= current_limits().max_source_depth:
            raise LimitError("max_source_depth", "classes refer to each other too deeply",
                             len(self.declaring) + 1, range=c.range)
        self.declaring.append(t)
        try:
            self._declare_class(t, c)
        finally:
            self.declaring.pop()

    def _declare_class(self, t: T.ClassType, c: ast.ClassDef) -> None:
        qualified = t.qualified_name
        params: list[str] = []
        buffers: list[str] = []
        for stmt in c.body:
            if type(stmt) is ast.DeclSpan:
                if stmt.kind != "stmt":
                    self.declare(t, stmt, params, buffers)
                    continue
                stmt = expand(stmt)     # a statement the outline does not read
            if isinstance(stmt, (ast.Def, ast.DefSpan)):
                _check_no_decorators(stmt)
                self.declare_function(f"{qualified}.{stmt.name}", stmt, t)
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0]
                if isinstance(target, ast.Name) and target.id == "__annotations__":
                    pass   # `__annotations__ = []` only prepares the entries that follow
                elif isinstance(target, ast.Name) and target.id in ("__parameters__", "__buffers__"):
                    names = [eval_constant(e) for e in getattr(stmt.value, "elts", ())]
                    (params if target.id == "__parameters__" else buffers).extend(names)
                elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and \
                        target.value.id == "__annotations__":
                    name = eval_constant(target.index)
                    t.add_attribute(name, self.annotation_type(stmt.value))
                else:
                    raise CompileError("unexpected assignment in an archive class body", stmt.range)
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                ann = stmt.annotation
                if isinstance(ann, ast.Subscript) and getattr(ann.value, "id", "") == "Final":
                    if stmt.value is None:
                        raise CompileError("a Final constant needs a value", stmt.range)
                    t.constants[stmt.target.id] = eval_constant(stmt.value)
                else:
                    found = self.annotation_type(ann)
                    self.check_attribute(t, stmt.target.id, _classes_in(found), stmt)
                    t.add_attribute(stmt.target.id, found)
            elif isinstance(stmt, ast.Pass):
                pass
            else:
                raise CompileError("unexpected statement in an archive class body", stmt.range)
        if params or buffers:
            # (t is new: its attributes are neither until marked here)
            for a in t.attributes:
                a.is_parameter = a.name in params
                a.is_buffer = a.name in buffers

    def declare(self, t: T.ClassType, d: ast.DeclSpan, params: list[str],
                buffers: list[str]) -> None:
        """What a declaration the outline read declares: an attribute, names of parameters
        or buffers, or a constant."""
        if d.kind == "attr":
            found = self.annotation_types.get(d.value)    # (the usual case: a text seen before)
            if found is None:
                found = self.declared_type(d)
            classes = self.classes_of_text.get(d.value)
            if classes is None:
                classes = self.classes_of_text[d.value] = _classes_in(found)
            if classes:
                self.check_attribute(t, d.name, classes, d)
            t.add_attribute(d.name, found)
        elif d.kind == "names":
            if d.name != "__annotations__":     # (`__annotations__ = []` only prepares)
                (params if d.name == "__parameters__" else buffers).extend(d.value)
        else:
            t.constants[d.name] = d.value

    def check_attribute(self, t: T.ClassType, name: str, classes: tuple[T.ClassType, ...],
                        where: ast.Node) -> None:
        """Refuse attribute `name` of `t` if its type holds (`classes`) a class being
        defined: PyTorch's import does not know a class's name inside its own body (nor
        inside the bodies of the classes it loads while declaring it)."""
        for x in classes:
            if any(x is d for d in self.declaring):
                raise CompileError(f"attribute '{name}' of {t.qualified_name} has type "
                                   f"{x.qualified_name}, a class still being defined: "
                                   "TorchScript classes cannot contain themselves", where.range)

    def declared_type(self, d: ast.DeclSpan) -> T.Type:
        """The type of an attribute's declaration, found by its text; the declaration is
        parsed only if its text is new to the archive and is not built of builtin types'
        names and class names."""
        # (a deeply nested text is the parser's, which checks the source-depth limit)
        found = self._type_of_text(d.value) if d.value.count("[") <= 64 else None
        if found is None:
            stmt = expand(d)    # (an AnnAssign or `__annotations__[key] = T`; errors say where)
            return self.annotation_type(stmt.annotation if isinstance(stmt, ast.AnnAssign)
                                        else stmt.value)
        self.annotation_types[d.value] = found
        return found

    def _type_of_text(self, text: str) -> Optional[T.Type]:
        """The type a declaration's type text (a dotted name, or a subscript of such)
        denotes, if it is a builtin type's or a class's name, or `Optional`, `List`,
        `Dict`, `Tuple` or `Union` of such (as type_from_expr gives it: archives declare
        `Optional[bool]` in every module); None for type_from_expr to resolve (or report)."""
        found = self.annotation_types.get(text)
        if found is None:
            found = BUILTIN_TYPE_NAMES.get(text)
        if found is not None:
            return found
        if "[" not in text:
            if text.startswith("__torch__."):
                found = self.lookup(text)
                return None if isinstance(found, Function) else found
            return None
        ctor, _, inner = text[:-1].partition("[")
        arity = _TYPE_CONSTRUCTORS.get(ctor)
        texts = _type_arguments(inner)
        if arity is None or texts is None:
            return None
        args = []
        for arg in texts:
            found = self._type_of_text(arg)
            if found is None:
                return None
            args.append(found)
        if arity and len(args) != arity:
            return None     # (type_from_expr's error)
        if ctor == "Optional":
            return T.optional(args[0])
        if ctor in ("List", "list"):
            return T.ListType(args[0])
        if ctor in ("Dict", "dict"):
            return T.DictType(args[0], args[1])
        if ctor == "Union":
            return T.union_of(args)
        return T.TupleType(tuple(args))

    def annotation_type(self, e: ast.Expr) -> T.Type:
        """The type annotation `e` of an attribute denotes (resolved once per text)."""
        text = e.range.text
        found = self.annotation_types.get(text)
        if found is None:
            if self.class_body is None:
                # (one for the archive: annotations in class bodies see no local names)
                self.class_body = FunctionCompiler(self.cu, self.resolver,
                                                   Function("<class body>"), _EMPTY_DEF, None)
            found = self.annotation_types[text] = self.class_body.type_from_expr(e)
        return found

    def named_tuple(self, qualified: str, c: ast.ClassDef) -> T.TupleType:
        compiler = FunctionCompiler(self.cu, self.resolver, Function(qualified), _EMPTY_DEF, None)
        names, types = [], []
        for stmt in c.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                names.append(stmt.target.id)
                types.append(compiler.type_from_expr(stmt.annotation))
        return T.TupleType(tuple(types), tuple(names), qualified)

    def interface(self, qualified: str, c: ast.ClassDef, is_module: bool) -> T.InterfaceType:
        t = T.InterfaceType(qualified, is_module=is_module)
        for stmt in c.body:
            if isinstance(stmt, ast.Def):
                fn = Function(f"{qualified}.{stmt.name}")
                comp = FunctionCompiler(self.cu, self.resolver, fn, stmt, t)
                args = comp.emit_params(stmt)
                ret = comp.type_from_expr(stmt.returns) if stmt.returns is not None else T.NoneType
                from ..ir.schema import Argument, FunctionSchema
                t.methods[stmt.name] = FunctionSchema(stmt.name, "", tuple(args), (Argument("", ret),))
        return t

    def enum(self, qualified: str, c: ast.ClassDef) -> T.EnumType:
        members = {}
        for stmt in c.body:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                members[stmt.targets[0].id] = eval_constant(stmt.value)
        values = list(members.values())
        vt = T.IntType if all(isinstance(v, int) for v in values) else \
            T.FloatType if all(isinstance(v, float) for v in values) else T.StrType
        return T.EnumType(qualified, vt, members)


# Bases of classes declared as named types other than classes (built when first named).
_NAMED_TYPE_BASES = frozenset({"NamedTuple", "Interface", "ModuleInterface", "Enum"})
_ARCHIVE_BASES = _NAMED_TYPE_BASES | {"Module"}


def _classes_in(t: T.Type) -> tuple[T.ClassType, ...]:
    """The class types `t` is or holds (not looking inside classes)."""
    found, stack = [], [t]
    while stack:
        x = stack.pop()
        if isinstance(x, T.ClassType):
            found.append(x)
        else:
            stack.extend(x.contained())
    return tuple(found)


def _check_no_decorators(stmt: ast.Stmt) -> None:
    """PythonPrint writes no decorators, and PyTorch's import refuses them."""
    decorators = getattr(stmt, "decorators", ())
    if decorators:
        raise CompileError("archive code cannot have decorators (TorchScript's import "
                           "refuses '@')", decorators[0].range)

# Type constructors _type_of_text takes, with their number of arguments (0: any).
_TYPE_CONSTRUCTORS = {"Optional": 1, "List": 1, "list": 1, "Dict": 2, "dict": 2, "Tuple": 0,
                      "tuple": 0, "Union": 0}


def _type_arguments(inner: str) -> Optional[list[str]]:
    """The texts of a type's arguments (`int, List[int]`), split at the ", " outside
    brackets (PythonPrint's spelling); None for any other spelling."""
    out = []
    depth = start = 0
    for i, ch in enumerate(inner):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(inner[start:i])
            start = i + 2
            if inner[i + 1:start] != " ":
                return None
    out.append(inner[start:])
    return out


def _empty_def() -> ast.Def:
    from ..ir.diagnostics import Source
    src = Source("", "<archive>")
    return ast.Def(src.range(0, 0), "<class body>", (), None, ())


_EMPTY_DEF = _empty_def()
