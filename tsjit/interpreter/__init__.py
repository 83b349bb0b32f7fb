"""The stack interpreter: Graph -> Code, the run loop, run-time objects and errors."""
from .code import Code, build_code
from .errors import ScriptError
from .instructions import OPCODES, disassemble
from .objects import UNINITIALIZED, Object
from .run import call_function, code_for, run

__all__ = ["Code", "build_code", "ScriptError", "OPCODES", "disassemble", "UNINITIALIZED",
           "Object", "call_function", "code_for", "run"]
