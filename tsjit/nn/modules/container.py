"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""
from __future__ import annotations

import operator
from collections import OrderedDict
from itertools import chain, islice
from typing import Any, Iterable, Iterator, Mapping, Optional, Union

from ..._tensor import Tensor
from ..parameter import Parameter
from .module import Module


def _abs_index(idx: Any, n: int) -> int:
    """A (possibly negative) index into a container of n items, range-checked."""
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return idx % n if n else idx


_LEGACY_TYPE = {"float32": "Float", "float64": "Double", "float16": "Half",
                "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "int16": "Short",
                "int8": "Char", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
                "complex128": "ComplexDouble"}


def _typename(t: Tensor) -> str:
    """PyTorch's legacy type name of a tensor ("torch.FloatTensor")."""
    name = str(t.dtype).replace("torch.", "")
    return f"torch.{_LEGACY_TYPE.get(name, name)}Tensor"


class Sequential(Module):
    """Modules called one after the other; built from modules or an OrderedDict of them."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def __getitem__(self, idx: Union[slice, int]) -> Any:
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        i = _abs_index(idx, len(self))
        return next(islice(self._modules.values(), i, None))

    def __setitem__(self, idx: int, module: Module) -> None:
        key = list(self._modules.keys())[_abs_index(idx, len(self))]
        setattr(self, key, module)

    def __delitem__(self, idx: Union[slice, int]) -> None:
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, list(self._modules.keys())[_abs_index(idx, len(self))])
        # PyTorch renumbers the remaining modules, keeping their order
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(self._modules.values()))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __add__(self, other: "Sequential") -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        ret = Sequential()
        for layer in chain(self, other):
            ret.append(layer)
        return ret

    def __iadd__(self, other: "Sequential") -> "Sequential":
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        for layer in list(other):
            self.append(layer)
        return self

    def append(self, module: Module) -> "Sequential":
        """Add a module at the end."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> "Sequential":
        """Insert a module before position `index`."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(mods))
        return self

    def extend(self, sequential: Iterable[Module]) -> "Sequential":
        """Append every module of an iterable."""
        for layer in sequential:
            self.append(layer)
        return self

    def pop(self, key: Union[int, slice]) -> Module:
        """Remove and return the module at `key`."""
        v = self[key]
        del self[key]
        return v

    def forward(self, input: Tensor) -> Tensor:
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of submodules, registered under "0", "1", ..."""

    def __init__(self, modules: Optional[Iterable[Module]] = None) -> None:
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx: Union[int, slice]) -> Any:
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_abs_index(idx, len(self)))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, str(_abs_index(idx, len(self))), module)

    def __delitem__(self, idx: Union[int, slice]) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_abs_index(idx, len(self))))
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(self._modules.values()))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> "ModuleList":
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> "ModuleList":
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def insert(self, index: int, module: Module) -> None:
        """Insert a module before position `index`."""
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module: Module) -> "ModuleList":
        """Add a module at the end."""
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key: Union[int, slice]) -> Module:
        """Remove and return the module at `key`."""
        v = self[key]
        del self[key]
        return v

    def __repr__(self) -> str:
        # runs of equal children print once, as "(0-5): 6 x Layer(...)" (like PyTorch)
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs: list[list] = []   # [first index, last index, repr]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = []
        for first, last, r in runs:
            head = f"({first})" if first == last else f"({first}-{last}): {last - first + 1} x"
            text = f"{head}: {r}" if first == last else f"{head} {r}"
            lines.append(text.replace("\n", "\n  "))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def extend(self, modules: Iterable[Module]) -> "ModuleList":
        """Append every module of an iterable."""
        if isinstance(modules, (str, bytes)) or not hasattr(modules, "__iter__"):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


