"""Every place the door reaches into telnetlib3's, asyncio's or aiohttp's private state, in
one module.

None of them offers a public way to do these few things. Each function here says what
it relies on and why no public API does it; ``tests/test_library_internals.py`` checks each
reliance on the installed versions, so an upgrade that takes one away fails there, by name,
rather than somewhere in a call. ``pyproject.toml`` bounds telnetlib3 to the releases those
tests passed on: a new one is let in only after they pass on it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import telnetlib3

# --- telnetlib3's reading of a sub-negotiation ----------------------------------------------


def subnegotiation_kept(writer: telnetlib3.TelnetWriter) -> int | None:
    """How many bytes of a sub-negotiation under way ``writer`` keeps so far; None when none
    is under way, or the rest of one is being dropped.

    Relies on ``TelnetWriter.cmd_received`` (``SB`` between ``IAC SB`` and ``IAC SE``), its
    ``_sb_buffer`` (a deque of the bytes kept) and ``_sb_overflow`` (True while the rest of
    one too long is dropped). telnetlib3 keeps up to a megabyte of a sub-negotiation, a
    fixed module constant, and calls no hook until ``IAC SE`` ends it, so a limit of the
    door's own must look at the buffer as it grows.
    """
    if writer.cmd_received != telnetlib3.telopt.SB or writer._sb_overflow:
        return None
    return len(writer._sb_buffer)


def drop_subnegotiation(writer: telnetlib3.TelnetWriter) -> int:
    """Let go of what ``writer`` kept of the sub-negotiation under way and drop the rest,
    up to its ``IAC SE``, as telnetlib3 does past its own limit; the option it was for.

    Relies on the same ``_sb_buffer`` and ``_sb_overflow`` as :func:`subnegotiation_kept`,
    which must have found the buffer not empty (its first byte is the option).
    """
    option = writer._sb_buffer[0][0]
    writer._sb_buffer.clear()
    writer._sb_overflow = True
    return option


# --- telnetlib3's server protocol -----------------------------------------------------------


class CompressedInputRefused:
    """Mixed into telnetlib3's server protocol: a client's compressed input (MCCP3) is never
    inflated, and :meth:`compressed_input_refused` is called instead.

    Relies on ``BaseServer._mccp3_start``, which telnetlib3's ``data_received`` calls once a
    client has announced that what follows is compressed, and before anything is inflated.
    The door also refuses compression in negotiation (``compression=False``) and drops the
    announcement's sub-negotiation unread; telnetlib3 has no switch that turns the inflating
    itself off, so this is the last guard against a zip bomb of telnet commands.
    """

    writer: telnetlib3.TelnetWriter

    def _mccp3_start(self) -> None:
        self.writer.mccp3_active = False  # what follows is read as it comes, uninflated
        self.compressed_input_refused()

    def compressed_input_refused(self) -> None:
        """Called when a client's input would have been inflated."""


def wake_drain_waiters(protocol: asyncio.BaseProtocol, error: Exception | None) -> None:
    """Wake a ``drain()`` waiting on ``protocol``, whose connection is lost.

    Relies on telnetlib3's ``BaseServer`` being an ``asyncio.streams.FlowControlMixin``
    (which ``TelnetWriter.drain`` waits on through ``_drain_helper``) whose own
    ``connection_lost`` does not reach the mixin's: without this, a visit writing to a caller
    who stopped reading, then vanished, would wait for ever. asyncio's flow control mixin is
    not public API, and telnetlib3 offers no other way to end that wait.
    """
    asyncio.streams.FlowControlMixin.connection_lost(protocol, error)


def mark_closed(protocol: telnetlib3.TelnetServer) -> None:
    """Tell telnetlib3 that ``protocol``'s connection is over.

    Relies on ``_closing``, which telnetlib3's own ``connection_lost`` sets (and then returns
    at once when called again) and by which its ``Server`` drops a protocol from its list
    of clients, and on ``_transport``, which ``Server.close()`` closes when it is not None.
    A protocol that never handed its connection to telnetlib3 (a caller refused before any
    negotiation) or whose state was let go of (:func:`break_cycles`) must set them itself.
    """
    protocol._closing = True
    protocol._transport = None


def break_cycles(protocol: telnetlib3.TelnetServer) -> None:
    """Let go of everything ``protocol``, its writer and its reader hold, once its
    connection has ended and its shell returned: nothing uses them any more.

    telnetlib3's objects keep tables of their own bound methods, timers and futures, cycles
    that only a full garbage collection would free, and the door runs one seldom (see
    :func:`door.commands.serve.calm_garbage_collector`); emptied, each is freed as soon as
    the last reference to it goes. Relies on each being a plain object whose state is its
    ``__dict__``, and on telnetlib3 reading nothing of a closed connection but what
    :func:`mark_closed` sets again, which it does, and ``_extra``, the protocol's own extra
    information, which its ``repr`` reads: its log lines name the protocol, and a handler
    may format one after (the peer is then named ``- closing``, as telnetlib3 names a
    closed one). The caller keeps anything else it needs (such as its own note that the
    connection was lost) by setting it again after.
    """
    for part in (protocol.writer, protocol.reader):
        if part is not None:
            vars(part).clear()
    vars(protocol).clear()
    mark_closed(protocol)
    protocol._extra = {}


# --- asyncio's socket transport -------------------------------------------------------------


def forget_read_callback(transport: Any) -> None:
    """Break the cycle a closed socket transport of asyncio's own event loop keeps: a bound
    method of itself (``_read_ready_cb``, Python 3.11 to 3.13), so that it is freed at once.

    Relies on a closed ``_SelectorSocketTransport`` having let go of its socket (``_sock``
    None) and reading nothing more. Another loop's transports (uvloop's are written in
    Cython and have no ``__dict__``) and the door's own (the WebSocket's) are left alone.
    asyncio has no public way to drop the callback: ``set_protocol`` only sets it again.
    """
    state = getattr(transport, "__dict__", None)
    if state is not None and "_sock" in state and state["_sock"] is None:
        state.pop("_read_ready_cb", None)


# --- aiohttp's request handler --------------------------------------------------------------


def held_after_upgrade(handler: Any) -> bytes:
    """The bytes ``handler`` (aiohttp's ``RequestHandler``, a connection's protocol) has
    received after the head (and body) of the request that asked for a WebSocket, not yet
    read by anyone: the first of the WebSocket's frames, which a client may send at once.

    Relies on ``_message_tail``, where aiohttp keeps everything that follows a request
    asking to upgrade (from the read that held its head on) until its handler prepares the
    WebSocket, whose ``set_parser`` reads and empties it. Called by that handler before it
    prepares the WebSocket: the frame reader of :mod:`door.net.web_guard` starts there,
    whatever requests came before on the connection, since aiohttp alone knows where their
    heads and bodies ended. aiohttp has no public way to see those bytes.
    """
    tail = handler._message_tail
    assert isinstance(tail, bytes)
    return tail
