"""The TorchScript type system.

Value types are frozen, hashable dataclasses that compare structurally. Class-like types
(`ClassType`, `InterfaceType`, `EnumType`) are named, mutable while being defined, and
compare by identity: two scripted instances of one Python class get two class types.

Each type has two spellings: `str(t)` is the graph-dump form PyTorch prints
(`int[]`, `(int, str)`, `Dict(str, Tensor)`, `int?`), `t.annotation_str()` the Python
annotation form used in printed code (`List[int]`, `Tuple[int, str]`, `Optional[int]`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional


class Type:
    """Base of all types."""

    def annotation_str(self) -> str:
        return str(self)

    def is_subtype_of(self, other: "Type") -> bool:
        """Whether a value of this type may be used where `other` is expected."""
        return is_subtype(self, other)

    def contained(self) -> tuple["Type", ...]:
        """The directly contained types (elements of containers)."""
        return ()


@dataclass(frozen=True)
class _Simple(Type):
    name: str
    annotation: str = ""

    def __str__(self) -> str:
        return self.name

    def annotation_str(self) -> str:
        return self.annotation or self.name


TensorType = _Simple("Tensor")
IntType = _Simple("int")
FloatType = _Simple("float")
ComplexType = _Simple("complex")
BoolType = _Simple("bool")
StrType = _Simple("str")
NoneType = _Simple("NoneType")
DeviceType = _Simple("Device")
NumberType = _Simple("Scalar", "number")   # int, float, complex or bool where a schema says Scalar
AnyType = _Simple("Any")
GeneratorType = _Simple("Generator")
StorageType = _Simple("Storage")
StreamType = _Simple("Stream")
AnyListType = _Simple("AnyList", "list")      # `isinstance(x, list)`
AnyTupleType = _Simple("AnyTuple", "tuple")    # `isinstance(x, tuple)`
AnyClassType = _Simple("AnyClassType")
AnyEnumType = _Simple("AnyEnumType")


@dataclass(frozen=True)
class ListType(Type):
    elem: Type

    def __str__(self) -> str:
        return f"{self.elem}[]"

    def annotation_str(self) -> str:
        return f"List[{self.elem.annotation_str()}]"

    def contained(self) -> tuple[Type, ...]:
        return (self.elem,)


@dataclass(frozen=True)
class DictType(Type):
    key: Type
    value: Type

    def __str__(self) -> str:
        return f"Dict({self.key}, {self.value})"

    def annotation_str(self) -> str:
        return f"Dict[{self.key.annotation_str()}, {self.value.annotation_str()}]"

    def contained(self) -> tuple[Type, ...]:
        return (self.key, self.value)


@dataclass(frozen=True)
class TupleType(Type):
    """A tuple; a NamedTuple also has a qualified name and field names."""

    elems: tuple[Type, ...]
    names: Optional[tuple[str, ...]] = None
    qualified_name: Optional[str] = None
    defaults: tuple = ()

    def __str__(self) -> str:
        if self.qualified_name:
            return self.qualified_name
        return "(" + ", ".join(str(e) for e in self.elems) + ")"

    def annotation_str(self) -> str:
        if self.qualified_name:
            return self.qualified_name
        if not self.elems:
            return "Tuple[()]"
        return "Tuple[" + ", ".join(e.annotation_str() for e in self.elems) + "]"

    def contained(self) -> tuple[Type, ...]:
        return self.elems


@dataclass(frozen=True)
class OptionalType(Type):
    elem: Type

    def __str__(self) -> str:
        return f"{self.elem}?"

    def annotation_str(self) -> str:
        return f"Optional[{self.elem.annotation_str()}]"

    def contained(self) -> tuple[Type, ...]:
        return (self.elem,)


@dataclass(frozen=True)
class UnionType(Type):
    types: tuple[Type, ...]

    def __str__(self) -> str:
        return "Union(" + ", ".join(str(t) for t in self.types) + ")"

    def annotation_str(self) -> str:
        return "Union[" + ", ".join(t.annotation_str() for t in self.types) + "]"

    def contained(self) -> tuple[Type, ...]:
        return self.types


@dataclass(frozen=True)
class FutureType(Type):
    elem: Type

    def __str__(self) -> str:
        return f"Future({self.elem})"

    def annotation_str(self) -> str:
        return f"Future[{self.elem.annotation_str()}]"

    def contained(self) -> tuple[Type, ...]:
        return (self.elem,)


@dataclass(frozen=True)
class TypeVar(Type):
    """A schema type variable such as `t` in `t[] self`."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class FunctionType(Type):
    """The type of a first-class reference to a compiled function."""

    qualified_name: str

    def __str__(self) -> str:
        return f"Function {self.qualified_name}"


@dataclass(eq=False)
class Attribute:
    """One declared attribute of a class type."""

    name: str
    type: Type
    is_parameter: bool = False
    is_buffer: bool = False


