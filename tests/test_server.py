"""The telnet server over real TCP on 127.0.0.1: negotiation, detection, limits, endings.

Callers are raw asyncio sockets that answer telnet negotiation the way a BBS terminal does
(or not at all), and read what they are sent through a pyte screen.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import signal
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import pyte
import pytest

from door.net.listening import SHUTDOWN_MESSAGE
from door.net.telnet import DoorServer, VisitHandler, run_server, start_server
from door.net.terminal import Terminal

WAIT = 5.0  # seconds any single wait may take before the test fails

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
BINARY, ECHO, SGA, TTYPE, NAWS = 0, 1, 3, 24, 31
TTYPE_IS, TTYPE_SEND = 0, 1


@dataclass(frozen=True)
class Config:
    """The fields of door.config.ServerConfig, with test values."""

    host: str = "127.0.0.1"
    port: int = 0
    max_nodes: int = 4
    max_per_address: int = 4
    reserved_nodes: int = 0
    connections_per_minute: int = 100_000
    login_timeout: int = 0
    idle_timeout: float = 60.0
    idle_warning: float = 10.0
    time_limit: int = 0
    database: Path = Path("unused.db")


class Caller:
    """A caller on a real socket: answers negotiation (or not) and keeps a screen.

    ``term`` answers TTYPE, ``size`` NAWS (width, height), ``position_report`` the ANSI probe;
    None refuses or ignores. ``negotiate=False`` ignores telnet negotiation altogether.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        term: str | None = "xterm",
        size: tuple[int, int] | None = (80, 24),
        position_report: bytes | None = b"\x1b[1;1R",
        negotiate: bool = True,
        charset: str = "utf-8",
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._term = term
        self._size = size
        self._position_report = position_report
        self._negotiate = negotiate
        self._decoder = codecs.getincrementaldecoder(charset)(errors="replace")
        self.screen = pyte.Screen(80, 24)
        self._stream = pyte.Stream(self.screen)
        self.text = ""  # everything received, decoded, without telnet commands
        self.closed = False
        self._probes_answered = 0
        self._state = "data"
        self._command = 0
        self._subnegotiation = bytearray()
        self._changed = asyncio.Event()
        self._pump = asyncio.create_task(self._receive_all())

    @classmethod
    async def connect(cls, port: int, **options: object) -> Caller:
        async with asyncio.timeout(WAIT):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer, **options)  # type: ignore[arg-type]

    def send(self, data: bytes) -> None:
        self._writer.write(data)

    async def wait_for(self, text: str) -> None:
        """Wait until ``text`` has been received."""
        async with asyncio.timeout(WAIT):
            while text not in self.text:
                assert not self.closed, f"hung up before {text!r}; got {self.text!r}"
                self._changed.clear()
                await self._changed.wait()

    async def wait_closed(self) -> None:
        async with asyncio.timeout(WAIT):
            await self._pump

    def line(self, row: int) -> str:
        return self.screen.display[row].rstrip()

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display if line.strip()]

    async def hang_up(self) -> None:
        self._writer.close()
        with contextlib.suppress(Exception):
            await self.wait_closed()

    async def _receive_all(self) -> None:
        try:
            while data := await self._reader.read(4096):
                self._receive(data)
        except ConnectionError:
            pass
        finally:
            self.closed = True
            self._changed.set()

    def _receive(self, data: bytes) -> None:
        text = self._decoder.decode(self._strip_telnet(data))
        self.text += text
        self._stream.feed(text)
        probes = self.text.count("\x1b[6n")
        if self._position_report is not None and probes > self._probes_answered:
            self._probes_answered = probes
            self.send(self._position_report)
        self._changed.set()

    def _strip_telnet(self, data: bytes) -> bytes:
        """The data bytes of ``data``; telnet commands are answered on the way."""
        kept = bytearray()
        for byte in data:
            if self._state == "data":
                if byte == IAC:
                    self._state = "iac"
                else:
                    kept.append(byte)
            elif self._state == "iac":
                if byte == IAC:
                    kept.append(IAC)
                    self._state = "data"
                elif byte in (DO, DONT, WILL, WONT):
                    self._command, self._state = byte, "option"
                elif byte == SB:
                    self._subnegotiation.clear()
                    self._state = "sb"
                else:
                    self._state = "data"
            elif self._state == "option":
                self._answer(self._command, byte)
                self._state = "data"
            elif self._state == "sb":
                if byte == IAC:
                    self._state = "sb-iac"
                else:
                    self._subnegotiation.append(byte)
            elif self._state == "sb-iac":
                if byte == SE:
                    self._answer_subnegotiation(bytes(self._subnegotiation))
                    self._state = "data"
                else:
                    self._subnegotiation.append(byte)
                    self._state = "sb"
        return bytes(kept)

    def _answer(self, command: int, option: int) -> None:
        if not self._negotiate:
            return
        if command == DO:
            if option == TTYPE and self._term is not None:
                self.send(bytes([IAC, WILL, TTYPE]))
            elif option == NAWS and self._size is not None:
                width, height = self._size
                naws = bytes([width >> 8, width & 255, height >> 8, height & 255])
                self.send(bytes([IAC, WILL, NAWS, IAC, SB, NAWS]) + naws + bytes([IAC, SE]))
            elif option in (BINARY, SGA):
                self.send(bytes([IAC, WILL, option]))
            else:
                self.send(bytes([IAC, WONT, option]))
        elif command == WILL:
            agree = option in (ECHO, SGA, BINARY)
            self.send(bytes([IAC, DO if agree else DONT, option]))

    def _answer_subnegotiation(self, payload: bytes) -> None:
        if self._negotiate and payload == bytes([TTYPE, TTYPE_SEND]) and self._term:
            self.send(bytes([IAC, SB, TTYPE, TTYPE_IS]) + self._term.encode() + bytes([IAC, SE]))


