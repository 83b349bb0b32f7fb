"""Module: the base of every model, with parameters, buffers and submodules like torch.nn."""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Iterator, Optional

from ..._tensor import Tensor
from ..parameter import Buffer, Parameter


class Module:
    """Base class for models: assigning a Parameter, Module or registered buffer to an
    attribute registers it; `__call__` runs `forward`."""

    __tsjit_module__ = True
    __tsjit_module_base__ = True   # contributes no methods to scripted module classes

    # Class annotations as PyTorch declares them; scripting reads them (see
    # frontend.script.class_annotations) to type `training` and the hook flag.
    training: bool
    _is_full_backward_hook: Optional[bool]

    def __init__(self) -> None:
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_is_full_backward_hook", None)

    # --- registration -------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        if "_parameters" not in d:
            raise AttributeError("cannot assign attributes before Module.__init__() call")
        params, buffers, modules = d["_parameters"], d["_buffers"], d["_modules"]
        for table in (params, buffers, modules):
            if name in table and not self._fits(table, value):
                del table[name]
        if isinstance(value, Parameter):
            d.pop(name, None)
            params[name] = value
        elif isinstance(value, Buffer):
            d.pop(name, None)
            self.register_buffer(name, Tensor(value._a), value.persistent)
        elif isinstance(value, Module):
            d.pop(name, None)
            modules[name] = value
        elif name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            params[name] = None
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                "(torch.Tensor or None expected)")
            buffers[name] = value
        elif name in modules:
            modules[name] = value
        else:
            object.__setattr__(self, name, value)

    @staticmethod
    def _fits(table: dict, value: Any) -> bool:
        return value is None or isinstance(value, (Tensor, Module))

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            t = d.get(table)
            if t is not None and name in t:
                return t[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                return
        object.__delattr__(self, name)

    def register_buffer(self, name: str, tensor: Optional[Tensor], persistent: bool = True) -> None:
        """Add a buffer (state that is not a parameter); non-persistent ones stay out of
        the state dict."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(f"buffer name must be a non-empty string without '.', got {name!r}")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}'")
        self.__dict__.pop(name, None)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Optional[Parameter]) -> None:
        """Add a parameter (or None) under `name`."""
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter '{name}'")
        self.__dict__.pop(name, None)
        self._parameters[name] = param

    def add_module(self, name: str, module: Optional["Module"]) -> None:
        """Add a submodule under `name`."""
        self.__dict__.pop(name, None)
        self._modules[name] = module

    register_module = add_module

    # --- calling ------------------------------------------------------------------
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    # --- traversal ----------------------------------------------------------------
    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, "Module"]]:
        """(dotted name, module) for self and every descendant, depth first."""
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self) -> Iterator["Module"]:
        """Self and every descendant module."""
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        """(name, module) for the direct submodules."""
        for name, m in self._modules.items():
            if m is not None:
                yield name, m

    def children(self) -> Iterator["Module"]:
        """The direct submodules."""
        for _, m in self.named_children():
            yield m

    def named_parameters(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter), each parameter once."""
        seen: set[int] = set()
        mods = self.named_modules(prefix) if recurse else iter([(prefix, self)])
        for mp, m in mods:
            for name, p in m._parameters.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{mp}.{name}" if mp else name), p

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every parameter, once."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Tensor]]:
        """(dotted name, buffer) for every buffer that is not None."""
        mods = self.named_modules(prefix) if recurse else iter([(prefix, self)])
        for mp, m in mods:
            for name, b in m._buffers.items():
                if b is not None:
                    yield (f"{mp}.{name}" if mp else name), b

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Every buffer that is not None."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # --- state --------------------------------------------------------------------
    def state_dict(self, prefix: str = "") -> "OrderedDict[str, Tensor]":
        """Parameters and persistent buffers by dotted name."""
        out: OrderedDict[str, Tensor] = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                out[prefix + name] = p
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                out[prefix + name] = b
        for name, m in self._modules.items():
            if m is not None:
                out.update(m.state_dict(prefix + name + "."))
        return out

    def load_state_dict(self, state: dict, strict: bool = True) -> Any:
        """Copy tensors from `state` into parameters and buffers (in place)."""
        own = self.state_dict()
        missing = [k for k in own if k not in state]
        unexpected = [k for k in state if k not in own]
        if strict and (missing or unexpected):
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}: "
                               f"missing keys {missing}, unexpected keys {unexpected}")
        for k, t in own.items():
            if k in state:
                src = state[k]
                if tuple(src.shape) != tuple(t.shape):
                    raise RuntimeError(f"size mismatch for {k}: copying a param with shape "
                                       f"{tuple(src.shape)}, the shape in current model is "
                                       f"{tuple(t.shape)}")
                t.copy_(src)
        return missing, unexpected

    def train(self, mode: bool = True) -> "Module":
        """Set training mode on this module and its descendants."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> "Module":
        """Set evaluation mode (train(False))."""
        return self.train(False)

    # --- conveniences ----------------------------------------------------------------
    def apply(self, fn: Any) -> "Module":
        """Call `fn` on every submodule (children first) and on self."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply_to_tensors(self, convert: Any) -> "Module":
        # In place, so references held elsewhere (e.g. RNN._flat_weights) stay valid.
        for m in self.modules():
            for table in (m._parameters, m._buffers):
                for t in table.values():
                    if t is not None:
                        new = convert(t)
                        if new is not t:
                            t._a = new._a
        return self

    def to(self, *args: Any, **kwargs: Any) -> "Module":
        """Cast floating-point parameters and buffers to a dtype (devices: cpu only)."""
        from ..._tensor import dtype as _dtype
        dt = kwargs.get("dtype")
        for a in args:
            if isinstance(a, _dtype):
                dt = a
            elif isinstance(a, Tensor):
                dt = a.dtype
        if dt is None:
            return self
        return self._apply_to_tensors(lambda t: t.to(dt) if t.is_floating_point() else t)

    def float(self) -> "Module":
        """Cast floating-point parameters and buffers to float32."""
        from ..._tensor import float32
        return self.to(float32)

    def double(self) -> "Module":
        """Cast floating-point parameters and buffers to float64."""
        from ..._tensor import float64
        return self.to(float64)

    def cpu(self) -> "Module":
        """No-op (tsjit tensors live on the CPU)."""
        return self

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        """Set requires_grad on every parameter."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear `.grad` of every parameter (tsjit keeps no gradients, so only None)."""
        for p in self.parameters():
            if getattr(p, "grad", None) is not None:
                p.grad = None

    def get_submodule(self, target: str) -> "Module":
        """The submodule at a dotted path ("" is self)."""
        m = self
        for part in target.split(".") if target else []:
            if part not in m._modules:
                raise AttributeError(f"{type(m).__name__} has no attribute `{part}`")
            m = m._modules[part]
        return m

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path."""
        mod, _, name = target.rpartition(".")
        m = self.get_submodule(mod)
        if name not in m._parameters:
            raise AttributeError(f"{type(m).__name__} has no parameter `{name}`")
        return m._parameters[name]

    def __dir__(self) -> list:
        return sorted(set(object.__dir__(self)) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))

    # --- printing ---------------------------------------------------------------------
    def extra_repr(self) -> str:
        """Layer settings shown inside the parentheses of repr()."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, m in self._modules.items():
            inner = repr(m).replace("\n", "\n  ")
            lines.append(f"({name}): {inner}")
        head = self._get_name() + "("
        if not lines:
            return head + ")"
        if len(lines) == 1 and not self._modules:
            return head + lines[0] + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"
