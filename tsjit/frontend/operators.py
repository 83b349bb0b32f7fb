"""The operator tables: Python operator syntax -> the schema name it calls.

A leaf module (it imports nothing of tsjit), so the expression and statement halves
of the compiler, and anything else that lowers operators, read the same tables.
"""
from __future__ import annotations

# `a + b`, and `a += b` (whose in-place form is the name plus "_" on tensors).
BINARY_OPS = {
    "+": "aten::add", "-": "aten::sub", "*": "aten::mul", "/": "aten::div",
    "//": "aten::floordiv", "%": "aten::remainder", "**": "aten::pow", "@": "aten::matmul",
    "&": "aten::__and__", "|": "aten::__or__", "^": "aten::__xor__",
    "<<": "aten::__lshift__", ">>": "aten::__rshift__",
}

# `-a`, `~a` (`+a` is `a`; `not a` is a condition, see Emitter.expr_UnaryOp).
UNARY_OPS = {"-": "aten::neg", "~": "aten::bitwise_not"}

# `a < b`, `a is b`, ...; `in` is `__contains__` with its operands swapped.
COMPARE_OPS = {
    "==": "aten::eq", "!=": "aten::ne", "<": "aten::lt", "<=": "aten::le", ">": "aten::gt",
    ">=": "aten::ge", "is": "aten::__is__", "is_not": "aten::__isnot__",
}

# An operator applied to a class instance calls the class's magic method instead.
MAGIC_METHODS = {
    "aten::len": "__len__", "aten::__contains__": "__contains__",
    "aten::__getitem__": "__getitem__", "aten::_set_item": "__setitem__",
    "aten::eq": "__eq__", "aten::ne": "__ne__", "aten::lt": "__lt__", "aten::le": "__le__",
    "aten::gt": "__gt__", "aten::ge": "__ge__", "aten::add": "__add__", "aten::sub": "__sub__",
    "aten::mul": "__mul__", "aten::div": "__truediv__", "aten::str": "__str__",
    "aten::Int": "__int__", "aten::Float": "__float__", "aten::Bool": "__bool__",
    "aten::neg": "__neg__", "aten::hash": "__hash__", "aten::remainder": "__mod__",
    "aten::floordiv": "__floordiv__", "aten::pow": "__pow__", "aten::matmul": "__matmul__",
    "aten::__and__": "__and__", "aten::__or__": "__or__", "aten::__xor__": "__xor__",
    "aten::__lshift__": "__lshift__", "aten::__rshift__": "__rshift__",
    "aten::bitwise_not": "__invert__", "aten::Delete": "__delitem__",
}

# Operators with no registered schema that the frontend lowers itself.
SPECIAL_OPS = {"prim::RaiseException"}

__all__ = ["BINARY_OPS", "UNARY_OPS", "COMPARE_OPS", "MAGIC_METHODS", "SPECIAL_OPS"]
