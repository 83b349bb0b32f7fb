"""Golden tests for tsjit.frontend.parser: AST shapes, source ranges and error messages."""
from __future__ import annotations

import dataclasses

import pytest

from tsjit.frontend import ast as A
from tsjit.frontend import parser as P
from tsjit.frontend.parser import parse, parse_class, parse_def, parse_expr
from tsjit.ir.diagnostics import ParseError
from tsjit.ir.limits import Limits, use_limits
from tests.helpers.parse_errors import ERRORS
from tests.helpers.unparse import dump

EXPRESSIONS = [
    ("a < b <= c", "Compare(Name('a'), ['<', '<='], [Name('b'), Name('c')])"),
    ("a is not b", "Compare(Name('a'), ['is_not'], [Name('b')])"),
    ("a not in b", "Compare(Name('a'), ['not_in'], [Name('b')])"),
    ("not a is not b", "UnaryOp('not', Compare(Name('a'), ['is_not'], [Name('b')]))"),
    ("-2**2", "UnaryOp('-', BinOp('**', Constant(2), Constant(2)))"),
    ("2**-1", "BinOp('**', Constant(2), UnaryOp('-', Constant(1)))"),
    ("2**3**2", "BinOp('**', Constant(2), BinOp('**', Constant(3), Constant(2)))"),
    ("-x ** 2", "UnaryOp('-', BinOp('**', Name('x'), Constant(2)))"),
    ("~+a", "UnaryOp('~', UnaryOp('+', Name('a')))"),
    ("a - b - c", "BinOp('-', BinOp('-', Name('a'), Name('b')), Name('c'))"),
    ("a + b * c // d % e", "BinOp('+', Name('a'), BinOp('%', BinOp('//', BinOp('*', Name('b'), "
                           "Name('c')), Name('d')), Name('e')))"),
    ("a @ b | c ^ d & e << f >> g",
     "BinOp('|', BinOp('@', Name('a'), Name('b')), BinOp('^', Name('c'), BinOp('&', Name('d'), "
     "BinOp('>>', BinOp('<<', Name('e'), Name('f')), Name('g')))))"),
    ("a or b or c", "BoolOp('or', BoolOp('or', Name('a'), Name('b')), Name('c'))"),
    ("a or b and not c", "BoolOp('or', Name('a'), BoolOp('and', Name('b'), UnaryOp('not', Name('c'))))"),
    ("a if b else c if d else e", "IfExp(Name('b'), Name('a'), IfExp(Name('d'), Name('c'), Name('e')))"),
    ("f(a, b=1, *c)", "Call(Name('f'), [Name('a'), Starred(Name('c'))], [Keyword('b', Constant(1))])"),
    ("f(a, )", "Call(Name('f'), [Name('a')], [])"),
    ("x.y.z(1)[2]", "Subscript(Call(Attribute(Attribute(Name('x'), 'y'), 'z'), [Constant(1)], []), Constant(2))"),
    ("x[1:2, ..., ::3]", "Subscript(Name('x'), TupleLit([Slice(Constant(1), Constant(2), None), "
                         "Constant(Ellipsis), Slice(None, None, Constant(3))]))"),
    ("x[:, None]", "Subscript(Name('x'), TupleLit([Slice(None, None, None), Constant(None)]))"),
    ("x[a,]", "Subscript(Name('x'), TupleLit([Name('a')]))"),
    ("x[::]", "Subscript(Name('x'), Slice(None, None, None))"),
    ("()", "TupleLit([])"),
    ("(1,)", "TupleLit([Constant(1)])"),
    ("(1)", "Constant(1)"),
    ("[1, 2,]", "ListLit([Constant(1), Constant(2)])"),
    ("{}", "DictLit([], [])"),
    ("{'a': 1, 'b': 2,}", "DictLit([Constant('a'), Constant('b')], [Constant(1), Constant(2)])"),
    ("[x for x in y if x if z for w in x]",
     "ListComp(Name('x'), [Comprehension(Name('x'), Name('y'), [Name('x'), Name('z')]), "
     "Comprehension(Name('w'), Name('x'), [])])"),
    ("{k: v for k, v in d.items() if k}",
     "DictComp(Name('k'), Name('v'), [Comprehension(TupleLit([Name('k'), Name('v')]), "
     "Call(Attribute(Name('d'), 'items'), [], []), [Name('k')])])"),
    ("0x_1F + 0o17 + 0b11 + 1_000",
     "BinOp('+', BinOp('+', BinOp('+', Constant(31), Constant(15)), Constant(3)), Constant(1000))"),
    ("1. + .5 + 1e-3 + inf", "BinOp('+', BinOp('+', BinOp('+', Constant(1.0), Constant(0.5)), "
                             "Constant(0.001)), Name('inf'))"),
    ("1j", "Constant(1j)"),
    ("2.5E+2J", "Constant(250j)"),
    ("True, False, None, ...", "TupleLit([Constant(True), Constant(False), Constant(None), "
                               "Constant(Ellipsis)])"),
    ("'a' \"b\" '''c''' r'\\n' 'd\\te\\x41\\u00e9\\N{BULLET}'", "Constant('abc\\\\nd\\teAé•')"),
    ("u'x' \"\\\"\"", "Constant('x\"')"),
    ('f"{a!r:>{w}} {{x}} {b!s}"',
     "JoinedStr([FormattedValue(Name('a'), 'r', JoinedStr([Constant('>'), FormattedValue(Name('w'), "
     "None, None)])), Constant(' {x} '), FormattedValue(Name('b'), 's', None)])"),
    ('f"{x:.3f}" "!" f\'{y=}\'',
     "JoinedStr([FormattedValue(Name('x'), None, JoinedStr([Constant('.3f')])), Constant('!y='), "
     "FormattedValue(Name('y'), 'r', None)])"),
    ('f"a\\n{d[\'k\']:{w}.{p}}"',
     "JoinedStr([Constant('a\\n'), FormattedValue(Subscript(Name('d'), Constant('k')), None, "
     "JoinedStr([FormattedValue(Name('w'), None, None), Constant('.'), FormattedValue(Name('p'), "
     "None, None)]))])"),
    ('rf"\\d{x}"', "JoinedStr([Constant('\\\\d'), FormattedValue(Name('x'), None, None)])"),
    ('f""', "JoinedStr([])"),
    ("[\n  1,  # one\n  2\n]", "ListLit([Constant(1), Constant(2)])"),
    ("__torch__.torch.nn.modules.linear.___torch_mangle_0.Linear",
     "Attribute(Attribute(Attribute(Attribute(Attribute(Attribute(Name('__torch__'), 'torch'), "
     "'nn'), 'modules'), 'linear'), '___torch_mangle_0'), 'Linear')"),
]


@pytest.mark.parametrize("text,expected", EXPRESSIONS)
def test_expression_shapes(text: str, expected: str) -> None:
    assert dump(parse_expr(text)) == expected


def test_big_and_special_numbers() -> None:
    for big in ("1" * 5000, "123456789012345678901234567890", "9223372036854775808", "0x8000000000000001"):
        with pytest.raises(ParseError, match="Integral constant out of range"):
            parse_expr(big)   # integers are int64, as in PyTorch
    assert parse_expr("9223372036854775807").value == (1 << 63) - 1
    assert parse_expr("-9223372036854775808").operand.value == 1 << 63   # negated: int64's least
    assert type(parse_expr("1").value) is int and type(parse_expr("1.").value) is float
    assert parse_expr("0").value == 0 and parse_expr("00").value == 0


STATEMENTS = [
    ("x = 1", "[Assign([Name('x')], Constant(1), None)]"),
    ("a = b = c", "[Assign([Name('a'), Name('b')], Name('c'), None)]"),
    ("a, b = f()", "[Assign([TupleLit([Name('a'), Name('b')])], Call(Name('f'), [], []), None)]"),
    ("(a, (b, c)) = d", "[Assign([TupleLit([Name('a'), TupleLit([Name('b'), Name('c')])])], Name('d'), None)]"),
    ("_B, _Nt, E, = size", "[Assign([TupleLit([Name('_B'), Name('_Nt'), Name('E')])], Name('size'), None)]"),
    ("a, *b = c", "[Assign([TupleLit([Name('a'), Starred(Name('b'))])], Name('c'), None)]"),
    ("x = []  # type: List[int]", "[Assign([Name('x')], ListLit([]), 'List[int]')]"),
    ("x: Final[int] = 3", "[AnnAssign(Name('x'), Subscript(Name('Final'), Name('int')), Constant(3))]"),
    ("training : bool", "[AnnAssign(Name('training'), Name('bool'), None)]"),
    ("self.w: int = 1", "[AnnAssign(Attribute(Name('self'), 'w'), Name('int'), Constant(1))]"),
    ("x[0] += 1", "[AugAssign(Subscript(Name('x'), Constant(0)), '+', Constant(1))]"),
    ("x **= 2; y //= 3; z @= w; v >>= 1; u ^= 2",
     "[AugAssign(Name('x'), '**', Constant(2)), AugAssign(Name('y'), '//', Constant(3)), "
     "AugAssign(Name('z'), '@', Name('w')), AugAssign(Name('v'), '>>', Constant(1)), "
     "AugAssign(Name('u'), '^', Constant(2))]"),
    ("del a, b[0]", "[Delete([Name('a'), Subscript(Name('b'), Constant(0))])]"),
    ("assert x, 'msg'\nassert y", "[Assert(Name('x'), Constant('msg')), Assert(Name('y'), None)]"),
    ("raise\nraise E('x')", "[Raise(None), Raise(Call(Name('E'), [Constant('x')], []))]"),
    ("return\nreturn a, b", "[Return(None), Return(TupleLit([Name('a'), Name('b')]))]"),
    ("pass; break; continue", "[Pass(), Break(), Continue()]"),
    ("if a:\n    x\nelif b:\n    y\nelse:\n    z",
     "[If(Name('a'), [ExprStmt(Name('x'))], [If(Name('b'), [ExprStmt(Name('y'))], "
     "[ExprStmt(Name('z'))])])]"),
    ("while x: x -= 1", "[While(Name('x'), [AugAssign(Name('x'), '-', Constant(1))])]"),
    ("for i, (a, b) in enumerate(z):\n  pass",
     "[For(TupleLit([Name('i'), TupleLit([Name('a'), Name('b')])]), "
     "Call(Name('enumerate'), [Name('z')], []), [Pass()])]"),
    ("with a as b, c:\n    pass",
     "[With([WithItem(Name('a'), Name('b')), WithItem(Name('c'), None)], [Pass()])]"),
    ("def f(x: int, y=2, *, z: float = 1.) -> Tensor:\n    def g(): return x\n    return g",
     "[Def('f', [Param('x', Name('int'), None, False), Param('y', None, Constant(2), False), "
     "Param('z', Name('float'), Constant(1.0), True)], Name('Tensor'), [Def('g', [], None, "
     "[Return(Name('x'))], [], None), Return(Name('g'))], [], None)]"),
    ("@torch.jit.export\n@staticmethod\ndef f(): ...",
     "[Def('f', [], None, [ExprStmt(Constant(Ellipsis))], [Attribute(Attribute(Name('torch'), "
     "'jit'), 'export'), Name('staticmethod')], None)]"),
    ("def f(a, b):\n    # type: (int, float) -> Tensor\n    return a",
     "[Def('f', [Param('a', None, None, False), Param('b', None, None, False)], None, "
     "[Return(Name('a'))], [], '(int, float) -> Tensor')]"),
    ("def f(a):  # type: (int) -> int\n    return a",
     "[Def('f', [Param('a', None, None, False)], None, [Return(Name('a'))], [], '(int) -> int')]"),
    ("def f(a):  # type: ignore\n    x = 1  # type: ignore\n",
     "[Def('f', [Param('a', None, None, False)], None, [Assign([Name('x')], Constant(1), None)], "
     "[], None)]"),
    ("@torch.jit.script\nclass A(B, C):\n  '''doc'''\n  x: int\n",
     "[ClassDef('A', [Name('B'), Name('C')], [ExprStmt(Constant('doc')), AnnAssign(Name('x'), "
     "Name('int'), None)], [Attribute(Attribute(Name('torch'), 'jit'), 'script')])]"),
]