@dataclass(eq=False)
class ClassType(Type):
    """A TorchScript class or module type, named by its (possibly mangled) qualified name."""

    qualified_name: str
    is_module: bool = False
    attributes: list[Attribute] = field(default_factory=list)
    constants: dict[str, Any] = field(default_factory=dict)  # Final attributes: name -> value
    methods: dict[str, Any] = field(default_factory=dict)    # name -> ir.function.Function
    properties: dict[str, Any] = field(default_factory=dict)  # name -> getter Function
    unresolved: bool = False  # declared by name, body not yet compiled (lazy loading)
    # attribute name -> its slot, the first declared (classes of big models have thousands)
    _slots: dict[str, int] = field(init=False, repr=False)

    __hash__ = object.__hash__

    def __post_init__(self) -> None:
        # (derived from `attributes`, which only add_attribute extends afterwards)
        self._slots = {}
        if self.attributes:     # (most are declared later, by add_attribute(s))
            for i, a in enumerate(self.attributes):
                self._slots.setdefault(a.name, i)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __str__(self) -> str:
        return self.qualified_name

    @property
    def name(self) -> str:
        return self.qualified_name.rsplit(".", 1)[-1]

    def add_attribute(self, name: str, type: Type, *, is_parameter: bool = False,
                      is_buffer: bool = False) -> Attribute:
        """Declare an attribute; redeclaring with the same type is a no-op."""
        i = self._slots.get(name)
        if i is not None:
            return self.attributes[i]
        attr = Attribute(name, type, is_parameter, is_buffer)
        self._slots[name] = len(self.attributes)
        self.attributes.append(attr)
        return attr

    def add_attributes(self, names: list[str], types: list[Type]) -> None:
        """Declare attributes names[i] of types[i], in order, as add_attribute does each."""
        # (one call for a run of declarations in a class body: archives declare thousands)
        slots, attributes = self._slots, self.attributes
        for name, type in zip(names, types):
            if name not in slots:
                slots[name] = len(attributes)
                attributes.append(Attribute(name, type))

    def find_attribute(self, name: str) -> Optional[Attribute]:
        i = self._slots.get(name)
        return None if i is None else self.attributes[i]

    def attribute_slot(self, name: str) -> int:
        """The index of attribute `name`, or -1."""
        return self._slots.get(name, -1)

    def attribute_slots(self) -> dict[str, int]:
        """Attribute name -> slot index (the class's own table: do not change it)."""
        return self._slots

    def find_method(self, name: str) -> Any:
        return self.methods.get(name)


@dataclass(eq=False)
class InterfaceType(Type):
    """A structural interface: a set of method schemas; `is_module` for module interfaces."""

    qualified_name: str
    methods: dict[str, Any] = field(default_factory=dict)  # name -> FunctionSchema
    is_module: bool = False

    __hash__ = object.__hash__

    def __eq__(self, other: object) -> bool:
        return self is other

    def __str__(self) -> str:
        return self.qualified_name


@dataclass(eq=False)
class EnumType(Type):
    qualified_name: str
    value_type: Type
    members: dict[str, Any] = field(default_factory=dict)  # name -> value
    _values: dict = field(default_factory=dict, repr=False)

    __hash__ = object.__hash__

    def __eq__(self, other: object) -> bool:
        return self is other

    def __str__(self) -> str:
        return self.qualified_name

    @property
    def name(self) -> str:
        return self.qualified_name.rsplit(".", 1)[-1]

    def member(self, name: str) -> "EnumValue":
        """The run-time value of member `name` (one object per member)."""
        v = self._values.get(name)
        if v is None:
            v = self._values[name] = EnumValue(self, name, self.members[name])
        return v


@dataclass(frozen=True, eq=False)
class EnumValue:
    """A member of an enum type, as a run-time value (compared by identity)."""

    type: EnumType
    name: str
    value: Any

    def __repr__(self) -> str:
        return f"{self.type.name}.{self.name}"


def optional(t: Type) -> Type:
    """Optional[t], normalised (Optional[Optional[T]] is Optional[T], Optional[None] is None)."""
    if isinstance(t, OptionalType) or t == NoneType or t == AnyType:
        return t
    return OptionalType(t)


def is_subtype(a: Type, b: Type) -> bool:
    """The subtyping relation of the language."""
    if a == b or b == AnyType:
        return True
    if isinstance(b, OptionalType):
        if a == NoneType:
            return True
        inner = a.elem if isinstance(a, OptionalType) else a
        return is_subtype(inner, b.elem)
    if isinstance(b, UnionType):
        if isinstance(a, UnionType):
            return all(is_subtype(t, b) for t in a.types)
        if isinstance(a, OptionalType):
            return is_subtype(NoneType, b) and is_subtype(a.elem, b)
        return any(is_subtype(a, t) for t in b.types)
    if isinstance(a, UnionType):
        return all(is_subtype(t, b) for t in a.types)   # Union[int, float] is a Scalar
    if b == NumberType:
        return a in (IntType, FloatType, ComplexType, BoolType)
    if isinstance(a, TupleType) and isinstance(b, TupleType):
        if b.qualified_name and a.qualified_name != b.qualified_name:
            return False
        return len(a.elems) == len(b.elems) and all(
            is_subtype(x, y) for x, y in zip(a.elems, b.elems))
    if isinstance(a, TupleType) and b == AnyTupleType:
        return True
    if isinstance(a, ListType) and b == AnyListType:
        return True
    if isinstance(a, ListType) and isinstance(b, ListType):
        # Lists are invariant, except that a list of a class implementing an interface
        # is accepted: PyTorch allows List[Module] subtypes for ModuleList iteration.
        return a.elem == b.elem
    if isinstance(a, ClassType) and b == AnyClassType:
        return True
    if isinstance(a, EnumType) and b == AnyEnumType:
        return True
    if isinstance(a, ClassType) and isinstance(b, InterfaceType):
        return implements(a, b)
    return False


