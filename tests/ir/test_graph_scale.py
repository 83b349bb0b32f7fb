"""Removing, inserting and moving nodes costs the same whatever the size of the block, and
dropping a use the same whatever the number of uses (ir/graph.py's chained blocks and
use dicts): passes that change nodes one at a time stay linear in a method's length.

Growth is compared, not time: the work for n and 16n nodes, best of three, must grow
far less than quadratically (a factor of 256)."""
import random
import time

from tsjit.ir import Graph, lint, parse_schema
from tsjit.ir import types as T

NEG = parse_schema("aten::neg.int(int a) -> int")


def _chain(n):
    """A graph of `n` negations of its input, each unused but the last one."""
    g = Graph()
    x = g.add_input(T.IntType, "x")
    nodes = []
    for _ in range(n):
        node = g.insert(g.create("aten::neg", [x], 0))
        node.schema = NEG
        node.add_output(T.IntType)
        nodes.append(node)
    g.register_output(nodes[-1].output())
    return g, nodes


def _remove_one_by_one(n):
    g, nodes = _chain(n)
    order = nodes[:-1]
    random.Random(n).shuffle(order)   # anywhere in the block, not only at its end
    t0 = time.process_time()
    for node in order:
        node.destroy()      # each drops one of the many uses of `x` too
    return time.process_time() - t0


def _move_one_by_one(n):
    g, nodes = _chain(n)
    t0 = time.process_time()
    for node in nodes[1:-1:2]:
        node.move_before(nodes[0])
    return time.process_time() - t0


def _growth(work, n):
    small = min(work(n) for _ in range(3))
    big = min(work(16 * n) for _ in range(3))
    return big / max(small, 1e-6)


def test_removing_nodes_one_at_a_time_is_linear():
    assert _growth(_remove_one_by_one, 1000) < 64


def test_moving_nodes_one_at_a_time_is_linear():
    assert _growth(_move_one_by_one, 1000) < 64


def test_block_order_follows_every_change():
    # The chain and the list read from it agree with a plain list kept beside them.
    g, nodes = _chain(40)
    model = list(nodes)
    rng = random.Random(0)
    for _ in range(300):
        op = rng.randrange(4)
        if op == 0 and len(model) > 2:
            victim = rng.choice([m for m in model if not m.output().uses])
            model.remove(victim)
            victim.destroy()
        elif op == 1:
            anchor = model[rng.randrange(len(model))]
            node = g.create("aten::neg", [g.inputs[0]], 0)
            node.schema = NEG
            node.add_output(T.IntType)
            if rng.random() < 0.5:
                node.insert_before(anchor)
                model.insert(model.index(anchor), node)
            else:
                node.insert_after(anchor)
                model.insert(model.index(anchor) + 1, node)
        elif op == 2:
            node = g.create("aten::neg", [g.inputs[0]], 0)
            node.schema = NEG
            node.add_output(T.IntType)
            g.block.prepend(node) if rng.random() < 0.5 else g.block.append(node)
            model.insert(0, node) if g.block.nodes[0] is node else model.append(node)
        else:
            a, b = rng.sample(model, 2)
            a.move_before(b)
            model.remove(a)
            model.insert(model.index(b), a)
        assert g.block.nodes == model
    lint(g)


def test_uses_keep_their_order_and_read_as_a_list():
    g, nodes = _chain(5)
    x = g.inputs[0]
    assert [u.user for u in x.uses] == nodes and x.uses[0].user is nodes[0]
    nodes[1].destroy()
    assert [u.user for u in x.uses] == [nodes[0]] + nodes[2:]
    assert x.uses[2].user is nodes[3] and len(x.uses) == 4
