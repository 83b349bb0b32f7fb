"""Early return, break and continue give CPython's results, also in nested loops."""
import pytest

import tsjit

SRC = '''
def classify(n: int) -> str:
    if n < 0:
        return "negative"
    if n == 0:
        return "zero"
    if n % 2 == 0:
        if n > 100:
            return "big even"
        return "even"
    return "odd"

def first_square_above(limit: int) -> int:
    i = 0
    while True:
        if i * i > limit:
            return i
        i += 1
    return -1

def find(xs: int, k: int) -> int:
    total = 0
    for i in range(xs):
        if i == k:
            break
        if i % 2 == 1:
            continue
        total += i
    return total

def nested(n: int) -> int:
    for i in range(n):
        for j in range(n):
            if i * j == 6:
                return i * 10 + j
    return -1

def wloop(n: int) -> int:
    s = 0
    while n > 0:
        n -= 1
        if n == 3:
            continue
        s += n
    return s

def inner_continue(n: int) -> Tuple[int, str]:
    s = 0
    w = ""
    for i in range(n):
        t = ""
        for j in range(n):
            if j == 1:
                t = t + "x"
                continue
            t = t + "y"
        s += i
        w = w + t
    return s, w
'''

CASES = [("classify", [(-5,), (0,), (4,), (102,), (7,)]), ("first_square_above", [(0,), (10,), (99,)]),
         ("find", [(10, 5), (10, 100), (0, 0)]), ("nested", [(2,), (4,), (7,)]),
         ("wloop", [(6,), (0,)]), ("inner_continue", [(0,), (1,), (3,)])]


@pytest.fixture(scope="module")
def compiled():
    ns: dict = {"Tuple": tuple}
    exec(SRC.replace("Tuple[int, str]", "tuple"), ns)
    return tsjit.jit.CompilationUnit(SRC), ns


@pytest.mark.parametrize("name,argsets", CASES)
def test_exits_match_cpython(compiled, name, argsets):
    cu, ns = compiled
    for args in argsets:
        assert getattr(cu, name)(*args) == ns[name](*args), (name, args)
