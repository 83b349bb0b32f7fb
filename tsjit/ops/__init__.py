"""The operator library: schema-keyed kernels for aten::* and prim::* operators."""
from .registry import Operator, RegistryError, all_operators, find, op, overloads, register

__all__ = ["Operator", "RegistryError", "all_operators", "find", "op", "overloads", "register"]
