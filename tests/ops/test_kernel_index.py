"""The kernel index (ops/kernels/index.txt): up to date with the kernel modules, and a lazy
look-up through it registers exactly what importing every module does, in the same order."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tsjit.ops import kernel_index

ROOT = Path(__file__).resolve().parent.parent.parent

# Looks every operator of the index up, names in reverse order (so kernel modules are
# imported in another order than importing all would), and prints what it found: per
# name, the overloads' qualified names, schema texts and kernels. argv[1] == "all": the
# index is not used (every kernel module imported at the first look-up).
_PROBE = r"""
import json, sys
from tsjit.ops import kernel_index, registry
if sys.argv[1] == "all":
    kernel_index.load = lambda: None
idx = kernel_index.parse(open(kernel_index.INDEX, encoding="utf-8").read())
out = {}
for name in reversed(idx.names()):
    found = [registry.find(q) for q in reversed(list(idx.overloads(name)))]
    assert all(registry.has_namespace_name(o.name) for o in found)
    out[name] = [[o.qualified, o.text, o.kernel.__module__, o.kernel.__qualname__,
                  o.kernel.__name__] for o in registry.overloads(name)]
    assert sorted(map(id, found)) == sorted(id(o) for o in registry.overloads(name))
out["(all)"] = [o.qualified for o in registry.all_operators()]
out["(lazy)"] = registry._index is not None
print(json.dumps(out))
"""


def _probe(mode: str) -> dict:
    r = subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True, text=True,
                       cwd=ROOT, check=True)
    return json.loads(r.stdout)


@pytest.mark.slow   # a fresh process
def test_the_index_is_up_to_date() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_kernel_index.py"), "--check"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr + "(run python tools/gen_kernel_index.py)"


@pytest.mark.slow   # two fresh processes
def test_lazy_lookup_gives_what_importing_all_gives() -> None:
    lazy, eager = _probe("lazy"), _probe("all")
    assert lazy.pop("(lazy)") and not eager.pop("(lazy)")
    assert len(lazy["(all)"]) == len(set(lazy["(all)"])) > 1000
    for name in eager:
        assert lazy[name] == eager[name], name
    assert lazy.keys() == eager.keys()


def _with_modules(idx: kernel_index.KernelIndex, modules: dict) -> kernel_index.KernelIndex:
    return kernel_index.KernelIndex(modules, {n: " ".join(f"{q}={m}" for q, m in
                                                          idx.overloads(n).items())
                                              for n in idx.names()})


def test_an_index_that_does_not_describe_the_modules_is_not_used() -> None:
    idx = kernel_index.load()
    assert idx is not None, "the index is missing or stale: run python tools/gen_kernel_index.py"
    assert kernel_index._describes_disk(idx, written_ns=0)     # every module newer: compared
    module = next(iter(idx.modules))
    changed = _with_modules(idx, {**idx.modules, module: "00000000"})
    assert kernel_index._describes_disk(changed, written_ns=1 << 62)   # older: trusted
    assert not kernel_index._describes_disk(changed, written_ns=0)
    assert not kernel_index._describes_disk(_with_modules(idx, {**idx.modules, "gone": "0"}),
                                            written_ns=1 << 62)
    fewer = dict(idx.modules)
    del fewer[module]
    assert not kernel_index._describes_disk(_with_modules(idx, fewer), written_ns=1 << 62)


def test_the_index_text_round_trips() -> None:
    text = (ROOT / "tsjit" / "ops" / "kernels" / "index.txt").read_text(encoding="utf-8")
    idx = kernel_index.parse(text)
    pairs = [p for n in idx.names() for p in idx.overloads(n).items()]
    assert kernel_index.render(pairs) == text
    assert all(kernel_index.operator_name(q) == n for n in idx.names() for q in idx.overloads(n))
    assert idx.module_of("aten::add.Tensor") == "tensor_arith" and "aten::add" in idx
    assert idx.module_of("aten::no_such_operator") is None and "aten::nothing" not in idx


def test_the_eager_api_offers_each_names_eager_overloads_in_registry_order() -> None:
    # eager.py fills its table a name at a time: the same overloads, in the same order, as
    # filtering every registered operator
    from tsjit.ops import all_operators, eager
    expected: dict[str, list[str]] = {}
    for o in all_operators():
        if eager.is_eager(o.schema):
            expected.setdefault(o.schema.base_name, []).append(o.schema.text)
    assert eager.operator_names() == sorted(expected)
    for name, texts in expected.items():
        assert [s.text for s in eager.dispatcher(name).overloads()] == texts, name
    with pytest.raises(AttributeError):
        eager.lookup("no_such_operator")
