"""Depth-first search over the positions of :mod:`door.engine.solver.model`.

A set of transposition keys marks every position already reached, so each one is expanded
once and the search ends: the positions of a deal are finitely many. It answers whether a
won position can be reached, which is all a verdict needs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from time import perf_counter

from door.engine.solver.model import Model, Move, State

_CHECK_EVERY = 256
"""Nodes between two looks at the clock."""


class Result(StrEnum):
    """What a search found: a won position, none (every position it must see seen), or
    not yet when its budget ran out."""

    WON = "won"
    LOST = "lost"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What one search found: won with its commands, lost, or unknown."""

    result: Result
    line: tuple[str, ...]
    nodes: int
    states: int


def explore(
    model: Model,
    root: State,
    *,
    deadline: float,
    max_nodes: int | None,
    max_states: int,
) -> SearchResult:
    """Look for a won position reachable from ``root`` before the budget runs out.

    ``seen`` maps each layout key to the waste classes searched of it (see
    :meth:`Model.cover`).
    """
    layout, covers, cover, fresh_below = model.layout, model.covers, model.cover, model.fresh_below
    children = model.children
    root_key, root_waste = layout(root)
    seen = {root_key: cover(0, root_waste)}
    states: list[State] = [root]
    moves: list[Move] = []
    frames: list[Iterator[tuple[Move, State | None]]] = [iter(children(root))]
    nodes = 1
    node_limit = max_nodes if max_nodes is not None else 1 << 62
    checkpoint = min(node_limit, _CHECK_EVERY)
    while frames:
        for move, child in frames[-1]:
            if child is None:
                line = _line(model, states, [*moves, move])
                return SearchResult(Result.WON, line, nodes, len(seen))
            child_key, waste = layout(child)
            known = seen.get(child_key)
            if known is None:
                seen[child_key] = cover(0, waste) if waste else 1
                fresh = 0
            elif covers(known, waste):
                continue
            else:
                seen[child_key] = cover(known, waste)
                fresh = fresh_below(known, waste)
            nodes += 1
            if nodes >= checkpoint:
                if nodes >= node_limit or len(seen) >= max_states or perf_counter() > deadline:
                    return SearchResult(Result.UNKNOWN, (), nodes, len(seen))
                checkpoint = min(node_limit, nodes + _CHECK_EVERY)
            states.append(child)
            moves.append(move)
            frames.append(iter(children(child, fresh)))
            break
        else:
            frames.pop()
            states.pop()
            if moves:
                moves.pop()
    return SearchResult(Result.LOST, (), nodes, len(seen))


def _line(model: Model, states: list[State], moves: list[Move]) -> tuple[str, ...]:
    """The canonical commands of the plays ``moves`` made from ``states``, one each."""
    commands: list[str] = []
    for state, move in zip(states, moves, strict=True):
        commands.extend(model.commands(state, move))
    return tuple(commands)
