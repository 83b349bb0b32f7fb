"""Golden printed graphs, one per statement and expression kind of the language.

Each function below exercises one kind; its graph (as `fn.graph` prints it) is compared
with tests/golden/graphs/<name>.txt. Run pytest with --update-golden after an intended
change of the compiler or its passes, and read the diff before checking it in.
"""
import typing

import pytest

import tsjit
from tsjit.ir.verifier import lint

SOURCES = {
    "if_elif_else": '''
def f(x: int, y: int) -> int:
    if x > y:
        z = x - y
    elif x == y:
        z = 0
    else:
        z = y - x
    return z
''',
    "while": '''
def f(n: int) -> int:
    s = 0
    while n > 0:
        s += n
        n -= 1
    return s
''',
    "for_range": '''
def f(n: int) -> int:
    s = 0
    for i in range(2, n, 3):
        s = s * 2 + i
    return s
''',
    "for_list_break_continue": '''
def f(xs: List[int]) -> int:
    s = 0
    for x in xs:
        if x < 0:
            continue
        if x > 100:
            break
        s += x
    return s
''',
    "for_str_tuple_dict": '''
def f(s: str, d: Dict[str, int]) -> int:
    n = 0
    for c in s:
        if c in d:
            n += d[c]
    for k in (1, 2, 3):
        n += k
    for key in d:
        n += len(key)
    for key, v in d.items():
        n += v
    return n
''',
    "zip_enumerate": '''
def f(a: List[int], b: List[float]) -> float:
    t = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        t += i * x * y
    return t
''',
    "for_tensor": '''
def f(x: Tensor) -> Tensor:
    acc = torch.zeros(3)
    for row in x:
        acc = acc + row
    return acc
''',
    "early_return": '''
def f(x: int) -> int:
    for i in range(x):
        if i * i > x:
            return i
    return -1
''',
    "raise_assert": '''
def f(x: int) -> int:
    assert x != 3, "three is not allowed"
    if x < 0:
        raise ValueError("negative: " + str(x))
    return x
''',
    "del_augmented": '''
def f(xs: List[int]) -> List[int]:
    xs += [4]
    del xs[0]
    d: Dict[str, int] = {"a": 1}
    d["a"] *= 3
    del d["a"]
    return xs
''',
    "tuple_unpacking": '''
def f(t: Tuple[int, Tuple[float, str]]) -> Tuple[str, float, int]:
    a, (b, c) = t
    x = y = a
    return c, b, x + y
''',
    "annotated_assignment": '''
def f(n: int) -> Optional[int]:
    xs: List[int] = []
    best: Optional[int] = None
    for i in range(n):
        xs.append(i)
        best = i
    return best
''',
    "no_grad": '''
def f(x: Tensor) -> Tensor:
    with torch.no_grad():
        y = x * 2
    return y
''',
    "comprehensions": '''
def f(n: int) -> Dict[int, List[int]]:
    squares = [i * i for i in range(n)]
    return {k: [k, k + 1] for k in squares}
''',
    "operators": '''
def f(a: int, b: float, c: bool, s: str) -> Tuple[bool, float, int, str, bool]:
    chained = 0 < a <= 10 != b
    arith = -a + b * 2 ** a / 3 - a // 2 + a % 5
    bits = (a << 2 | a >> 1) & a ^ 7
    both = c and a > 1 or not c
    return chained, arith, bits, s[1:-1:2] + s[0], both
''',
    "conditional_expression": '''
def f(a: int) -> str:
    return "big" if a > 100 else ("neg" if a < 0 else "small")
''',
    "is_none_refinement": '''
def f(x: Optional[int], y: Optional[int]) -> int:
    if x is None:
        return 0
    if y is not None and y > x:
        return y
    assert y is not None
    return x + y
''',
    "isinstance_refinement": '''
def f(x: Union[int, str, List[int]]) -> int:
    if isinstance(x, int):
        return x
    elif isinstance(x, str):
        return len(x)
    return sum(x)
''',
    "formatting": '''
def f(name: str, n: int, x: float) -> str:
    a = f"{name}: {n} items"
    b = "%s=%d (%.2f)" % (name, n, x)
    return a + "{} and {}".format(b, x)
''',
    "builtins": '''
def f(xs: List[int], x: float) -> Tuple[int, int, int, float, str, int, str]:
    return len(xs), min(xs), max(xs), round(x), str(x), ord("a"), chr(98) + hex(255)
''',
    "list_dict_str_methods": '''
def f(text: str) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for w in text.lower().split():
        w = w.strip(".,")
        counts[w] = counts.get(w, 0) + 1
    keys = list(counts.keys())
    keys.sort()
    keys.insert(0, "_")
    return counts
''',
    "calls_and_defaults": '''
def helper(a: int, b: int = 2, *, scale: float = 1.0) -> float:
    return (a + b) * scale

def f(x: int) -> float:
    return helper(x) + helper(x, 3) + helper(x, scale=0.5)
''',
    "type_comment": '''
def f(x, y):
    # type: (int, List[int]) -> int
    return x + len(y)
''',
    "tensor_indexing": '''
def f(x: Tensor, i: int) -> Tensor:
    x[0] = 1.0
    x[1:, i] += 2
    return x[..., None, ::2]
''',
}

GLOBALS = {"List": typing.List, "Dict": typing.Dict, "Tuple": typing.Tuple,
           "Optional": typing.Optional, "Union": typing.Union, "Tensor": tsjit.Tensor,
           "torch": tsjit}


@pytest.mark.parametrize("kind", sorted(SOURCES))
def test_printed_graph(kind, golden):
    cu = tsjit.jit.CompilationUnit(SOURCES[kind], GLOBALS)
    graph = cu.f.graph
    lint(graph)
    golden(f"graphs/{kind}.txt", str(graph))


class Counter:
    """A TorchScript class: __init__, a method, class-typed attributes and magic methods."""

    def __init__(self, start: int) -> None:
        self.n = start
        self.seen: typing.List[int] = []

    def bump(self, k: int) -> int:
        self.n += k
        self.seen.append(k)
        return self.n

    def __len__(self) -> int:
        return len(self.seen)

    def __contains__(self, k: int) -> bool:
        return k in self.seen


def use_counter(k: int) -> int:
    c = Counter(k)
    c.bump(2)
    return len(c) + int(3 in c)


def test_printed_graph_of_class_use(golden):
    fn = tsjit.script(use_counter)
    lint(fn.graph)
    golden("graphs/class_use.txt", str(fn.graph))
    assert fn(5) == use_counter(5)
