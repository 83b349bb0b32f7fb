"""`tsjit code` and `tsjit graph` for any submodule and method, inlined, as DOT and SVG."""
import re
import shutil
import xml.etree.ElementTree as ET

import pytest

from tests.helpers.corpus import case_path

from tests.helpers.cli import tsjit

MLP = case_path("model_mlp")


def _ok(*args):
    proc = tsjit(*args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_code_of_a_submodule_method_and_inlined():
    own = _ok("code", MLP, "--module", "features.0", "--method", "forward")
    assert own.startswith("# __torch__.torch.nn.modules.linear.Linear.forward (module features.0)")
    assert "torch.linear(" in own
    calls = _ok("code", MLP, "--method", "forward")
    inlined = _ok("code", MLP, "--method", "forward", "--inlined")
    assert ".forward(" in calls and ".forward(" not in inlined
    assert "torch.linear(" in inlined and "torch.layer_norm(" in inlined


def test_all_shows_each_module_type_once():
    import tsjit as T
    m = T.jit.load(MLP)
    types = {sub._c.type.qualified_name: sub._c.type for _, sub in m.named_modules()}
    titles = re.findall(r"^# (\S+)", _ok("graph", MLP, "--all"), re.M)
    assert sorted(titles) == sorted(f"{q}.{k}" for q, t in types.items() for k in t.methods)


def test_inlined_graph_has_no_calls():
    plain = _ok("graph", MLP)
    inlined = _ok("graph", MLP, "--inlined")
    assert "prim::CallMethod" in plain and "prim::CallMethod" not in inlined
    assert "aten::linear" in inlined


def test_dot_is_one_digraph_with_a_cluster_per_method(tmp_path):
    dot = _ok("graph", MLP, "--format", "dot")
    assert dot.startswith("digraph tsjit {") and dot.rstrip().endswith("}")
    assert dot.count("subgraph cluster_") == 2      # forward and hidden, no blocks
    assert re.search(r'label="prim::CallMethod\[name=\'forward\'\]', dot)
    out = tmp_path / "g.dot"
    assert _ok("graph", MLP, "--format", "dot", "-o", out) == "" and out.read_text() == dot


def test_svg_through_graphviz(tmp_path):
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot program is not installed")
    pytest.importorskip("graphviz")
    out = tmp_path / "g.svg"
    _ok("graph", MLP, "--module", "norm", "--inlined", "--format", "svg", "-o", out)
    root = ET.fromstring(out.read_text())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "aten::layer_norm" in out.read_text()


def test_selection_errors():
    for args, message in ((["--module", "nope"], "has no submodule 'nope'"),
                          (["--method", "nope"], "no method 'nope'"),
                          (["--all", "--module", "norm"], "--all and --module exclude each other")):
        for command in ("code", "graph"):
            proc = tsjit(command, MLP, *args)
            assert proc.returncode == 1 and message in proc.stderr, proc.stderr
