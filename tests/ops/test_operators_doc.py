"""Adding an operator is one decorated kernel: the registry, docs/operators.md, the eager API
and Tensor's operators all follow from the schema (the recipe in docs/design.md)."""
from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from tsjit.ops import all_operators, find
from tsjit.ops import tensor_methods

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.slow   # a fresh process
def test_operators_md_lists_every_registered_schema() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_operator_docs.py"), "--check"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr + "(run python tools/gen_operator_docs.py)"


def test_every_schema_has_a_kernel_taking_its_arguments() -> None:
    # the calling convention: one positional argument per schema argument
    bad = []
    for o in all_operators():
        try:
            inspect.signature(o.kernel).bind(*[None] * len(o.schema.arguments))
        except TypeError as e:
            bad.append(f"{o.schema}: {e}")
    assert not bad, "\n".join(bad)


def test_schemas_keep_their_text() -> None:
    for o in all_operators():
        assert o.schema.text and o.schema.text.startswith(o.schema.qualified + "("), o.schema
        assert all(a.written for a in o.schema.arguments), o.schema.text


def test_tensor_operators_name_registered_overloads() -> None:
    # `x + y` finds aten::add.Tensor by name: renaming a kernel function cannot break it
    names = [q for q, _ in tensor_methods.BINARY.values()] + list(tensor_methods.UNARY.values())
    for q in names:
        assert find(q).schema.qualified == q


_NEW_OPERATOR = '''
import tsjit
from tsjit.ops import op

@op("aten::tsjit_recipe_twice(Tensor self, *, Scalar by=2) -> Tensor")
def twice(self, by):
    """self * by (a kernel defined outside ops/kernels, as a new theme file would be)."""
    return self * by

x = tsjit.tensor([1.0, 2.0])
assert tsjit.tsjit_recipe_twice(x).tolist() == [2.0, 4.0]
assert x.tsjit_recipe_twice(by=3).tolist() == [3.0, 6.0]

class M(tsjit.nn.Module):
    def forward(self, x: tsjit.Tensor) -> tsjit.Tensor:
        return tsjit.tsjit_recipe_twice(x, by=4)

m = tsjit.script(M())
assert "aten::tsjit_recipe_twice" in str(m.forward.graph)
assert m(x).tolist() == [4.0, 8.0]
print("ok")
'''


@pytest.mark.slow   # a fresh process
def test_a_new_operator_is_one_decorated_kernel(tmp_path: Path) -> None:
    # eager call, Tensor method and scripted call, with nothing but the decorator (in a fresh
    # process: the registry has no way to forget an operator)
    program = tmp_path / "new_operator.py"          # scripting reads the source file
    program.write_text(_NEW_OPERATOR)
    out = subprocess.run([sys.executable, str(program)], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr
