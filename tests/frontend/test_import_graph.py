"""The frontend's modules import each other without cycles (see docs/design.md, "Frontend
modules"), at module level and inside functions alike."""
import ast
import os

FRONTEND = os.path.join(os.path.dirname(__file__), "..", "..", "tsjit", "frontend")


def _runtime_imports(path: str) -> set[str]:
    """Frontend modules `path` imports when it runs: every form except `if TYPE_CHECKING:`."""
    tree = ast.parse(open(path).read())
    annotation_only = {id(n) for node in ast.walk(tree)
                       if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
                       for stmt in node.body for n in ast.walk(stmt)}
    out = set()
    for node in ast.walk(tree):
        if id(node) in annotation_only or not isinstance(node, ast.ImportFrom):
            continue
        if node.level == 1:
            names = [node.module] if node.module else [a.name for a in node.names]
            out.update(n.split(".")[0] for n in names)
        elif node.level == 0 and (node.module or "").startswith("tsjit.frontend."):
            out.add(node.module.split(".")[2])
    return out


def _graph() -> dict[str, set[str]]:
    mods = {n[:-3] for n in os.listdir(FRONTEND) if n.endswith(".py")}
    return {m: _runtime_imports(os.path.join(FRONTEND, m + ".py")) & mods for m in mods}


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle as a path of module names, or [] when there is none."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str]:
        state[m] = 1
        stack.append(m)
        for dep in sorted(graph[m]):
            if state.get(dep) == 1:
                return stack[stack.index(dep):] + [dep]
            if dep not in state:
                found = visit(dep)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return []

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return []


def test_frontend_modules_import_without_cycles():
    cycle = _cycle(_graph())
    assert not cycle, " -> ".join(cycle)


def test_the_cycle_finder_sees_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) == []


def test_the_operator_tables_are_a_leaf():
    # nothing of the frontend; of tsjit only the IR's node-kind names
    assert _graph()["operators"] == set()
    tree = ast.parse(open(os.path.join(FRONTEND, "operators.py")).read())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported <= {"__future__", "ir.node_kinds"}, imported


def test_compiler_halves_import_at_module_level():
    # FunctionCompiler's two halves name their collaborators up front: a function-level
    # import there would hide a dependency from readers and from the cycle check above.
    for name in ("compiler", "emitter"):
        tree = ast.parse(open(os.path.join(FRONTEND, name + ".py")).read())
        late = [n.lineno for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.ClassDef))
                for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))]
        assert not late, f"{name}.py imports inside functions at lines {late}"
