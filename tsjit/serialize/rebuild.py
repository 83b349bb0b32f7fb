"""Neutral pickle model -> run-time values, without recursion.

The unpickler builds records (`pickle_format`); a loader interprets them: the archive
loader makes TorchScript objects and tensors, the checkpoint loader Python containers
and tensors. Both walk the model with `Rebuilder`, which visits it depth-first with an
explicit work stack, so a pickle nested 100,000 deep loads like a flat one.

Each value is planned once (`plan`: a shell, the children it needs, a finish step) and
finished when its children are: a mutable value (list, dict, set, an object) is
registered as an empty shell before its children, so that values referring back to it
(cycles through lists and objects, as pickles make them) get the same object; an
immutable one (tuple, a call's result) is made from its children's values. A value that
contains itself only through immutable ones cannot be made this way and is an error.
Shared records give one value: results are kept by record identity.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from tsjit.ir.limits import LimitError, current_limits
from tsjit.serialize.errors import ArchiveError
from tsjit.serialize.pickle_format import NESTED_KEYS, MemoTuple, key_problem

# the types whose model values are their own run-time values (in a checkpoint)
LEAVES = frozenset({type(None), bool, int, float, complex, str, bytes, bytearray})
NO_SHELL: Any = object()   # plan: the value is made by its finish step
FILLED: Any = object()     # finish: the shell is complete (it was the value)
NOT_DONE: Any = object()   # a record not met before (its value may be None)

Finish = Callable[[Any], Any]
Plan = tuple[Any, Iterable[Any], Finish]


class Rebuilder:
    """Walks a model value into a run-time value; subclasses plan the records.

    `plan_<kind>` methods return (shell or NO_SHELL, the model values that must be made
    first, finish); `finish(v)` returns the value, or FILLED after filling the shell.
    `get(x)` inside a finish step is the value a child was made into. `leaves`: the
    types whose values are their own (their subclasses too); `containers`: the Python
    containers a pickle of this kind may hold.
    """

    leaves: frozenset[type] = LEAVES
    containers: tuple[type, ...] = (tuple, list, dict, set, frozenset)

    def __init__(self, where: str) -> None:
        self.where = where
        self.done: dict[int, Any] = {}   # value by id of the record it was made from
        self._making: set[int] = set()   # ids of shell-less values planned, not finished
        planners = {tuple: self.plan_tuple, MemoTuple: self.plan_tuple, list: self.plan_list,
                    dict: self.plan_dict, set: self.plan_set, frozenset: self.plan_frozenset}
        self._planners: dict[type, Callable[[Any], Plan]] = {
            k: v for k, v in planners.items() if issubclass(k, self.containers)}
        self._planners.update(self.record_planners())

    def record_planners(self) -> dict[type, Callable[[Any], Plan]]:
        """Planners of the model's record types (Reduce, Object, ...): the subclass's job."""
        return {}

    def value(self, root: Any) -> Any:
        """The run-time value of model value `root`."""
        leaves = self.leaves
        if type(root) in leaves:
            return root
        done = self.done
        found = done.get(id(root), NOT_DONE)
        if found is not NOT_DONE:
            return found
        making, planners = self._making, self._planners
        work: list[tuple[Any, Any]] = [(root, None)]
        pop, push = work.pop, work.append
        # Values planned and not finished are the path from the root to the value being
        # made (each one's children lie above its finish step on the stack): their number
        # is the nesting depth.
        depth, max_depth = 0, current_limits().max_pickle_depth
        while work:
            v, finish = pop()
            key = id(v)
            if finish is not None:
                depth -= 1
                out = finish(v)
                if out is not FILLED:
                    done[key] = out
                    making.discard(key)
                continue
            if key in done:
                continue
            depth += 1
            if depth > max_depth:
                raise LimitError("max_pickle_depth", f"the nesting of values in {self.where}",
                                 depth)
            planner = planners.get(type(v))
            if planner is None:
                planner = self.planner_of(v)
            shell, children, finish = planner(v)
            if shell is NO_SHELL:
                making.add(key)
            else:
                done[key] = shell
            push((v, finish))
            for c in children:
                if type(c) not in leaves and id(c) not in done:
                    if id(c) in making:
                        raise ArchiveError(f"a value in {self.where} contains itself through "
                                           "a tuple or a call; tsjit cannot load such cycles")
                    push((c, None))
        return done[id(root)]

    def planner_of(self, v: Any) -> Callable[[Any], Plan]:
        """The planner of a value of a subclass of a model type; an error for others."""
        if isinstance(v, tuple(self.leaves)):
            return _itself
        for kind, planner in self._planners.items():
            if isinstance(v, kind):
                return planner
        raise ArchiveError(f"unexpected {type(v).__name__} value in {self.where}")

    def check_keys(self, keys: Any) -> Any:
        """`keys` (a list, dict keys or set members about to be hashed); an error for a
        tuple too costly to hash (see `pickle_format.key_problem`)."""
        if not NESTED_KEYS.isdisjoint(map(type, keys)):
            for k in keys:
                problem = type(k) in NESTED_KEYS and key_problem(k)
                if problem:
                    raise ArchiveError(f"a dict key or set member in {self.where} holds "
                                       f"{problem}")
        return keys

    def get(self, x: Any) -> Any:
        """The value model value `x` was made into (its children are made first)."""
        return x if type(x) in self.leaves else self.done[id(x)]

    # --------------------------------------------------------------- containers

    def plan_tuple(self, v: tuple) -> Plan:
        return NO_SHELL, v, self.finish_tuple

    def finish_tuple(self, v: tuple) -> tuple:
        done, leaves = self.done, self.leaves
        return tuple([x if type(x) in leaves else done[id(x)] for x in v])

    def plan_list(self, v: list) -> Plan:
        return [], v, self.finish_list

    def finish_list(self, v: list) -> Any:
        done, leaves = self.done, self.leaves
        done[id(v)].extend([x if type(x) in leaves else done[id(x)] for x in v])
        return FILLED

    def plan_dict(self, v: dict) -> Plan:
        return {}, [*v.keys(), *v.values()], self.finish_dict

    def finish_dict(self, v: dict) -> Any:
        out, get = self.done[id(v)], self.get
        self.check_keys(list(map(get, v)))
        for k, x in v.items():
            out[get(k)] = get(x)
        return FILLED

    def plan_set(self, v: set) -> Plan:
        return set(), v, self.finish_set

    def finish_set(self, v: set) -> Any:
        self.done[id(v)].update(self.check_keys(list(map(self.get, v))))
        return FILLED

    def plan_frozenset(self, v: frozenset) -> Plan:
        return NO_SHELL, v, lambda v: frozenset(self.check_keys(list(map(self.get, v))))


def _itself(v: Any) -> Plan:
    return NO_SHELL, (), _same


def _same(v: Any) -> Any:
    return v
