"""Write tsjit/ops/kernels/index.txt: which kernel module registers each operator (see
tsjit/ops/kernel_index.py). Rerun it after adding, removing or editing a kernel module.

    python tools/gen_kernel_index.py            # rewrite the index
    python tools/gen_kernel_index.py --check    # exit 1 when it is out of date
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tsjit.ops import kernel_index, registry  # noqa: E402

PREFIX = "tsjit.ops.kernels."


def _registering_module() -> str:
    """The kernel module whose code is registering an operator (the innermost on the stack)."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name.startswith(PREFIX):
            return name[len(PREFIX):]
        frame = frame.f_back
    raise RuntimeError("an operator registered outside tsjit/ops/kernels")


def render() -> str:
    """The index text, from importing every kernel module in a process that has imported none."""
    if any(m.startswith(PREFIX) for m in sys.modules):
        raise RuntimeError("kernel modules were imported before the index was generated")
    operators: list[tuple[str, str]] = []
    plain = registry.register

    def recording(schema, kernel, qualified=None):
        o = plain(schema, kernel, qualified)
        operators.append((o.qualified, _registering_module()))
        return o

    registry.register = recording
    try:
        from tsjit.ops.library import import_all
        import_all()
    finally:
        registry.register = plain
    return kernel_index.render(operators)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when the index is out of date")
    args = ap.parse_args()
    text = render()
    path = Path(kernel_index.INDEX)
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if args.check:
        if old != text:
            print(f"{path} is out of date: run python tools/gen_kernel_index.py", file=sys.stderr)
            return 1
        return 0
    if old != text:
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
