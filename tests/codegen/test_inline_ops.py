"""Every inline form of an operator gives exactly its kernel's result: values, and errors
(type and message), on generated values — with each operand a variable, and with the
operands the template specialises on given as constants."""
from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings, strategies as st

from tsjit.codegen.compiler import GENERATED_BUILTINS
from tsjit.codegen.inline_ops import INT64_MAX, INT64_MIN, TEMPLATES
from tsjit.codegen.python_source import _Source
from tsjit.ir import Graph
from tsjit.ops import registry

INTS = st.one_of(st.integers(-20, 20), st.integers(INT64_MIN, INT64_MAX),
                 st.sampled_from([INT64_MIN, INT64_MAX, -1, 0, 1, 2, 1 << 62, -(1 << 62), (1 << 62) - 1]))
TEXT = st.text(alphabet=st.sampled_from(list("aB9 ,.!?\t\n\x0b\x0c\r\x1c\x1f_é€\udc80")), max_size=10)
FLOATS = st.one_of(st.floats(allow_nan=True), st.sampled_from([0.0, -0.0, float("inf")]))


def _tensors() -> st.SearchStrategy:
    from hypothesis.extra import numpy as hnp
    import numpy as np
    import tsjit
    dtypes = st.sampled_from([np.float32, np.float64, np.int64, np.int8, np.uint8, np.bool_, np.complex64])
    shapes = st.sampled_from([(), (1,), (3,), (2, 3), (3, 1), (4,)])
    return st.builds(lambda a: tsjit.from_numpy(a),
                     dtypes.flatmap(lambda d: shapes.flatmap(lambda s: hnp.arrays(d, s))))


def _same(a, b) -> bool:
    import numpy as np
    import tsjit
    if isinstance(a, tsjit.Tensor) or isinstance(b, tsjit.Tensor):
        return type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape and \
            np.array_equal(a.numpy(), b.numpy(), equal_nan=a.dtype.is_floating_point or a.dtype.is_complex)
    return a == b or a != a and b != b


def _values(type_str: str) -> st.SearchStrategy:
    if type_str == "Tensor":
        return _tensors()
    if type_str == "Scalar":
        return st.sampled_from([1, 1, 2, 1.0, True])
    if type_str in ("int", "t", "t1", "t2"):
        return INTS
    if type_str == "float":
        return FLOATS
    if type_str == "bool":
        return st.booleans()
    if type_str == "str":
        return TEXT
    if type_str == "str?":
        return st.one_of(st.none(), st.sampled_from([",", " ", "ab", "é"]))
    if type_str in ("t[]", "int[]", "Any[]"):
        return st.lists(INTS, max_size=5)
    if type_str == "str[]":
        return st.lists(TEXT, max_size=5)
    if type_str.startswith("Dict(str"):
        return st.dictionaries(TEXT, INTS, max_size=4)
    if type_str.startswith("Dict(int"):
        return st.dictionaries(st.integers(-5, 5), INTS, max_size=4)
    if type_str.startswith("Dict("):
        return st.just({})
    raise AssertionError(f"no values for {type_str}")


# Operand positions a template specialises on when they are constants.
CONSTANT_VARIANTS = {
    "aten::remainder.int": [(1,)], "aten::floordiv.int": [(1,)], "aten::__derive_index": [(2,)],
    "aten::strip": [(1,)], "aten::lstrip": [(1,)], "aten::rstrip": [(1,)],
    "aten::split.str": [(1,)], "aten::add.Tensor": [(2,)], "aten::size.int": [(1,)], "aten::sub.Tensor": [(2,)], "aten::__is__": [(1,), (0,)], "aten::__isnot__": [(1,), (0,)],
}
CASES = [(name, ()) for name in sorted(TEMPLATES)] + \
    [(name, c) for name, cs in sorted(CONSTANT_VARIANTS.items()) for c in cs]


def _outcome(f):
    try:
        return "ok", f()
    except Exception as e:  # noqa: BLE001 - compared as (type, message)
        return type(e).__name__, str(e)


