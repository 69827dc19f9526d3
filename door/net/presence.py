"""What the sysop sees of a call: who the caller is, what they are doing, and their screen.

The visit writes a :class:`Presence` (:class:`~door.visit.context.Visit`); the sysop's tools
read it through the node table (:class:`~door.net.nodes.Call`): ``sysop who`` the alias and
the activity, ``sysop watch`` the screen as it stands and then every chunk the caller is
sent. In door mode there is no node table: the call's own control socket reads it
(:mod:`door.running.door_calls`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ansi.keys import MOUSE_OFF, MOUSE_ON

_MOUSE_ON_BYTES, _MOUSE_OFF_BYTES = MOUSE_ON.encode("ascii"), MOUSE_OFF.encode("ascii")

#: Gets a chunk of what the caller was sent, and the charset it is in.
Watcher = Callable[[bytes, str], None]


@dataclass(eq=False)
class Presence:
    """One call as the sysop sees it."""

    #: The caller's alias once known (as they gave it: sanitize it to show it).
    alias: str | None = None
    #: What the caller is doing ("main menu", "playing level 2, move 48").
    activity: str = "connecting"
    #: The caller's whole screen as it stands, for a watcher who starts now; the visit sets
    #: it while a screen of its own is shown.
    replay: Callable[[], str] | None = None
    #: Each gets every chunk of output the caller is sent: the sysop watching.
    watchers: list[Watcher] = field(default_factory=list)

    def show(self, data: bytes, charset: str) -> None:
        """Pass a chunk the caller was sent to every watcher, without the requests for mouse
        reports (the caller's mouse, not the watcher's).

        >>> seen = []
        >>> presence = Presence(watchers=[lambda data, charset: seen.append((data, charset))])
        >>> presence.show(MOUSE_ON.encode() + b"hello", "cp437")
        >>> seen
        [(b'hello', 'cp437')]
        """
        data = data.replace(_MOUSE_ON_BYTES, b"").replace(_MOUSE_OFF_BYTES, b"")
        for watcher in self.watchers:
            watcher(data, charset)
