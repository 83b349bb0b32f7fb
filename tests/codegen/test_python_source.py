"""The generated Python: safety (names are sanitized identifiers, strings are literals,
everything else is a bound object); its text for representative functions is golden
(tests/golden/codegen.test)."""
import ast
import typing

import pytest

import tsjit
from tsjit.codegen import generated_source
from tsjit.codegen.compiler import compile_function
from tsjit.codegen.python_source import CALLER_GLOBALS, HELPER_LOCALS

SOURCE = '''
def collatz(n: int) -> int:
    total = 0
    for i in range(1, n):
        x = i
        steps = 0
        while x != 1:
            if x % 2 == 0:
                x = x // 2
            else:
                x = 3 * x + 1
            steps += 1
        total += steps
    return total

def pair(a: int, b: int) -> Tuple[int, int]:
    return b, a

def tokens(text: str, vocab: Dict[str, int]) -> Tuple[List[int], Dict[int, int]]:
    ids: List[int] = []
    for word in text.split():
        w = word.strip(".,;:!?").lower()
        if w in vocab:
            ids.append(vocab[w])
        else:
            ids.append(0)
    counts: Dict[int, int] = {}
    for t in ids:
        if t in counts:
            counts[t] += 1
        else:
            counts[t] = 1
    x, y = pair(len(ids), len(counts))
    return ids, counts

def quoting(s: str) -> str:
    return s + "'\\"\\"\\"\\n\\\\" + """tri"""

def floats(x: float) -> float:
    return x * 2.5 + float("inf") - (-0.0)
'''


@pytest.fixture(scope="module")
def cu():
    return tsjit.jit.CompilationUnit(SOURCE, {"Dict": typing.Dict, "List": typing.List,
                                               "Tuple": typing.Tuple})


@pytest.mark.parametrize("name,args", [("collatz", (30,)), ("tokens", ("A b, a. c!", {"a": 1, "b": 2})),
                                       ("quoting", ("x",)), ("floats", (1.5,)), ("pair", (1, 2))])
def test_compiled_function_matches_the_interpreter(cu, name, args, use_executor):
    fn = getattr(cu, name)
    with use_executor("interpreter"):
        expected = fn(*args)
    compiled = compile_function(fn.function)
    assert compiled(list(args)) == expected


def test_small_callee_is_inlined_and_its_tuple_dissolves(cu):
    text = generated_source(cu.tokens.function).source
    assert "_f" not in text          # no call of `pair` remains
    assert "pair" not in text


@pytest.mark.parametrize("budgeted", [False, True])
def test_names_are_identifiers_and_only_literals_are_inlined(cu, budgeted):
    for name in ("collatz", "tokens", "quoting", "floats"):
        gen = generated_source(getattr(cu, name).function, budgeted)
        tree = ast.parse(gen.source)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                assert node.id.isidentifier()
                # every global is one of the bound objects or one of the few builtins
                if node.id.startswith("_") and node.id != "_":
                    assert node.id in gen.namespace or node.id in CALLER_GLOBALS or \
                        node.id in HELPER_LOCALS or node.id.startswith("_loop"), node.id
            if isinstance(node, ast.Constant):
                assert isinstance(node.value, (int, float, str, bool, type(None)))
        assert not any(isinstance(n, (ast.Import, ast.ImportFrom, ast.Lambda)) for n in ast.walk(tree))


def test_hostile_value_names_are_sanitized():
    from tsjit.codegen.python_source import generate
    from tsjit.ir import Graph
    from tsjit.ir import types as T
    g = Graph()
    x = g.add_input(T.IntType, "import os; x")
    y = g.add_input(T.IntType, "__class__")
    g.register_output(x)
    g.register_output(y)
    gen = generate("f", g)
    ast.parse(gen.source)
    assert "import" not in gen.source.replace("import_os__x", "") and "__class__" not in gen.source