async def echo_visit(terminal: Terminal, node: int) -> None:
    """Say what was detected, then echo lines in brackets until ``bye``."""
    info = terminal.info
    terminal.write(
        f"node={node} term={info.term_type} ansi={info.ansi} charset={info.charset} "
        f"size={info.width}x{info.height}\r\n"
    )
    while True:
        terminal.write("> ")
        line = await terminal.read_line(max_length=10)
        if line == "boom":
            terminal.logged_in = True
            raise RuntimeError("boom on purpose")
        if line == "bye":
            terminal.write("Bye.\r\n")
            return
        terminal.write(f"[{line}]\r\n")


async def logged_in_visit(terminal: Terminal, node: int) -> None:
    """:func:`echo_visit` for a caller who has logged in (and so may have a game saved)."""
    terminal.logged_in = True
    await echo_visit(terminal, node)


@contextlib.asynccontextmanager
async def serving(visit: VisitHandler = echo_visit, **changes: object) -> AsyncIterator[DoorServer]:
    """A door on a free port; short negotiation and detection waits for silent clients."""
    server = await start_server(
        replace(Config(), **changes), visit, detect_timeout=0.3, negotiate_timeout=0.3
    )
    try:
        yield server
    finally:
        await server.close("Test over.")


@contextlib.asynccontextmanager
async def calling(port: int, **options: object) -> AsyncIterator[Caller]:
    """A caller who has got past detection to the first prompt."""
    caller = await Caller.connect(port, **options)
    try:
        await caller.wait_for("> ")
        yield caller
    finally:
        await caller.hang_up()


# --- the line editor, over telnet ----------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "line"),
    [
        (b"abcd\x08\x08x\r\n", "abx"),  # backspace
        (b"abcd\x7f\x7fy\r\x00", "aby"),  # DEL, and CR NUL
        (b"hello\x15bye now\n", "bye now"),  # Ctrl-U, and a lone LF
        (b"a\x1b[Ab\x1bOCc\x1b[15~d\x1b[1;5De\r", "abcde"),  # arrows, F5, Ctrl-arrow
        (b"0123456789abcdef\r\n", "0123456789"),  # over-long: truncated at 10
        (b"n\x00u\x07l\x01l\xc3\r\n", "null"),  # NUL, bell, Ctrl-A, a broken UTF-8 byte
        (b"caf\xc3\xa9\r", "café"),  # UTF-8 for an xterm
    ],
)
async def test_line_editing(typed: bytes, line: str) -> None:
    async with serving() as server, calling(server.port) as caller:
        caller.send(typed)
        await caller.wait_for(f"[{line}]")
        assert caller.line(1) == f"> {line}"  # the echo shows what was kept
        assert caller.line(2) == f"[{line}]"


async def test_over_long_line_rings_the_bell_once() -> None:
    async with serving() as server, calling(server.port) as caller:
        caller.send(b"x" * 3000 + b"\r")  # a runaway paste, short of noise and flood
        await caller.wait_for("[xxxxxxxxxx]")
        assert caller.text.count("\a") == 1
        assert len(caller.text) < 400  # the echo did not follow the flood


