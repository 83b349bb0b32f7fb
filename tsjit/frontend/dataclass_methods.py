"""Source for the methods `dataclasses` generates (they have no source file to read).

As PyTorch does for a dataclass given to `script`: `__init__` assigns each field (InitVar
fields are only passed on to `__post_init__`), `__eq__` compares the fields in order, and
with `order=True` `__lt__`/`__le__`/`__gt__`/`__ge__` compare them lexicographically. The
source names each field's annotation through a global (`__dc_type_<field>`), bound to the
annotation object in the names the method resolves.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Optional

from ..ir.diagnostics import CompileError

# How each ordering method decides on one field, and what it returns when all are equal.
_ORDER = {"__lt__": ("<", False), "__le__": ("<", True), "__gt__": (">", False),
          "__ge__": (">", True)}


_GENERATED_FILES = ("<string>", dataclasses.__file__)


def is_generated(cls: type, name: str, pyfn: Any) -> bool:
    """Whether method `name` of `cls` was written by `dataclasses` (no source of its own)."""
    # exec'd by dataclasses ("<string>"), or a wrapper of one (`__repr__`)
    return dataclasses.is_dataclass(cls) and getattr(getattr(pyfn, "__code__", None),
                                                     "co_filename", "") in _GENERATED_FILES


def is_made_here(name: str) -> bool:
    """Whether the generated method `name` gets source here; the others (`__repr__`,
    `__hash__`, a frozen class's `__setattr__`...) are left out of the class type."""
    return name in ("__init__", "__eq__", *_ORDER)


def generated_source(cls: type, name: str) -> tuple[str, dict]:
    """(source text, the globals it needs) of the generated method `name` of `cls`."""
    fields = list(cls.__dataclass_fields__.values())    # type: ignore[attr-defined]
    names: dict[str, Any] = {"__dc_class": cls}
    if name == "__init__":
        return _init_source(cls, fields, names), names
    compared = [f for f in fields if f.compare and
                f._field_type is dataclasses._FIELD]   # type: ignore[attr-defined]
    header = f"def {name}(self, other: __dc_class) -> bool:\n"
    if name == "__eq__":
        body = [_field_test(f, "if a != b:\n    return False\n", "return False") for f in compared]
        return header + "".join(body) + "    return True\n", names
    op, when_equal = _ORDER[name]
    decide = f"if a {op} b:\n    return True\nif b {op} a:\n    return False\n"
    refuse = f"raise TypeError(\"'{op}' not supported between an instance of " \
             f"{cls.__name__} with None and one without\")"
    body = [_field_test(f, decide, refuse) for f in compared]
    return header + "".join(body) + f"    return {when_equal}\n", names


def _init_source(cls: type, fields: list, names: dict) -> str:
    params, assigns, post_args = [], [], []
    keyword_only = False
    for f in fields:
        kind = f._field_type
        if kind is dataclasses._FIELD_CLASSVAR or not f.init:   # type: ignore[attr-defined]
            continue
        if f.default_factory is not dataclasses.MISSING:
            raise DataclassError(f"dataclass {cls.__name__}: field '{f.name}' has a "
                                 "default_factory, which TorchScript does not support")
        ann = f.type.type if kind is dataclasses._FIELD_INITVAR else f.type   # type: ignore[attr-defined]
        names[f"__dc_type_{f.name}"] = ann
        if getattr(f, "kw_only", False) and not keyword_only:
            params.append("*")
            keyword_only = True
        # The default's value is read off the generated function (python_defaults), so
        # the text only marks that there is one.
        has_default = f.default is not dataclasses.MISSING
        params.append(f"{f.name}: __dc_type_{f.name}" + (" = None" if has_default else ""))
        if kind is dataclasses._FIELD_INITVAR:                     # type: ignore[attr-defined]
            post_args.append(f.name)
        else:
            assigns.append(f"    self.{f.name} = {f.name}\n")
    text = f"def __init__(self{''.join(', ' + p for p in params)}) -> None:\n"
    text += "".join(assigns)
    if hasattr(cls, "__post_init__"):
        text += f"    self.__post_init__({', '.join(post_args)})\n"
    return text + ("    pass\n" if not assigns and not hasattr(cls, "__post_init__") else "")


def _field_test(f: Any, test: str, one_none: str) -> str:
    """Compare field `f` of self (a) and other (b) with `test`; an Optional field is
    compared when both are set, and `one_none` runs when only one is None."""
    lines = [f"a = self.{f.name}\n", f"b = other.{f.name}\n"]
    if _is_optional(f.type):
        inner = "".join("    " + line + "\n" for line in test.splitlines())
        lines.append("if a is not None and b is not None:\n" + inner +
                     f"elif (a is None) != (b is None):\n    {one_none}\n")
    else:
        lines.append(test)
    return "".join("    " + line + "\n" for text in lines for line in text.splitlines())


def _is_optional(ann: Any) -> bool:
    args = getattr(ann, "__args__", ()) or ()
    return type(None) in args


class DataclassError(CompileError, NotImplementedError):
    """A dataclass feature TorchScript does not support (a NotImplementedError, as PyTorch's)."""


__all__ = ["is_generated", "is_made_here", "generated_source", "DataclassError"]
