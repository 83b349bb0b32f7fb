"""The second execution tier: Python source generated from optimized graphs.

`compile_function(fn)` returns a Python function of `fn`'s argument list; the executor
policy (`tsjit.jit.set_executor`) decides when functions are compiled. See
docs/design.md ("Two tiers") for the design and python_source.py for the code shape.
"""
from .compiler import compile_function, generated_source

__all__ = ["compile_function", "generated_source"]