@pytest.mark.parametrize("ending", [b"\r\n", b"\r\x00", b"\r"])
async def test_line_end_split_across_packets_makes_one_line(ending: bytes) -> None:
    async with serving() as server, calling(server.port) as caller:
        caller.send(b"one\r")
        await caller.wait_for("[one]")
        caller.send(ending[1:] + b"two" + ending[:1])
        await caller.wait_for("[two]")
        caller.send(ending[1:] + b"bye\r\n")
        await caller.wait_for("Bye.")
        assert "[]" not in caller.text
        # (The hang-up leaves the cursor below the last row, which scrolls the first away.)
        assert caller.lines()[-6:] == ["> one", "[one]", "> two", "[two]", "> bye", "Bye."]


async def test_echo_is_left_to_a_client_that_refuses_it() -> None:
    async with serving() as server:
        caller = await Caller.connect(server.port, negotiate=False, position_report=None)
        try:
            await caller.wait_for("> ")
            caller.send(b"quiet\r\n")
            await caller.wait_for("[quiet]")
            assert "> quiet" not in caller.text
        finally:
            await caller.hang_up()


# --- detection -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "seen"),
    [
        (
            {"term": "syncterm", "size": (80, 25)},
            "term=syncterm ansi=True charset=cp437 size=80x25",
        ),
        (
            {"term": "xterm-256color", "size": (132, 50)},
            "term=xterm-256color ansi=True charset=utf-8 size=132x50",
        ),
        ({"term": "ANSI", "size": (1, 1)}, "term=ANSI ansi=True charset=cp437 size=80x24"),
        (
            {"term": None, "size": None, "position_report": b"\x1b[0;0R"},
            "term=unknown ansi=True charset=cp437 size=80x24",
        ),
        (
            {"term": "vt100", "size": (0, 0), "position_report": None},
            "term=vt100 ansi=False charset=ascii size=80x24",
        ),
        (
            {"negotiate": False, "position_report": None},
            "term=unknown ansi=False charset=ascii size=80x24",
        ),
    ],
)
async def test_detection(options: dict[str, object], seen: str) -> None:
    async with serving() as server, calling(server.port, **options) as caller:
        await caller.wait_for(seen)


async def test_keys_typed_during_detection_are_not_commands() -> None:
    async with serving() as server:
        caller = await Caller.connect(server.port, position_report=b"zz\r\n\x1b[3;7R\r")
        try:
            await caller.wait_for("> ")
            caller.send(b"first\r\n")
            await caller.wait_for("[first]")
            assert "[zz]" not in caller.text and "[]" not in caller.text
        finally:
            await caller.hang_up()


async def test_connect_and_hang_up_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="door")
    async with serving() as server:
        async with calling(server.port, term="syncterm") as caller:
            caller.send(b"bye\r")
            await caller.wait_closed()
        async with asyncio.timeout(WAIT):
            while "hang-up" not in caplog.text:
                await asyncio.sleep(0.01)
    assert "node 1: connect from 127.0.0.1, syncterm 80x24, ANSI, cp437" in caplog.text
    assert "node 1: hang-up (goodbye)" in caplog.text


# --- limits --------------------------------------------------------------------------------


async def test_all_nodes_busy() -> None:
    async with (
        serving(max_nodes=2) as server,
        calling(server.port) as first,
        calling(server.port) as second,
    ):
        assert "node=1" in first.text and "node=2" in second.text
        assert server.nodes.busy == {1: "127.0.0.1", 2: "127.0.0.1"}
        third = await Caller.connect(server.port)
        await third.wait_for("All 2 nodes are busy. Please call again later.")
        await third.wait_closed()
        assert "> " not in third.text
        first.send(b"bye\r\n")
        await first.wait_closed()
        async with calling(server.port) as fourth:
            assert "node=1" in fourth.text  # the freed node is used again


async def test_too_many_from_one_address() -> None:
    async with serving(max_per_address=1) as server, calling(server.port):
        second = await Caller.connect(server.port)
        await second.wait_for("Too many connections from your address.")
        await second.wait_closed()


# --- how visits end ------------------------------------------------------------------------