def _render(name: str, values: list, constants: tuple):
    """The template's code for `name` (or None if it declines), and its namespace."""
    o = registry.find(name)
    g = Graph()
    inputs = []
    for i, (arg, val) in enumerate(zip(o.schema.arguments, values)):
        if i in constants:
            c = g.create("prim::Constant", [], 0)
            if val is not None:
                c.attrs["value"] = val
            inputs.append(c.add_output(arg.type))
            g.block.append(c)
        else:
            inputs.append(g.add_input(arg.type, f"a{i}"))
    n = g.create(o.schema.qualified.split(".")[0] if "." in name.split("::")[1] else name, inputs, 0)
    n.schema = o.schema
    for r in o.schema.returns:
        n.add_output(r.type, "out")
    g.block.append(n)
    src = _Source("t")
    inline = TEMPLATES[name](n, src)
    if inline is None:
        return None
    args = src.operands(list(n.inputs), inline.order, inline.atoms)
    if inline.expr is not None:
        code = f"out_res = {inline.expr(args)}"
    else:
        out = src.local(n.outputs[0]) if n.outputs and inline.returns_input is None else "unused"
        code = "\n".join(inline.stmts(args, out)) + f"\nout_res = {out if out != 'unused' else 'None'}"
        if inline.returns_input is not None:
            code += f"\nout_res = {args[inline.returns_input]}"
    # only the builtins generated code can reach
    ns = dict(src.namespace, __builtins__=GENERATED_BUILTINS)
    for i, v in enumerate(n.inputs):
        ns[src.local(v)] = None
    return code, ns, [src.local(v) for v in n.inputs], o.kernel


@pytest.mark.slow
@pytest.mark.parametrize("name,constants", CASES, ids=[f"{n}{c or ''}" for n, c in CASES])
@settings(max_examples=40)
@given(data=st.data())
def test_inline_form_matches_kernel(name, constants, data):
    o = registry.find(name)
    if name in ("aten::__is__", "aten::__isnot__") and constants:
        values = [None if i in constants else data.draw(INTS) for i in range(2)]
    elif name == "aten::split.str" and constants:
        values = [data.draw(TEXT), None, data.draw(st.integers(-2, 3))]
    elif name.split("::")[1] in ("strip", "lstrip", "rstrip") and constants:
        values = [data.draw(TEXT), data.draw(st.sampled_from([".,;:!?", " \n\t\x0c\x0b", "a", "é", ""]))]
    elif name == "aten::__derive_index":
        # Its only use is a range loop's index: 0 <= index < the range's length.
        start, step = data.draw(INTS), data.draw(st.integers(-(1 << 40), 1 << 40).filter(bool))
        end = data.draw(INTS)
        length = max(0, (end - start + step - (1 if step > 0 else -1)) // step)
        if length == 0:
            return
        values = [data.draw(st.integers(0, length - 1)), start, step]
    else:
        values = [data.draw(_values(str(a.type))) for a in o.schema.arguments]
    rendered = _render(name, values, constants)
    if rendered is None:
        return          # the template leaves this shape to the kernel
    code, ns, names, kernel = rendered
    inline_values = copy.deepcopy(values)
    for i, nm in enumerate(names):
        if nm in ns:
            ns[nm] = inline_values[i]
    kernel_values = copy.deepcopy(values)
    expected = _outcome(lambda: kernel(*kernel_values))
    got = _outcome(lambda: exec(code, ns) or ns["out_res"])
    if expected[0] == "ok" and got[0] == "ok":
        assert _same(got[1], expected[1]), code
        assert type(got[1]) is type(expected[1]), code
        assert all(_same(x, y) if not isinstance(x, (list, dict)) else x == y
                   for x, y in zip(inline_values, kernel_values)), f"mutated operands differ: {code}"
    else:
        assert got == expected, code


def test_every_template_names_a_registered_operator():
    for name in TEMPLATES:
        assert registry.find(name) is not None