@pytest.mark.parametrize("text,expected", STATEMENTS)
def test_statement_shapes(text: str, expected: str) -> None:
    assert dump(parse(text).body) == expected


ARCHIVE_CLASS = '''class Encoder(Module):
  __parameters__ = ["weight", "bias", ]
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  inplace : Final[bool] = False
  __annotations__["0"] = __torch__.torch.nn.modules.linear.Linear
  def forward(self: __torch__.Encoder,
    x: Tensor,
    pad: Optional[Tensor]=None) -> Tensor:
    _0 = getattr(self, "0")
    return (_0).forward(x, None, pad, )
'''


def test_archive_class() -> None:
    cls = parse(ARCHIVE_CLASS, "code/__torch__/m.py").body[0]
    assert isinstance(cls, A.ClassDef) and cls.name == "Encoder"
    kinds = [type(s).__name__ for s in cls.body]
    assert kinds == ["Assign", "Assign", "AnnAssign", "AnnAssign", "AnnAssign", "Assign", "Def"]
    assert dump(cls.body[0].value) == "ListLit([Constant('weight'), Constant('bias')])"
    assert dump(cls.body[5].targets) == "[Subscript(Name('__annotations__'), Constant('0'))]"
    fwd = cls.body[-1]
    assert [p.name for p in fwd.params] == ["self", "x", "pad"]
    assert dump(fwd.params[2].default) == "Constant(None)"
    assert fwd.body[-1].range.text == "return (_0).forward(x, None, pad, )"


