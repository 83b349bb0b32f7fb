"""The operator library: schema-keyed kernels for aten::* and prim::* operators, and the
eager API over them (`eager`; the operators as a module in `functions`; Tensor's operators and
methods in `tensor_methods`)."""
from .registry import Operator, RegistryError, all_operators, find, op, overloads, register
from . import tensor_methods  # noqa: F401  (gives Tensor its operators and named methods)

__all__ = ["Operator", "RegistryError", "all_operators", "find", "op", "overloads", "register"]