def implements(cls: ClassType, iface: InterfaceType) -> bool:
    """Whether `cls` has every method of `iface` with a compatible schema."""
    if iface.is_module and not cls.is_module:
        return False
    for name, schema in iface.methods.items():
        fn = cls.methods.get(name)
        if fn is None:
            return False
        mine = fn.schema
        if len(mine.arguments) != len(schema.arguments):
            return False
        for x, y in zip(mine.arguments[1:], schema.arguments[1:]):
            if not is_subtype(y.type, x.type):
                return False
        if len(mine.returns) != len(schema.returns):
            return False
        for x, y in zip(mine.returns, schema.returns):
            if not is_subtype(x.type, y.type):
                return False
    return True


def unify(a: Type, b: Type) -> Optional[Type]:
    """The least type both unify to (for if-branches and list literals), or None."""
    if is_subtype(a, b):
        return b
    if is_subtype(b, a):
        return a
    if a == NoneType:
        return optional(b)
    if b == NoneType:
        return optional(a)
    if isinstance(a, OptionalType) and not isinstance(b, OptionalType):
        u = unify(a.elem, b)
        return optional(u) if u is not None else None
    if isinstance(b, OptionalType) and not isinstance(a, OptionalType):
        u = unify(a, b.elem)
        return optional(u) if u is not None else None
    if isinstance(a, TupleType) and isinstance(b, TupleType) and len(a.elems) == len(b.elems) \
            and not a.qualified_name and not b.qualified_name:
        elems = [unify(x, y) for x, y in zip(a.elems, b.elems)]
        if all(e is not None for e in elems):
            return TupleType(tuple(elems))  # type: ignore[arg-type]
    return None


def union_of(types: list[Type]) -> Type:
    """Union[...] of `types`, flattened, deduplicated, and written Optional[T] when it is one."""
    flat: list[Type] = []
    for t in types:
        parts = t.types if isinstance(t, UnionType) else \
            (t.elem, NoneType) if isinstance(t, OptionalType) else (t,)
        for p in parts:
            if not any(p == q for q in flat):
                flat.append(p)
    non_none = [t for t in flat if t != NoneType]
    if len(flat) == 1:
        return flat[0]
    if len(non_none) == 1:
        return OptionalType(non_none[0])
    return UnionType(tuple(flat))


def contains_typevar(t: Type) -> bool:
    if isinstance(t, TypeVar):
        return True
    return any(contains_typevar(c) for c in t.contained())


def substitute(t: Type, env: dict[str, Type]) -> Type:
    """Replace type variables in `t` by their bindings in `env`."""
    if isinstance(t, TypeVar):
        return env.get(t.name, t)
    if isinstance(t, ListType):
        return ListType(substitute(t.elem, env))
    if isinstance(t, OptionalType):
        return optional(substitute(t.elem, env))
    if isinstance(t, DictType):
        return DictType(substitute(t.key, env), substitute(t.value, env))
    if isinstance(t, TupleType) and not t.qualified_name:
        return TupleType(tuple(substitute(e, env) for e in t.elems))
    if isinstance(t, FutureType):
        return FutureType(substitute(t.elem, env))
    return t


def match_type(formal: Type, actual: Type, env: dict[str, Type]) -> bool:
    """Match `actual` against `formal`, binding type variables in `env`; True on success."""
    if isinstance(formal, TypeVar):
        bound = env.get(formal.name)
        if bound is None:
            env[formal.name] = actual
            return True
        if is_subtype(actual, bound):
            return True
        u = unify(bound, actual)
        if u is not None and not isinstance(u, OptionalType):
            env[formal.name] = u
            return True
        return False
    if not contains_typevar(formal):
        return is_subtype(actual, formal)
    if isinstance(formal, ListType) and isinstance(actual, ListType):
        return match_type(formal.elem, actual.elem, env)
    if isinstance(formal, OptionalType):
        if actual == NoneType:
            return True
        inner = actual.elem if isinstance(actual, OptionalType) else actual
        return match_type(formal.elem, inner, env)
    if isinstance(formal, DictType) and isinstance(actual, DictType):
        return match_type(formal.key, actual.key, env) and match_type(formal.value, actual.value, env)
    if isinstance(formal, TupleType) and isinstance(actual, TupleType):
        return len(formal.elems) == len(actual.elems) and all(
            match_type(f, a, env) for f, a in zip(formal.elems, actual.elems))
    if isinstance(formal, FutureType) and isinstance(actual, FutureType):
        return match_type(formal.elem, actual.elem, env)
    return False
