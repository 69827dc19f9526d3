"""Guards between a telnet client and telnetlib3: checked sub-negotiations, a budget for
telnet commands, and a log that one connection cannot fill.

telnetlib3 trusts what a client sends inside ``IAC SB ... IAC SE``: a window size of one byte
instead of four makes it format and log a traceback of a dozen lines, for every such command,
before the door has even given the caller a node. The door checks each sub-negotiation's
shape itself, drops the ones it never asked for, and notes every fault in a
:class:`FaultLog`: the first fault of each kind is logged on one line, later ones are only
counted, and the count is logged once when the connection ends.
"""

from __future__ import annotations

import logging
from collections import Counter, deque
from typing import Any

import telnetlib3

from door.net.library_internals import drop_subnegotiation, subnegotiation_kept

log = logging.getLogger("door")

# Telnet option codes (RFC 854 and those after it).
_IS, _SEND = 0, 1
TTYPE, NAWS, TSPEED, LFLOW, LINEMODE, XDISPLOC, NEW_ENVIRON, CHARSET = (
    24,
    31,
    32,
    33,
    34,
    35,
    39,
    42,
)
STATUS, SNDLOC = 5, 23
# The sub-negotiations a server in the door's place can be sent in answer to what it asks
# (window size, terminal type, environment, charset) or to what a client may offer. Others
# (MUD protocols, COM-PORT, compression) are never asked for and are dropped unread.
ANSWERED = frozenset(
    {TTYPE, NAWS, TSPEED, LFLOW, LINEMODE, XDISPLOC, NEW_ENVIRON, CHARSET, STATUS, SNDLOC}
)
TERMINAL_TYPES = 8  # terminal-type answers taken per connection; clients cycle through 2 or 3
TERMINAL_TYPE_LENGTH = 40  # RFC 1091's longest terminal type name
# Telnet commands a second a client may send, after a first burst: a client answers the
# door's few questions at connect, and sends a window size when its window is resized.
# A flood of commands costs the door far more than typed keys do (telnetlib3 reads them byte
# by byte in Python), so their budget is much smaller than the input budget.
COMMAND_RATE = 64
COMMAND_BURST = 256
# The longest sub-negotiation kept: a terminal type, a window size, an environment of a few
# variables. telnetlib3 keeps a megabyte, at 8 bytes of memory a byte, of one that never ends.
SUBNEGOTIATION_LIMIT = 512


class TokenBucket:
    """How much of something may be taken now: ``rate`` a second after a first ``burst``."""

    __slots__ = ("_at", "_burst", "_rate", "_tokens")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self._rate, self._burst = rate, burst
        self._tokens, self._at = burst, now

    def take(self, wanted: int, now: float) -> int:
        """Take up to ``wanted`` now; how many were granted."""
        self._tokens = min(self._burst, self._tokens + (now - self._at) * self._rate)
        self._at = now
        granted = min(wanted, int(self._tokens))
        self._tokens -= granted
        return granted


def commands_granted(data: bytes, budget: TokenBucket, now: float) -> int:
    """How many bytes of ``data`` may be read before its telnet commands overrun ``budget``.

    Each IAC byte counts as a command (an escaped 255 as two, which nobody types often).
    """
    commands = data.count(0xFF)
    if not commands:
        return len(data)
    granted = budget.take(commands, now)
    if granted == commands:
        return len(data)
    cut = -1
    for _ in range(granted + 1):  # granted <= COMMAND_BURST: a bounded search
        cut = data.find(0xFF, cut + 1)
    return cut


