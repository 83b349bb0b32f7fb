"""Moving the zoo's recorded values into tsjit and back, and the comparison with its tolerance.

An output array matches when every element is within `rtol * max(1, max|ref|)` of PyTorch's:
the weights are random, so deep nets reach magnitudes where an absolute bound says nothing,
and float32 sums taken in another order differ in the last bits relative to the largest value.
Integer and bool outputs (indices, labels) must be equal. No torch needed.
"""
from __future__ import annotations

import numpy as np

import tsjit

# Cases whose outputs PyTorch itself does not reproduce to 1e-4 (measured: the same archive run
# by PyTorch with 1 and with 2 threads), with the tolerance they get instead. Kept here rather
# than on the Case, so that a tolerance change does not regenerate the zoo.
LOOSER = {
    # 1 vs 2 threads: 9e-5 of the largest logit (bilinear upsampling of 2048-channel sums)
    "tv_fcn_resnet50": 5e-4,
}


def tolerance(case) -> float:
    """The relative tolerance of a zoo case (its own, or a looser one from LOOSER)."""
    return max(case.rtol, LOOSER.get(case.name, 0.0))



def to_tsjit(v):
    """A recorded input with numpy arrays as tsjit tensors, containers kept."""
    if isinstance(v, np.ndarray):
        return tsjit.from_numpy(v.copy())
    if isinstance(v, (list, tuple)):
        return type(v)(to_tsjit(x) for x in v)
    if isinstance(v, dict):
        return {k: to_tsjit(x) for k, x in v.items()}
    return v


def from_tsjit(v):
    """A tsjit result with tensors as numpy arrays (tuples and lists both as tuples)."""
    if isinstance(v, tsjit.Tensor):
        return v.numpy()
    if isinstance(v, (list, tuple)):
        return tuple(from_tsjit(x) for x in v)
    if isinstance(v, dict):
        return {k: from_tsjit(x) for k, x in v.items()}
    return v


def assert_match(got, ref, rtol: float, where: str = "output") -> None:
    """`got` has `ref`'s structure and values within the zoo's tolerance (module doc)."""
    if isinstance(ref, np.ndarray):
        got = np.asarray(got)
        assert got.shape == ref.shape, f"{where}: shape {got.shape} != {ref.shape}"
        assert got.dtype == ref.dtype, f"{where}: dtype {got.dtype} != {ref.dtype}"
        if ref.dtype.kind in "fc":
            scale = max(1.0, float(np.max(np.abs(ref)))) if ref.size else 1.0
            err = float(np.max(np.abs(got - ref))) if ref.size else 0.0
            assert err <= rtol * scale, f"{where}: max difference {err:.3g} > {rtol} * {scale:.3g}"
        else:
            assert np.array_equal(got, ref), f"{where}: values differ"
    elif isinstance(ref, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(ref), \
            f"{where}: {type(got).__name__} of {len(got) if hasattr(got, '__len__') else '?'}" \
            f" != {type(ref).__name__} of {len(ref)}"
        for i, (g, r) in enumerate(zip(got, ref)):
            assert_match(g, r, rtol, f"{where}[{i}]")
    elif isinstance(ref, dict):
        assert isinstance(got, dict) and list(got) == list(ref), f"{where}: keys differ"
        for k in ref:
            assert_match(got[k], ref[k], rtol, f"{where}[{k!r}]")
    else:
        assert got == ref, f"{where}: {got!r} != {ref!r}"
