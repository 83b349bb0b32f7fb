"""Run-time objects: instances of class and module types, with slot storage."""
from __future__ import annotations

from typing import Any

from ..ir import types as T


class _Uninitialized:
    """The content of a slot nothing has written yet."""

    def __repr__(self) -> str:
        return "<uninitialized>"


UNINITIALIZED: Any = _Uninitialized()


class Future:
    """The result of `fork`: tsjit runs the forked call at once (one thread), so `wait`
    returns its value."""

    __slots__ = ("_value",)

    def __class_getitem__(cls, item: Any) -> type:
        return cls          # `torch.jit.Future[int]` in annotations Python evaluates

    def __init__(self, value: Any) -> None:
        self._value = value

    def wait(self) -> Any:
        return self._value

    def value(self) -> Any:
        return self._value

    def done(self) -> bool:
        return True

    def __repr__(self) -> str:
        return "<tsjit Future (done)>"


class Object:
    """An instance of a ClassType: attribute values in `slots`, by the type's attribute order."""

    __slots__ = ("type", "slots", "__weakref__")

    def __init__(self, type: T.ClassType, slots: list | None = None) -> None:
        self.type = type
        self.slots = slots if slots is not None else [UNINITIALIZED] * len(type.attributes)

    def getattr(self, name: str) -> Any:
        i = self.type.attribute_slot(name)
        if i < 0:
            if name in self.type.constants:
                return self.type.constants[name]
            raise AttributeError(f"'{self.type.name}' object has no attribute '{name}'")
        self._grow()
        return self.slots[i]

    def setattr(self, name: str, value: Any) -> None:
        i = self.type.attribute_slot(name)
        if i < 0:
            raise AttributeError(f"'{self.type.name}' object has no attribute '{name}'")
        self._grow()
        self.slots[i] = value

    def _get_method(self, name: str) -> Any:
        """Method `name` bound to this object, called with run-time values (PyTorch's
        `module._c._get_method(name)`)."""
        fn = self.type.methods.get(name)
        if fn is None:
            raise AttributeError(f"'{self.type.name}' object has no method '{name}'")
        from .run import call_function
        return lambda *args: call_function(fn, [self, *args])

    def _grow(self) -> None:
        # A TorchScript class may gain attributes while its methods compile.
        missing = len(self.type.attributes) - len(self.slots)
        if missing > 0:
            self.slots.extend([UNINITIALIZED] * missing)

    def __repr__(self) -> str:
        return f"<{self.type.qualified_name} object>"