class FaultLog:
    """What went wrong on one connection, logged a line per kind of fault, then counted.

    Also stands in for telnetlib3's per-connection logger (``writer.log``): its warnings
    and errors become faults, its debug and info lines are dropped.
    """

    def __init__(self, address: str) -> None:
        self.address = address
        self.counts: Counter[str] = Counter()

    def note(self, kind: str, detail: str = "") -> None:
        """Count a fault; the first of its kind is logged, with ``detail`` if any."""
        self.counts[kind] += 1
        if self.counts[kind] == 1:
            log.info("%s: %s%s", self.address, kind, f" ({detail})" if detail else "")

    def close(self) -> None:
        """Log how many faults went unlogged, once, when the connection ends."""
        unlogged = sum(self.counts.values()) - len(self.counts)
        if unlogged:
            kinds = ", ".join(f"{kind} x{count}" for kind, count in self.counts.most_common(5))
            log.info("%s: %d telnet faults in all: %s", self.address, self.total, kinds)
        self.counts.clear()

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    # -- as telnetlib3's logger ----------------------------------------------------------

    def isEnabledFor(self, level: int) -> bool:
        return level >= logging.WARNING

    def log(self, level: int, msg: str, *args: object, **kwargs: object) -> None:
        if level >= logging.WARNING:
            self.note(f"telnet: {msg}".split("%", 1)[0].rstrip(" :(,"), _format(msg, args))

    def debug(self, msg: str, *args: object, **kwargs: object) -> None:
        pass

    info = debug

    def warning(self, msg: str, *args: object, **kwargs: object) -> None:
        self.log(logging.WARNING, msg, *args)

    error = exception = critical = warning


def _format(msg: str, args: tuple[object, ...]) -> str:
    try:
        text = msg % args if args else msg
    except (TypeError, ValueError):
        text = msg
    return text[:120]


def _shape_fault(buf: deque[bytes], terminal_types: int) -> str | None:
    """What is wrong with a sub-negotiation's shape, or None if telnetlib3 may read it."""
    option = buf[0][0]
    if option not in ANSWERED:
        return "a sub-negotiation the door never asked for"
    if option == NAWS and len(buf) != 5:
        return "a window size that is not four bytes"
    if option == TTYPE:
        if len(buf) < 2 or buf[1][0] not in (_IS, _SEND):
            return "a malformed terminal type"
        if buf[1][0] == _IS:
            name = b"".join(list(buf)[2:])
            if len(name) > TERMINAL_TYPE_LENGTH or not all(0x20 <= byte < 0x7F for byte in name):
                return "a terminal type that is not a short ASCII name"
            if terminal_types >= TERMINAL_TYPES:
                return "too many terminal types"
    return None


class DoorWriter(telnetlib3.TelnetWriter):
    """telnetlib3's writer, reading only sub-negotiations of a shape the door checked, and
    turning any fault in reading telnet commands into a counted fault instead of a traceback.

    ``faults`` is set by the protocol right after the writer is made.
    """

    faults: FaultLog
    _terminal_types = 0
    #: A sub-negotiation ran past :data:`SUBNEGOTIATION_LIMIT`: the caller is to be hung up.
    cut_short = False
    # The door reads control keys (^C, DEL, ^U) as keys. telnetlib3's simulated line-mode
    # characters would only log them, after it rebuilt their table and read the chunk a byte
    # at a time in Python, for every chunk a caller sends; without, it looks for IAC in C.
    slc_simulated = False

    def handle_subnegotiation(self, buf: deque[bytes]) -> None:
        if not buf or not buf[0]:
            self.faults.note("an empty sub-negotiation")
            return
        fault = _shape_fault(buf, self._terminal_types)
        if fault is not None:
            self.faults.note(fault, f"option {buf[0][0]}, {len(buf)} bytes")
            return
        if buf[0][0] == TTYPE and buf[1][0] == _IS:
            self._terminal_types += 1
        try:
            super().handle_subnegotiation(buf)
        except Exception as error:
            self.faults.note("a sub-negotiation telnetlib3 could not read", _describe(error))

    def feed_byte(self, byte: bytes) -> bool:
        kept = subnegotiation_kept(self)
        if kept is not None and kept >= SUBNEGOTIATION_LIMIT:
            # Cut short: what was kept is let go, the rest is dropped (until its IAC SE, or
            # the hang-up the protocol gives a client that sends such a thing).
            option = drop_subnegotiation(self)
            self.cut_short = True
            self.faults.note("a sub-negotiation too long to keep", f"option {option}")
        try:
            return super().feed_byte(byte)
        except Exception as error:
            self.faults.note("a telnet command that could not be read", _describe(error))
            return False


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:120]


def quiet(writer: Any, faults: FaultLog) -> None:
    """Route a telnetlib3 writer's own warnings into ``faults``."""
    writer.faults = faults
    writer.log = faults
    for option in (writer.pending_option, writer.local_option, writer.remote_option):
        option.log = faults
