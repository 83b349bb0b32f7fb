"""`tsjit convert`: the weights of an archive, a checkpoint or a safetensors file, written as
safetensors (with the `safetensors` package's numpy API) or as a torch.save checkpoint."""
from __future__ import annotations

import argparse
import os
from typing import Any, Iterator

from ..ir.diagnostics import TsjitError
from .files import replacing

HELP = "write the weights to OUT.safetensors, or to a torch.save checkpoint (OUT.pt)"
EXAMPLE = "tsjit convert model.pt model.safetensors --dtype bfloat16"
_SAFETENSORS = ".safetensors"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    p.add_argument("file", help="a TorchScript archive, a torch.save checkpoint or a .safetensors file")
    p.add_argument("out", help="OUT.safetensors, or any other name for a torch.save checkpoint "
                               "holding a state dict (name -> tensor)")
    p.add_argument("--dtype", help="cast floating-point tensors to this dtype (float16, "
                                   "bfloat16, float32, float64)")


def run(args: argparse.Namespace) -> int:
    """Read every tensor, cast, write the output through a temporary name."""
    cast = _float_dtype(args.dtype) if args.dtype else None
    tensors = dict(_cast(read_tensors(args.file), cast))
    if args.out.endswith(_SAFETENSORS):
        write_safetensors(tensors, args.out)
    else:
        write_checkpoint(tensors, args.out)
    total = sum(a.nbytes for a in tensors.values())
    print(f"{args.out}: {len(tensors)} tensors, {total} bytes")
    return 0


def _safetensors() -> Any:
    # safetensors' numpy API names bfloat16 and the float8 types by numpy type names that
    # only ml_dtypes registers
    import ml_dtypes  # noqa: F401
    try:
        import safetensors.numpy
    except ImportError:
        raise TsjitError("reading or writing .safetensors needs the safetensors package: "
                         "pip install 'tsjit[cli]' (or pip install safetensors)") from None
    return safetensors


def read_tensors(path: str) -> Iterator[tuple[str, Any]]:
    """(name, numpy array) of each tensor of a file, one at a time."""
    if path.endswith(_SAFETENSORS):
        st = _safetensors()
        if not os.path.isfile(path):
            raise TsjitError(f"no such file: {path}")
        try:
            with st.safe_open(path, framework="np") as f:
                for name in f.keys():
                    yield name, f.get_tensor(name)
        except st.SafetensorError as err:
            raise TsjitError(f"{path} is not a readable safetensors file: {err}") from None
        return
    from .contents import open_file
    view = open_file(path)
    for ref in view.tensors():
        yield ref.name, view.array(ref)


def _float_dtype(name: str) -> Any:
    from .._tensor.dtypes import as_dtype
    try:
        d = as_dtype(name)
    except (TypeError, ValueError, KeyError, AttributeError):
        d = None
    if d is None or not d.is_floating_point or d.np is None:
        raise TsjitError(f"--dtype {name}: expected a floating-point dtype "
                         "(float16, bfloat16, float32, float64)")
    return d.np


def _cast(items: Iterator[tuple[str, Any]], dtype: Any) -> Iterator[tuple[str, Any]]:
    """Contiguous little-endian arrays, floating-point ones cast to `dtype` when given."""
    from .._tensor.dtypes import as_dtype
    for name, a in items:
        if a.dtype.byteorder == ">":         # (a big-endian archive's storages)
            a = a.astype(a.dtype.newbyteorder("<"))
        if dtype is not None and as_dtype(a.dtype).is_floating_point:
            a = a.astype(dtype)
        # (not np.ascontiguousarray: it makes a 0-d array 1-d)
        yield name, a if a.flags.c_contiguous else a.copy(order="C")


def write_safetensors(tensors: dict[str, Any], out: str) -> None:
    """`tensors` as a safetensors file (format "pt", which PyTorch's loaders expect)."""
    st = _safetensors()
    with replacing(out) as tmp:
        try:
            st.numpy.save_file(tensors, tmp, metadata={"format": "pt"})
        except st.SafetensorError as err:
            raise TsjitError(f"cannot write {out}: {err}") from None


def write_checkpoint(tensors: dict[str, Any], out: str) -> None:
    """`tensors` as a torch.save checkpoint of a state dict (tsjit.save)."""
    from .._tensor import from_numpy
    from ..serialization import save
    save({k: from_numpy(a) for k, a in tensors.items()}, out)
