"""`tsjit run`: inputs, outputs, timings and schema checks, through a subprocess."""
import json

import numpy as np

from tests.helpers.corpus import case_path

from tests.helpers.cli import tsjit


def test_output_npz_and_json_agree_with_the_module(tmp_path):
    import tsjit as T
    path = case_path("model_mlp")
    x = np.random.default_rng(1).standard_normal((2, 6)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "out.npz"
    proc = tsjit("run", path, tmp_path / "x.npy", "-o", out, "--json", "--repeat", "3")
    assert proc.returncode == 0, proc.stderr
    expected = T.jit.load(path).forward(T.from_numpy(x)).numpy()
    np.testing.assert_allclose(np.load(out)["out"], expected, rtol=1e-6)
    doc = json.loads(proc.stdout)
    assert doc["shape"] == [2, 3] and doc["dtype"] == "float32"
    np.testing.assert_allclose(np.array(doc["data"], np.float32), expected, rtol=1e-6)
    assert "first call" in proc.stderr and "median of 3" in proc.stderr


def test_random_inputs_are_seeded_and_shaped(tmp_path):
    path = case_path("model_mlp")
    a = tsjit("run", path, "--random", "4x6", "--json")
    b = tsjit("run", path, "--random", "4x6", "--json")
    c = tsjit("run", path, "--random", "4x6", "--seed", "5", "--json")
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout != c.stdout and json.loads(a.stdout)["shape"] == [4, 3]
    assert tsjit("run", path, "--random", "4xz").returncode == 1


def test_inputs_are_checked_against_the_schema(tmp_path):
    path = case_path("model_mlp")
    for args, words in (([path, "(1,2)"], "input x of forward: expected Tensor"),
                        ([path], "takes 1 inputs"),
                        ([path, "--random", "2x6", "--random", "2x6"], "2 given")):
        proc = tsjit("run", *args)
        assert proc.returncode == 1 and words in proc.stderr, proc.stderr
        assert proc.stderr.count("\n") == 1


def test_npz_inputs_and_literals(tmp_path):
    proc = tsjit("run", case_path("lang_int_arith"), "7", "3")
    assert proc.returncode == 0, proc.stderr
    x = np.ones((1, 6), np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    np.save(tmp_path / "x.npy", x)
    from_npz = tsjit("run", case_path("model_mlp"), "-m", "hidden", tmp_path / "in.npz")
    assert from_npz.returncode == 0, from_npz.stderr
    assert from_npz.stdout == tsjit("run", case_path("model_mlp"), "-m", "hidden",
                                    tmp_path / "x.npy").stdout


def test_inputs_keep_their_order_and_tuples_are_checked(tmp_path):
    """Literals, .npy files and --random tensors are the method's arguments in the order given."""
    source = tmp_path / "tuple_model.py"
    source.write_text(
        "from typing import List, Tuple\n"
        "import tsjit\nimport tsjit.nn as nn\n\n\n"
        "class M(nn.Module):\n"
        "    def forward(self, p: Tuple[int, int], x: tsjit.Tensor, xs: List[float]) -> Tuple[int, tsjit.Tensor]:\n"
        "        return p[0] * p[1], x * xs[0]\n")
    import importlib.util
    import tsjit as T
    spec = importlib.util.spec_from_file_location("tuple_model", source)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    path = tmp_path / "m.pt"
    T.save(T.script(mod.M()), str(path))
    x = tmp_path / "x.npy"
    np.save(x, np.arange(3, dtype=np.float32))
    ok = tsjit("run", path, "(3, 4)", x, "[2.0]", "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout) == [12, {"dtype": "float32", "shape": [3], "data": [0.0, 2.0, 4.0]}]
    rand = tsjit("run", "-m", "forward", path, "(1, 2)", "--random", "2x3", "[1.0]", "--json", "--seed", "3")
    assert rand.returncode == 0, rand.stderr
    assert json.loads(rand.stdout)[1]["shape"] == [2, 3]
    for args, message in ((["(1, 2, 3)", x, "[1.0]"], "input p of forward: expected (int, int), got (1, 2, 3)"),
                          (["(1, 2.5)", x, "[1.0]"], "expected (int, int), got 2.5"),
                          (["--random", "2", "(1, 2)", "[1.0]"], "input p of forward: expected (int, int)")):
        bad = tsjit("run", path, *args)
        assert bad.returncode == 1 and message in bad.stderr, bad.stderr
