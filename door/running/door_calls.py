"""A door-mode call within the sysop's reach: a control socket of its own while it lasts.

A BBS runs ``canfield-door door`` once a call, so there is no running door to ask about
its callers. Each door-mode call therefore listens, for as long as it lasts, on a socket
named by its process id in a folder beside the database (``canfield.db.calls/4711``), owner-only as
the running door's socket is, and answers ``who``, ``send``, ``kick`` and ``watch`` there with
the same protocol (:mod:`door.running.control`). ``canfield-door sysop`` asks the running door
and every socket in the folder, and shows their callers together.

Why sockets, not rows in the database: ``watch`` streams the caller's screen as it is sent,
which a table can't carry; a message or a kick arrives at once instead of at the next poll;
and the store, shared with ``serve``, takes no heartbeat writes. A call that dies without
closing (``kill -9``, the BBS dropping it) leaves its socket file behind, but nobody
answers on it: the sysop's commands remove such a file once its process is gone
(:func:`gone`), and never list it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from door.files import not_private, private_folder
from door.net.nodes import Call
from door.running.control import (
    ControlError,
    ControlServer,
    calls_folder,
    end_call,
    tell_call,
    who_row,
)

log = logging.getLogger("door")


class DoorModeCall:
    """One door-mode call, as its control socket answers for it; ``sysop`` is the name the
    caller is told messages come from (sysop.toml's ``bbs.sysop``)."""

    def __init__(self, call: Call, sysop: str) -> None:
        self._call = call
        self._sysop = sysop

    def who(self) -> list[dict[str, Any]]:
        """The call as ``sysop who`` lists it: the BBS's node, and the BBS as where from."""
        return [who_row(self._call, time.monotonic())]

    def call(self, node: int) -> Call | None:
        return self._call if node == self._call.node else None

    def send(self, node: int | None, text: str) -> list[int]:
        call = self._call if node is None else self.call(node)
        if call is None:
            return []
        tell_call(call, self._sysop, text)
        return [call.node]

    def kick(self, node: int, reason: str) -> bool:
        call = self.call(node)
        if call is None:
            return False
        end_call(call, reason)
        return True


def call_socket(database: Path, pid: int | None = None) -> Path:
    """The control socket of the door-mode call run by process ``pid`` (this one's by
    default) on ``database``.

    >>> call_socket(Path("/srv/canfield.db"), 4711)
    PosixPath('/srv/canfield.db.calls/4711')
    """
    return calls_folder(database) / str(os.getpid() if pid is None else pid)


@contextlib.asynccontextmanager
async def within_reach(call: Call, database: Path, sysop: str) -> AsyncIterator[None]:
    """Answer the sysop for ``call`` on its own control socket while the block runs. A
    socket that can't be made is logged and the call goes on unreached."""
    path = call_socket(database)
    server = ControlServer(path, DoorModeCall(call, sysop))
    try:
        private_folder(path.parent)
        problem = not_private(path.parent)
        if problem:  # another user's sockets there would take the sysop's commands
            raise ControlError(problem)
        await server.start()
    except (OSError, ControlError) as error:
        log.warning("node %d: the sysop's commands can't reach this call: %s", call.node, error)
        yield
        return
    try:
        yield
    finally:
        await server.close()


def gone(socket_path: Path) -> bool:
    """Whether the process a door-mode call's socket is named after (:func:`call_socket`)
    has ended: a socket of its that refuses connections is then left over, and may go.

    >>> gone(Path(f"/srv/canfield.db.calls/{os.getpid()}"))
    False
    """
    try:
        os.kill(int(socket_path.name), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # someone's process: a process id used again, or another user's door
    return False