class ModuleDict(Module):
    """An ordered dict of submodules keyed by name."""

    def __init__(self, modules: Optional[Mapping[str, Module]] = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every module."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove and return the module under `key`."""
        v = self[key]
        del self[key]
        return v

    def keys(self) -> Iterable[str]:
        """The module names."""
        return self._modules.keys()

    def items(self) -> Iterable[tuple[str, Module]]:
        """(name, module) pairs."""
        return self._modules.items()

    def values(self) -> Iterable[Module]:
        """The modules."""
        return self._modules.values()

    def update(self, modules: Any) -> None:
        """Add modules from a mapping or an iterable of (name, module) pairs."""
        if isinstance(modules, (OrderedDict, ModuleDict, Mapping)):
            for key, module in modules.items():
                self[key] = module
        else:
            for j, m in enumerate(modules):
                if len(m) != 2:
                    raise ValueError(f"ModuleDict update sequence element #{j} has length "
                                     f"{len(m)}; 2 is required")
                self[m[0]] = m[1]


class ParameterList(Module):
    """A list of parameters, registered under "0", "1", ... (tensors become Parameters)."""

    def __init__(self, values: Optional[Iterable[Any]] = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _abs_key(self, idx: int) -> str:
        return str(_abs_index(idx, len(self)))

    def __getitem__(self, idx: Union[int, slice]) -> Any:
        if isinstance(idx, slice):
            out = self.__class__()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, self._abs_key(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        key = self._abs_key(idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, key, param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> "ParameterList":
        return self.extend(parameters)

    def append(self, value: Any) -> "ParameterList":
        """Add a parameter (or value) at the end."""
        new_idx = len(self)
        self._size += 1
        self[new_idx] = value
        return self

    def extend(self, values: Iterable[Any]) -> "ParameterList":
        """Append every value of an iterable."""
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        lines = []
        for k, p in enumerate(self):
            if isinstance(p, Tensor):
                size_str = "x".join(str(s) for s in p.size())
                lines.append(f"  ({k}): Parameter containing: [{p.dtype} of size {size_str}]")
            else:
                lines.append(f"  ({k}): Object of type: {type(p).__name__}")
        return "\n".join(lines)


class ParameterDict(Module):
    """An ordered dict of parameters keyed by name (tensors become Parameters)."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key: str) -> str:
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not "
                            f"a string (type is '{type(key).__name__}').")
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, self._key_to_attr(key), value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def keys(self) -> Iterable[str]:
        """The parameter names."""
        return self._keys.keys()

    def items(self) -> Iterable[tuple[str, Any]]:
        """(name, parameter) pairs."""
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterable[Any]:
        """The parameters."""
        return (self[k] for k in self._keys)

    def get(self, key: str, default: Any = None) -> Any:
        """The parameter under `key`, or `default`."""
        return self[key] if key in self else default

    def pop(self, key: str) -> Any:
        """Remove and return the parameter under `key`."""
        v = self[key]
        del self[key]
        return v

    def clear(self) -> None:
        """Remove every parameter."""
        for k in list(self._keys):
            del self[k]

    def extra_repr(self) -> str:
        lines = []
        for k, p in self.items():
            if isinstance(p, Tensor):
                size_str = "x".join(str(s) for s in p.size())
                kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
                lines.append(f"  ({k}): {kind} containing: [{_typename(p)} of size {size_str}]")
            else:
                lines.append(f"  ({k}): Object of type: {type(p).__name__}")
        return "\n".join(lines)

    def update(self, parameters: Any) -> None:
        """Add parameters from a mapping or an iterable of (name, value) pairs."""
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, parameter in parameters.items():
                self[key] = parameter
        elif isinstance(parameters, Mapping):
            for key, parameter in sorted(parameters.items()):
                self[key] = parameter
        else:
            for j, p in enumerate(parameters):
                if len(p) != 2:
                    raise ValueError(f"ParameterDict update sequence element #{j} has length "
                                     f"{len(p)}; 2 is required")
                self[p[0]] = p[1]


__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]
