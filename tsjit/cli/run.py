"""`tsjit run`: call a method of an archive on inputs given on the command line."""
from __future__ import annotations

import argparse
import ast
import json
import statistics
import sys
import time
from typing import Any

from ..ir.diagnostics import TsjitError
from .files import archive_only, replacing

HELP = "run a method on inputs: .npy/.npz files, Python literals, --random tensors"
EXAMPLE = "tsjit run model.pt -m forward x.npy 3 --random 1x3:float32 -o out.npz --repeat 5"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    p.add_argument("archive", help="a TorchScript archive")
    p.add_argument("inputs", nargs="*",
                   help=".npy file, .npz file (each array one input) or a Python literal")
    p.add_argument("-m", "--method", default="forward", help="method name (default: forward)")
    p.add_argument("--random", action="append", default=[], metavar="SHAPE[:DTYPE]",
                   help="a random normal tensor input, e.g. 2x3 or 2x3:float64, in its place "
                        "among the inputs (repeatable)")
    p.add_argument("--seed", type=int, default=0, help="seed of --random (default 0)")
    p.add_argument("-o", "--output", metavar="OUT.npz",
                   help="write the result's tensors to an .npz file (names out, out.0, out.key)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--repeat", type=int, default=1, metavar="N",
                   help="call N times; print the first call's and the median time on stderr")


# `--random SPEC` becomes this prefix + SPEC among the positional arguments before parsing,
# so that it keeps its place among the inputs (argparse gathers options apart). No argument
# can hold a NUL character, so no user input is mistaken for one.
_RANDOM = "\0random:"


