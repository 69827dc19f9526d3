"""The door's nodes: one table for every way in, so that limits count every caller once.

A caller who comes in by telnet, SSH or RLOGIN takes a node, 1 to ``max_nodes``, for the
length of the call, or is told why not. The table also answers who is on which node, which
the sysop's tools and a shutdown need. It reads its limits from a settings object that may be
replaced while the door runs; calls in progress keep their nodes.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from typing import Protocol

from ansi.text import sanitize
from door.net.terminal import Terminal

TOO_MANY_MESSAGE = "Too many connections from your address."


class NodeLimits(Protocol):
    """The fields of :class:`door.config.ServerConfig` the node table reads."""

    @property
    def max_nodes(self) -> int: ...
    @property
    def max_per_address(self) -> int: ...


@dataclass(eq=False)
class Call:
    """A connected caller holding a node: how they came, from where, and their visit's task."""

    node: int
    way: str  # "telnet", "ssh", "rlogin", ...
    address: str
    task: asyncio.Task[object]
    terminal: Terminal
    since: float = field(default_factory=time.monotonic)
    farewell: str | None = None  # set when the sysop ends the call: what the caller is told

    @property
    def alias(self) -> str:
        """The caller's alias once the visit knows it, made safe to show; else empty."""
        return sanitize(self.terminal.alias or "", 40)

    def end(self, farewell: str) -> None:
        """End the call (the sysop's kick): the visit is cancelled, so it saves and says
        ``farewell``, as at a shutdown."""
        if self.farewell is None:
            self.farewell = farewell
            self.task.cancel()


class Nodes:
    """Which node each caller holds, and who may have one now."""

    def __init__(self, limits: NodeLimits) -> None:
        self.limits = limits
        self._calls: dict[int, Call] = {}
        self._per_address: Counter[str] = Counter()
        self.closing: str | None = None  # the reason, once the door has begun to close
        self.peak = 0  # most calls at once on :attr:`peak_day`
        self.peak_day = date.today()

    def refusal(self, address: str) -> str | None:
        """Why a caller from ``address`` can't have a node now, or None if they can."""
        if self.closing is not None:
            return self.closing
        if self._per_address[address] >= self.limits.max_per_address:
            return TOO_MANY_MESSAGE
        if len(self._calls) >= self.limits.max_nodes:
            nodes = self.limits.max_nodes
            busy = f"All {nodes} nodes are busy." if nodes != 1 else "The only node is busy."
            return f"{busy} Please call again later."
        return None

    @contextmanager
    def hold(self, way: str, address: str, terminal: Terminal) -> Iterator[Call]:
        """Hold the lowest free node for the current task, and free it on leaving.

        Ask :meth:`refusal` first: this takes a node even past the limits (a caller already
        admitted keeps theirs when a reload lowers them).
        """
        task = asyncio.current_task()
        assert task is not None
        node = 1
        while node in self._calls:
            node += 1
        call = Call(node, way, address, task, terminal)
        self._calls[node] = call
        self._per_address[address] += 1
        self._count_peak()
        try:
            yield call
        finally:
            del self._calls[node]
            self._per_address[address] -= 1
            if not self._per_address[address]:
                del self._per_address[address]

    def _count_peak(self) -> None:
        today = date.today()
        if today != self.peak_day:
            self.peak, self.peak_day = 0, today
        self.peak = max(self.peak, len(self._calls))

    def peak_today(self) -> int:
        """The most calls at once today (by the local clock), counting those on now."""
        self._count_peak()
        return self.peak

    def call(self, node: int) -> Call | None:
        """The call on ``node``, if any."""
        return self._calls.get(node)

    @property
    def calls(self) -> list[Call]:
        """The calls in progress, by node."""
        return [self._calls[node] for node in sorted(self._calls)]

    @property
    def busy(self) -> dict[int, str]:
        """Busy nodes and who is on each: the alias once known, else the address."""
        return {call.node: call.alias or call.address for call in self.calls}
