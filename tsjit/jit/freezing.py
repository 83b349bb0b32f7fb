"""`freeze()`: a module whose parameters and attributes are constants of its code.

As PyTorch's `torch.jit.freeze`: the module is copied into a new (mangled) class type
that keeps only `forward` and the preserved methods and attributes. In each kept method,
every call of a known method or function is inlined, then every read of a module
attribute that nothing writes becomes a constant (tensors are printed as `CONSTANTS.cN`),
so `self.training` is False and the branches it guarded disappear; the usual cleanup
passes then run to a fixed point. Attributes the code writes, and the preserved ones,
stay attributes (of the module itself: written attributes of submodules are not
supported). With `optimize_numerics`, an eval-mode batch_norm of a convolution is folded
into the convolution's constants, as PyTorch's frozen-graph optimization does.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Any, Optional, Sequence

import numpy as np

from ..frontend.emitter import constant_type
from ..interpreter import Object
from ..interpreter.objects import UNINITIALIZED
from ..ir import Function, Graph
from ..ir import types as T
from ..ir.cloning import copy_graph
from ..ir.diagnostics import TsjitError
from ..ir.graph import Node, Value
from ..ir.node_kinds import prim
from ..ir.passes import CLEANUP, constant_propagation, inlining, run_pipeline, run_to_fixed_point
from ..ir.verifier import lint, verify_enabled
from ..ops import registry
from .._tensor import Tensor, from_numpy
from .script_module import ScriptModule

_SCALARS = (bool, int, float, str, type(None))


def freeze(mod: Any, preserved_attrs: Optional[Sequence[str]] = None,
           optimize_numerics: bool = True) -> ScriptModule:
    """A frozen copy of the scripted module `mod` (see the module docstring)."""
    from .scripting import compilation_unit
    if not isinstance(mod, ScriptModule):
        raise TsjitError("Freezing expects a ScriptModule as input. Please use "
                         "tsjit.jit.script to script your 'nn.Module'.")
    if mod.training:
        raise TsjitError("Freezing is currently only implemented for modules in eval mode. "
                         "Please call .eval() on your module before freezing.")
    obj: Object = mod._c
    preserved = list(preserved_attrs or [])
    for name in preserved:
        if name not in obj.type.methods and obj.type.attribute_slot(name) < 0:
            raise TsjitError(f"Attribute '{name}' was not found in the module: it cannot be "
                             "preserved")
    methods = [n for n in ["forward"] + preserved if n in obj.type.methods]
    methods = list(dict.fromkeys(methods))
    cu = compilation_unit()
    frozen_t = T.ClassType(cu.unique_name(obj.type.qualified_name), is_module=True)
    kept_data = [n for n in preserved if n not in obj.type.methods]
    graphs = {name: _frozen_graph(obj, obj.type.methods[name], kept_data, optimize_numerics)
              for name in methods}
    kept = list(dict.fromkeys(kept_data + [n for g in graphs.values()
                                           for n in _self_attributes(g)]))
    for name in kept:
        attr = obj.type.find_attribute(name)
        frozen_t.add_attribute(name, attr.type, is_parameter=attr.is_parameter,
                               is_buffer=attr.is_buffer)
    cu.register_type(frozen_t)
    for name, g in graphs.items():
        g.inputs[0].type = frozen_t
        fn = Function(f"{frozen_t.qualified_name}.{name}", g, owner=frozen_t)
        old = obj.type.methods[name].schema
        self_arg = dataclasses.replace(old.arguments[0], type=frozen_t)
        fn.schema = dataclasses.replace(old, arguments=(self_arg,) + old.arguments[1:])
        frozen_t.methods[name] = fn
        if verify_enabled():
            lint(g)     # `self` is of the frozen class now
    return ScriptModule(Object(frozen_t, [obj.getattr(n) for n in kept]))


def _frozen_graph(obj: Object, fn: Function, preserved: list[str],
                  optimize_numerics: bool) -> Graph:
    g = copy_graph(fn.graph)
    run_pipeline(g, [lambda g: inlining.run(g, lambda callee: True)])
    folds = [lambda g: _fold_attributes(g, obj, preserved), _fold_none_tests,
             functools.partial(constant_propagation.run, kernel_for=registry.kernel_for)]
    if optimize_numerics:
        folds.append(_fold_conv_batch_norm)
    run_to_fixed_point(g, folds + CLEANUP)
    _check_modules_unused(g)
    return g


def _written(g: Graph, holders: dict[Value, Object]) -> set[tuple[int, str]]:
    """(object id, attribute) of every attribute the graph writes."""
    return {(id(holders[n.input(0)]), n.s("name")) for n in g.walk()
            if n.kind == prim.SetAttr and n.input(0) in holders}


def _fold_attributes(g: Graph, obj: Object, preserved: list[str]) -> bool:
    """Replace reads of attributes that are neither written nor preserved with constants;
    returns whether any changed."""
    holders: dict[Value, Object] = {g.inputs[0]: obj}
    changed = False
    nodes = [n for n in g.walk() if n.kind in (prim.GetAttr, prim.SetAttr)]
    for n in nodes:   # module values first: writes are attributed to their holders
        if n.kind == prim.GetAttr and n.input(0) in holders:
            v = holders[n.input(0)].getattr(n.s("name"))
            if isinstance(v, Object) and v.type.is_module:
                holders[n.output()] = v
    written = _written(g, holders) | {(id(obj), name) for name in preserved}
    for n in nodes:
        if n.kind != prim.GetAttr or n.owning_block is None or n.input(0) not in holders:
            continue
        holder, name = holders[n.input(0)], n.s("name")
        value = holder.getattr(name)
        if n.output() in holders or value is UNINITIALIZED:
            continue
        if (id(holder), name) in written or not _foldable(value, n.output()):
            if holder is not obj:
                raise TsjitError(f"freeze: attribute '{name}' of submodule {holder.type.name} "
                                 "is written or cannot be a constant; freezing keeps only the "
                                 "top module's attributes")
            continue
        c = g.create(prim.Constant, [], 0, n.source_range)
        t = n.output().type
        c.add_output(constant_type(value) if value is not None and
                     T.is_subtype(constant_type(value), t) else t)
        if value is not None:
            c.attrs["value"] = value.clone() if isinstance(value, Tensor) else value
        c.insert_before(n)
        n.output().replace_all_uses_with(c.output())
        n.destroy()
        changed = True
    return changed


def _foldable(value: Any, v: Value) -> bool:
    """Values that can be code constants: tensors, scalars, tuples of them, and lists of
    scalars that nothing mutates."""
    if isinstance(value, (Tensor,) + _SCALARS):
        return True
    if isinstance(value, tuple):
        return all(_foldable(x, v) for x in value)
    if isinstance(value, list) and all(isinstance(x, _SCALARS) for x in value):
        return not any(u.user.schema is not None and u.user.schema.is_mutable() for u in v.uses)
    return False


def _fold_none_tests(g: Graph) -> bool:
    """`x is None` / `x is not None` on constants (a folded Optional attribute)."""
    changed = False
    for n in list(g.walk()):
        if n.kind not in ("aten::__is__", "aten::__isnot__") or n.owning_block is None:
            continue
        a, b = n.inputs
        if a.node.kind != prim.Constant or b.node.kind != prim.Constant:
            continue
        va, vb = a.node.attrs.get("value"), b.node.attrs.get("value")
        if va is not None and vb is not None:
            continue   # identity of two non-None constants: left to run time
        same = va is None and vb is None
        c = g.create(prim.Constant, [], 0, n.source_range)
        c.add_output(T.BoolType)
        c.attrs["value"] = same if n.kind == "aten::__is__" else not same
        c.insert_before(n)
        n.output().replace_all_uses_with(c.output())
        n.destroy()
        changed = True
    return changed


_CONVS = ("aten::conv1d", "aten::conv2d", "aten::conv3d")


def _const(v: Value) -> Any:
    """The constant `v` holds, or `...` when it is not a constant."""
    return v.node.attrs.get("value") if v.node.kind == prim.Constant else ...


def _fold_conv_batch_norm(g: Graph) -> bool:
    """An eval-mode batch_norm of a convolution with constant weights is folded into the
    convolution's weight and bias (PyTorch's freeze does the same, numerics permitting)."""
    changed = False
    for bn in list(g.walk()):
        if bn.kind != "aten::batch_norm" or bn.owning_block is None:
            continue
        conv = bn.input(0).node
        # Folding changes the convolution's values, not its shape: other uses may only ask
        # for the rank (BatchNorm's input check).
        if conv.kind not in _CONVS or any(u.user is not bn and u.user.kind != "aten::dim"
                                          for u in bn.input(0).uses):
            continue
        w, b = _const(conv.input(1)), _const(conv.input(2))
        bn_w, bn_b, mean, var, training, _, eps = (_const(v) for v in bn.inputs[1:8])
        tensors = (w, mean, var)
        if training is not False or not all(isinstance(t, Tensor) for t in tensors) or \
                not all(x is None or isinstance(x, Tensor) for x in (b, bn_w, bn_b)) or \
                not isinstance(eps, float):
            continue
        wa = w.numpy()
        dt = wa.dtype
        out_channels = wa.shape[0]
        one = np.ones(out_channels, dt)
        scale = (one if bn_w is None else bn_w.numpy()) / np.sqrt(var.numpy() + dt.type(eps))
        new_w = wa * scale.reshape((-1,) + (1,) * (wa.ndim - 1))
        shift = np.zeros(out_channels, dt) if bn_b is None else bn_b.numpy()
        new_b = ((np.zeros(out_channels, dt) if b is None else b.numpy()) - mean.numpy()) * \
            scale + shift
        for i, arr in ((1, new_w), (2, new_b)):
            c = g.create(prim.Constant, [], 0, conv.source_range)
            c.add_output(T.TensorType)
            c.attrs["value"] = from_numpy(np.ascontiguousarray(arr.astype(dt)))
            c.insert_before(conv)
            conv.replace_input(i, c.output())
        bn.output().replace_all_uses_with(conv.output())
        bn.destroy()
        changed = True
    return changed


def _self_attributes(g: Graph) -> list[str]:
    """The attributes of `self` the frozen graph still reads or writes."""
    names = []
    for u in g.inputs[0].uses:
        if u.user.kind not in (prim.GetAttr, prim.SetAttr):
            raise TsjitError(f"freeze: the module itself is used as a value "
                             f"({u.user.kind}), which a frozen module cannot support")
        names.append(u.user.s("name"))
    return names


def _check_modules_unused(g: Graph) -> None:
    for n in g.walk():
        if n.kind == prim.GetAttr and isinstance(n.output().type, T.ClassType) and \
                n.output().type.is_module and n.output().uses:
            user = n.output().uses[0].user
            raise TsjitError(f"freeze: submodule '{n.s('name')}' is used as a value "
                             f"({user.kind}) after inlining; it cannot be frozen", n.source_range)