def _nodes(node: object) -> list:
    out = []
    if isinstance(node, A.Node):
        out.append(node)
        for f in dataclasses.fields(node):
            if f.name != "range":
                out.extend(_nodes(getattr(node, f.name)))
    elif isinstance(node, tuple):
        for x in node:
            out.extend(_nodes(x))
    return out


def test_every_node_has_a_precise_range() -> None:
    text = 'def f(x):\n    y = (x + 1) * 2  # note\n    return [y, f"{y!r}"]\n'
    texts = {(type(n).__name__, n.range.text) for n in _nodes(parse(text))}
    for expected in [("Def", text.rstrip("\n")), ("Assign", "y = (x + 1) * 2"),
                     ("BinOp", "(x + 1) * 2"), ("BinOp", "x + 1"), ("Constant", "2"),
                     ("Return", 'return [y, f"{y!r}"]'), ("ListLit", '[y, f"{y!r}"]'),
                     ("JoinedStr", 'f"{y!r}"'), ("FormattedValue", "{y!r}"), ("Name", "y"),
                     ("Param", "x")]:
        assert expected in texts
    for n in _nodes(parse(text)):
        assert n.range.source.text is text


def test_parse_def_keeps_original_offsets() -> None:
    src = ("    @torch.jit.export\n"
           "    def forward(self, x: Tensor) -> Tensor:\n"
           '        """Doc\n'
           '        string"""\n'
           "# a comment at column 0\n"
           "        return x + 1")  # no final newline
    d = parse_def(src, "model.py", starting_line=10)
    assert d.name == "forward" and dump(d.decorators) == \
        "[Attribute(Attribute(Name('torch'), 'jit'), 'export')]"
    assert d.body[0].value.value == "Doc\n        string"  # like Python: no dedent inside
    ret = d.body[1]
    assert ret.range.location() == "model.py:15:9" and ret.range.text == "return x + 1"
    with pytest.raises(ParseError) as err:
        parse_def(src.replace("x + 1", "x + $"), "model.py", 10)
    assert str(err.value).splitlines()[1:] == ["model.py:15:20", "        return x + $",
                                               "                   ^"]


def test_parse_class_and_expr() -> None:
    c = parse_class("  class A(B):\n    x: int\n    def f(self): return 1\n", "c.py", 5)
    assert c.name == "A" and c.body[1].range.location() == "c.py:7:5"
    assert dump(parse_expr("Tuple[int, List[str]]")) == \
        "Subscript(Name('Tuple'), TupleLit([Name('int'), Subscript(Name('List'), Name('str'))]))"
    assert dump(parse_expr("  Optional[Tensor]\n")) == "Subscript(Name('Optional'), Name('Tensor'))"