def rewrite_argv(argv: list[str]) -> list[str]:
    """The command line with each `--random SPEC` turned into a positional input."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--random" and i + 1 < len(argv):
            out.append(_RANDOM + argv[i + 1])
            i += 2
            continue
        out.append(_RANDOM + a[len("--random="):] if a.startswith("--random=") else a)
        i += 1
    return out


def read_inputs(items: list[str], rng: Any = None) -> list[Any]:
    """The method's arguments: arrays from .npy/.npz files, random tensors, anything else a
    Python literal."""
    import numpy as np
    inputs: list[Any] = []
    for item in items:
        if item.startswith(_RANDOM):
            inputs.append(random_input(item[len(_RANDOM):], rng))
            continue
        if not item.endswith((".npy", ".npz")):
            try:
                inputs.append(ast.literal_eval(item))
            except (ValueError, SyntaxError):
                raise TsjitError(f"input {item!r} is neither a .npy/.npz file nor a Python "
                                 "literal (5, 2.5, True, 'text', [1, 2])") from None
            continue
        try:
            loaded = np.load(item, allow_pickle=False)
        except ValueError as err:
            raise TsjitError(f"input {item}: not a readable numpy file ({err})") from None
        if isinstance(loaded, np.ndarray):
            inputs.append(loaded)
        else:
            inputs.extend(loaded[k] for k in loaded.files)
    return inputs


def random_input(spec: str, rng: Any) -> Any:
    """A standard normal array for `2x3[:dtype]` (integers: 0..9)."""
    import numpy as np
    shape_text, _, dtype = spec.partition(":")
    try:
        shape = tuple(int(d) for d in shape_text.replace(",", "x").split("x") if d != "")
        dt = np.dtype(dtype or "float32")
    except (ValueError, TypeError):
        raise TsjitError(f"--random {spec!r}: expected SHAPE[:DTYPE] such as 2x3 or "
                         "2x3:float64") from None
    if dt.kind in "iu":
        return rng.integers(0, 10, shape).astype(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def check_arguments(method: str, schema: Any, inputs: list[Any]) -> None:
    """An error naming the argument when an input's kind does not fit the method's schema."""
    params = [a for a in schema.arguments if a.name != "self"]
    required = [a for a in params if a.default is _no_default()]
    if not len(required) <= len(inputs) <= len(params):
        raise TsjitError(f"{method} takes {len(required)}"
                         f"{'' if len(required) == len(params) else f' to {len(params)}'} "
                         f"inputs ({schema}); {len(inputs)} given")
    for a, value in zip(params, inputs):
        problem = _misfit(value, a.type)
        if problem:
            raise TsjitError(f"input {a.name} of {method}: expected {a.type}, got {problem}")


def _no_default() -> Any:
    from ..ir.schema import NO_DEFAULT
    return NO_DEFAULT


def _misfit(value: Any, t: Any) -> str:
    """'' when `value` can be passed as type `t`, else what it is."""
    import numpy as np
    from ..ir import types as T
    if isinstance(t, T.OptionalType):
        return "" if value is None else _misfit(value, t.elem)
    if t == T.TensorType:
        return "" if isinstance(value, np.ndarray) else f"{value!r} (give a .npy file or --random)"
    if isinstance(t, T.TupleType):
        if not isinstance(value, (tuple, list)) or len(value) != len(t.elems):
            return f"{value!r}"
        return next((p for p in (_misfit(v, e) for v, e in zip(value, t.elems)) if p), "")
    if isinstance(t, T.ListType):
        if not isinstance(value, (tuple, list)):
            return f"{value!r}"
        return next((p for p in (_misfit(v, t.elem) for v in value) if p), "")
    simple = {T.IntType: (int,), T.FloatType: (int, float), T.BoolType: (bool,),
              T.StrType: (str,)}.get(t)
    if simple is not None and (not isinstance(value, simple) or
                               (t == T.IntType and isinstance(value, bool))):
        return f"{value!r}"
    return ""


def _as_tensors(inputs: list[Any]) -> list[Any]:
    import numpy as np
    from .._tensor import from_numpy

    def conv(v: Any) -> Any:
        if isinstance(v, np.ndarray):
            return from_numpy(np.ascontiguousarray(v))
        if isinstance(v, (list, tuple)):
            return type(v)(conv(x) for x in v)
        return v
    return [conv(v) for v in inputs]


def flatten(value: Any, name: str = "out") -> list[tuple[str, Any]]:
    """(name, numpy array) for each tensor or number in a result: out, out.0, out.key."""
    import numpy as np
    from .._tensor import Tensor
    if isinstance(value, Tensor):
        return [(name, value.numpy(force=True))]
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in flatten(v, f"{name}.{i}")]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in flatten(v, f"{name}.{k}")]
    if isinstance(value, (bool, int, float)):
        return [(name, np.asarray(value))]
    return []


def to_json(value: Any) -> Any:
    """The result as JSON: tensors as {"dtype", "shape", "data"}."""
    from .._tensor import Tensor
    if isinstance(value, Tensor):
        a = value.numpy(force=True)
        return {"dtype": str(a.dtype), "shape": list(a.shape), "data": a.tolist()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def write_npz(path: str, arrays: list[tuple[str, Any]]) -> None:
    """Write arrays to `path` through a temporary name, so no half-written file remains."""
    import numpy as np
    with replacing(path) as tmp:
        with open(tmp, "wb") as f:
            np.savez(f, **dict(arrays))


def run(args: argparse.Namespace) -> int:
    """Load, check the inputs against the schema, call the method, print or save the result."""
    import numpy as np
    from ..jit import load
    # the archive is the first argument that is not an input (a --random may come first)
    items = [args.archive] + args.inputs
    at = next((i for i, a in enumerate(items) if not a.startswith(_RANDOM)), None)
    if at is None:
        raise TsjitError("tsjit run needs an archive")
    archive = items.pop(at)
    archive_only(archive, "run")
    if args.repeat < 1:
        raise TsjitError(f"--repeat {args.repeat}: must be at least 1")
    rng = np.random.default_rng(args.seed)
    inputs = read_inputs(items, rng)     # (--random inputs are among them: rewrite_argv)
    m = load(archive)
    methods = m._c.type.methods
    if args.method not in methods:
        raise TsjitError(f"{archive} has no method {args.method!r} on its top module "
                         f"({m._c.type.qualified_name}); it has: {', '.join(sorted(methods))}")
    check_arguments(args.method, methods[args.method].schema, inputs)
    call = getattr(m, args.method)
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        result = call(*_as_tensors(inputs))
        times.append(time.perf_counter() - start)
    if args.repeat > 1:
        print(f"{args.method}: first call {times[0] * 1e3:.3f} ms, median of {args.repeat} "
              f"{statistics.median(times) * 1e3:.3f} ms", file=sys.stderr)
    if args.output:
        write_npz(args.output, flatten(result))
    if args.json:
        print(json.dumps(to_json(result)))
    elif not args.output:
        print(result)
    return 0