@pytest.mark.slow
async def test_idle_caller_is_warned_then_disconnected() -> None:
    async with serving(idle_timeout=2, idle_warning=1) as server:
        caller = await Caller.connect(server.port)
        await caller.wait_for("> ")
        caller.send(b"ab")
        await caller.wait_for("Are you still there? You will be disconnected in 1 second.")
        await caller.wait_for("No input for 2 seconds. Goodbye.")
        await caller.wait_closed()
        # The prompt and what was typed came back under the warning.
        assert "disconnected in 1 second.\r\n> ab" in caller.text
        assert caller.text.count("Are you still there?") == 1


@pytest.mark.slow
async def test_time_up() -> None:
    async def short_visit(terminal: Terminal, node: int) -> None:
        terminal.logged_in = True
        terminal.clocks.deadline = time.monotonic() + 1.0
        while True:
            terminal.write("> ")
            await terminal.read_line()

    async with serving(short_visit) as server:
        caller = await Caller.connect(server.port)
        await caller.wait_for("You have 1 second left.")
        await caller.wait_for("Your time is up. Your game is saved. Goodbye.")
        await caller.wait_closed()


@pytest.mark.slow
async def test_time_up_before_logging_in_mentions_no_game() -> None:
    async def short_visit(terminal: Terminal, node: int) -> None:
        terminal.clocks.deadline = time.monotonic() + 1.0
        while True:
            terminal.write("> ")
            await terminal.read_line()

    async with serving(short_visit) as server:
        caller = await Caller.connect(server.port)
        await caller.wait_for("Your time is up. Goodbye.")
        await caller.wait_closed()
        assert "left." not in caller.text  # no time warnings before a log-in
        assert "saved" not in caller.text


async def test_time_limit_from_the_configuration() -> None:
    async def tell_time(terminal: Terminal, node: int) -> None:
        terminal.write(f"left={terminal.clocks.seconds_left():.0f}\r\n> ")
        await terminal.read_line()

    async with serving(tell_time, time_limit=7) as server, calling(server.port) as caller:
        await caller.wait_for("left=420")


@pytest.mark.expected_log_errors(r"node 1 \(Tester\): the visit failed")
async def test_a_failing_visit_is_logged_and_others_go_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="door")

    async def named_visit(terminal: Terminal, node: int) -> None:
        call = server.nodes.call(node)
        assert call is not None
        call.presence.alias = "Tester"  # as the visit names its caller, for the log
        await echo_visit(terminal, node)

    async with (
        serving(named_visit) as server,
        calling(server.port) as failing,
        calling(server.port) as other,
    ):
        failing.send(b"boom\r\n")
        await failing.wait_for("Sorry, something went wrong. Your game is saved.")
        await failing.wait_closed()
        other.send(b"still\r\n")
        await other.wait_for("[still]")
    errors = [record for record in caplog.records if record.levelno == logging.ERROR]
    assert len(errors) == 1
    assert errors[0].name == "door"
    assert errors[0].getMessage() == "node 1 (Tester): the visit failed"
    assert errors[0].exc_info is not None and errors[0].exc_info[0] is RuntimeError
    assert "node 1 (Tester): hang-up (error)" in caplog.text


async def test_close_tells_callers_and_lets_visits_save() -> None:
    saved: list[int] = []

    async def saving_visit(terminal: Terminal, node: int) -> None:
        try:
            await logged_in_visit(terminal, node)
        finally:
            saved.append(node)

    server = await start_server(Config(), saving_visit, detect_timeout=0.3)
    caller = await Caller.connect(server.port)
    await caller.wait_for("> ")
    await asyncio.wait_for(server.close(SHUTDOWN_MESSAGE), WAIT)
    await caller.wait_for(SHUTDOWN_MESSAGE)
    await caller.wait_closed()
    assert saved == [1]
    with pytest.raises(OSError):
        await Caller.connect(server.port)
    await asyncio.wait_for(server.serve_forever(), WAIT)  # returns: the server is closed


async def test_run_server_shuts_down_on_sigterm() -> None:
    started: asyncio.Future[DoorServer] = asyncio.get_running_loop().create_future()
    running = asyncio.create_task(
        run_server(Config(), logged_in_visit, on_start=started.set_result)
    )
    try:
        server = await asyncio.wait_for(started, WAIT)
        async with calling(server.port) as caller:
            os.kill(os.getpid(), signal.SIGTERM)
            await caller.wait_for(SHUTDOWN_MESSAGE)
            await caller.wait_closed()
        await asyncio.wait_for(running, WAIT)
    finally:
        running.cancel()