def test_layout() -> None:
    text = "x = 1 + \\\n  2\nif x:\n\tif y:\n\t\tpass\n\telse:\n\t\tpass\n\n\n# end"
    assert dump(parse(text).body) == ("[Assign([Name('x')], BinOp('+', Constant(1), Constant(2)), "
                                      "None), If(Name('x'), [If(Name('y'), [Pass()], [Pass()])], [])]")
    assert parse("").body == () and parse("\n\n# only a comment\n").body == ()
    assert dump(parse("x = 1\r\ny = 2\r\n").body) == \
        "[Assign([Name('x')], Constant(1), None), Assign([Name('y')], Constant(2), None)]"
    assert dump(parse("def f():\n  return 1").body[0].body) == "[Return(Constant(1))]"


@pytest.mark.parametrize("text,message,location,caret", ERRORS)
def test_syntax_errors(text: str, message: str, location: str, caret: str) -> None:
    with pytest.raises(ParseError) as err:
        parse(text, "f.py")
    lines = str(err.value).splitlines()
    assert message in lines[0]
    assert lines[1] == location
    assert lines[2] == text.splitlines()[int(location.split(":")[1]) - 1]
    assert lines[3] == caret


def test_parse_single_definition_errors() -> None:
    with pytest.raises(ParseError, match="expected a single function definition"):
        parse_def("x = 1\n")
    with pytest.raises(ParseError, match="expected a single function definition"):
        parse_def("def f(): pass\ndef g(): pass\n")
    with pytest.raises(ParseError, match="expected a single class definition"):
        parse_class("def f(): pass\n")
    with pytest.raises(ParseError, match="unindent does not match"):
        parse_def("  def f():\n    pass\n y = 1\n")


def test_no_foreign_exception_escapes() -> None:
    for text in ["\x00", "x = '\\N{NO SUCH NAME}'", "def", "(" * 50, "x = 1e", "@\n", "*a",
                 "f'{a!}'", "f'{a:{b:{c}}}'", "x[]", "if:", "\\", "x = 0x", "'''"]:
        try:
            parse(text)
        except ParseError as e:
            assert e.range is not None and str(e)


def test_every_grammar_rule_has_a_builder() -> None:
    P._check_builder(P._get_lark())  # raises ParseError naming the rule otherwise


def test_deep_nesting_does_not_recurse() -> None:
    depth = 2000  # the builder runs inside lark's reductions: no tree walk to overflow
    with use_limits(Limits(max_source_depth=depth + 1)):  # the tree is that deep
        e = parse_expr("(" * depth + "x" + ")" * depth + " + 1" * depth)
    assert isinstance(e, A.BinOp) and e.range.text.endswith("+ 1")


def test_threads_share_the_parser_safely() -> None:
    from concurrent.futures import ThreadPoolExecutor

    texts = [f"def f{i}(x):\n    return f'{{x}}' + str({i})\n" for i in range(40)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(parse, texts))
    for i, (text, module) in enumerate(zip(texts, results)):
        assert module.body[0].name == f"f{i}" and module.range.source.text is text
        assert all(n.range.source.text is text for n in _nodes(module))


def test_comments_and_form_feeds() -> None:
    text = "# header\n\x0cdef f():  # trailing\n    # inside\n    x = 1  # type: int\n    return x # end"
    d = parse(text).body[0]
    assert d.type_comment is None and d.body[0].type_comment == "int"
    assert dump(parse("x = 1  # type: int").body) == "[Assign([Name('x')], Constant(1), 'int')]"


def test_the_first_syntax_error_is_reported_with_its_line_column_and_caret() -> None:
    text = "def f(x: int) -> int:\n    y = x\n    z = (y +)\n    w = ]\n    return z\n"
    with pytest.raises(ParseError) as info:
        parse(text, "prog.py")
    shown = str(info.value).splitlines()
    assert shown[0].startswith("invalid syntax: unexpected ')'")
    assert shown[1:] == ["prog.py:3:13", "    z = (y +)", "            ^"]
