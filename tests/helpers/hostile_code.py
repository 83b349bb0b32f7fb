"""Hostile TorchScript source, generated: deep nesting, huge methods, and archives holding them.

Each generator gives the text of a `forward(self, x: int) -> int` body (lines indented
four spaces, as PythonPrint lays out a method of a class); `archive_with_forward` puts such
a method in a module archive, as archive code an attacker wrote would arrive.
"""
from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any, Callable

import tsjit

Body = Callable[[int], str]


def nested_ifs(n: int) -> str:
    """`n` `if`s, each inside the previous one."""
    lines = [" " * (4 + 2 * i) + f"if torch.gt(x, {i}):" for i in range(n)]
    lines.append(" " * (4 + 2 * n) + "x = torch.add(x, 1)")
    return "\n".join(lines) + "\n    return x\n"


def nested_calls(n: int) -> str:
    """`torch.neg(torch.neg(...(x)))` nested `n` deep."""
    return "    return " + "torch.neg(" * n + "x" + ")" * n + "\n"


def deep_list_type(n: int) -> str:
    """A local annotated `List[List[...[int]]]`, `n` levels."""
    t = "List[" * n + "int" + "]" * n
    return f"    y : {t} = annotate({t}, [])\n    return x\n"


def long_sum(n: int) -> str:
    """`x + x + ... + x`, `n` terms (a left-nested chain of additions)."""
    return "    return " + " + ".join(["x"] * n) + "\n"


def nested_lists(n: int) -> str:
    """A list literal nested `n` deep."""
    return "    y = " + "[" * n + "x" + "]" * n + "\n    return x\n"


def nested_dicts(n: int) -> str:
    """A dict literal nested `n` deep."""
    return "    y = " + "{1: " * n + "x" + "}" * n + "\n    return x\n"


def nested_negations(n: int) -> str:
    """`- - - x`, `n` unary minuses."""
    return "    return " + "-" * n + "x\n"


def attribute_chain(n: int) -> str:
    """`self.training.training...`, `n` attribute reads."""
    return "    y = self" + ".training" * n + "\n    return x\n"


def straight_line(n: int) -> str:
    """`n` statements, each using the one before (a huge method, no nesting)."""
    lines = ["    v0 = torch.add(x, 1)"]
    lines += [f"    v{i} = torch.add(torch.mul(v{i - 1}, 3), {i})" for i in range(1, n)]
    return "\n".join(lines) + f"\n    return v{n - 1}\n"


def unused_results(n: int) -> str:
    """`n` statements whose results nothing reads (all removed as dead code)."""
    lines = [f"    d{i} = torch.mul(x, {i})" for i in range(n)]
    return "\n".join(lines) + "\n    return x\n"


def foldable(n: int) -> str:
    """`n` statements, each with an operation on constants (folded at compile time)."""
    lines = ["    v0 = torch.add(x, 1)"]
    lines += [f"    v{i} = torch.add(v{i - 1}, {i} * 2)" for i in range(1, n)]
    return "\n".join(lines) + f"\n    return v{n - 1}\n"


def nested_binding_ifs(n: int) -> str:
    """`n` nested `if`s, each binding a new name before the next."""
    lines = []
    for i in range(n):
        pad = " " * (4 + 2 * i)
        lines.append(f"{pad}if torch.gt(x, {i}):")
        lines.append(f"{pad}  y{i} = torch.add(x, {i})")
    lines.append(" " * (4 + 2 * n) + "x = torch.add(x, 1)")
    return "\n".join(lines) + "\n    return x\n"


# Long methods, for compile time against size (benchmarks/bench_compile_scale.py).
LONG: dict[str, Body] = {"straight": straight_line, "unused": unused_results,
                         "folded": foldable, "nested_ifs": nested_binding_ifs}


DEEP: dict[str, Body] = {
    "nested_ifs": nested_ifs, "nested_calls": nested_calls, "deep_list_type": deep_list_type,
    "long_sum": long_sum, "nested_lists": nested_lists, "nested_dicts": nested_dicts,
    "nested_negations": nested_negations, "attribute_chain": attribute_chain,
}


def module_code(body: str, extra: str = "", qualified: str = "__torch__.M") -> str:
    """The code file of a module class `M` (named `qualified`) whose forward has `body`."""
    return ("class M(Module):\n  __parameters__ = []\n  __buffers__ = []\n  training : bool\n  _is_full_backward_hook : Optional[bool]\n"
            f"  def forward(self: {qualified},\n    x: int) -> int:\n" + body + extra)


def script_source(body: str) -> str:
    """`body` as a scripted function `f(x: int) -> int` (for CompilationUnit)."""
    return "def f(x: int) -> int:\n" + body.replace("self.training", "True")


def _template(lib: Any) -> bytes:
    """An archive of a module M saved by `lib` (tsjit, or torch to compare with PyTorch)."""
    class M(lib.nn.Module):
        def forward(self, x: int) -> int:
            return x + 1
    buf = io.BytesIO()
    lib.jit.save(lib.jit.script(M()), buf)
    return buf.getvalue()


_TEMPLATE: dict[str, bytes] = {}
# Where the template's class M lives: its code file, and its qualified name.
CODE_FILE = "code/__torch__/tests/helpers/hostile_code.py"
QUALIFIED = "__torch__.tests.helpers.hostile_code.M"


def archive_with_code(path: Path, code: str, lib: Any = tsjit) -> str:
    """An archive of module `M` (named QUALIFIED) at `path` whose code file is `code`, from
    an archive `lib` saved (tsjit, or torch)."""
    if lib.__name__ not in _TEMPLATE:
        _TEMPLATE[lib.__name__] = _template(lib)
    src = zipfile.ZipFile(io.BytesIO(_TEMPLATE[lib.__name__]))
    with zipfile.ZipFile(path, "w") as z:
        for info in src.infolist():
            name = info.filename
            if name.endswith(".debug_pkl"):
                continue  # it describes the code replaced
            z.writestr(name, code.encode() if name.endswith(CODE_FILE) else src.read(name))
    return str(path)


def archive_with_forward(path: Path, body: str, extra: str = "", lib: Any = tsjit) -> str:
    """An archive of module `M` whose forward has `body` (and `extra` code after it)."""
    return archive_with_code(path, module_code(body, extra, QUALIFIED), lib)
