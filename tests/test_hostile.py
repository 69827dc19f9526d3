"""Hostile input: random and crafted byte streams against the door over real TCP.

Each storm must leave the door serving: nothing logged at ERROR (an exception escaping a
visit, a protocol callback or a task), a well-behaved caller's game going on before and after
(it plays a move and sees the board change), memory back near where it was, and the limits
enforced with their messages. What one caller types never reaches another's screen as escape
sequences or control characters.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import re
import struct
import tracemalloc
import zlib
from collections.abc import AsyncIterator, Iterator

import pytest
import telnetlib3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from door.net.nodes import TOO_MANY_MESSAGE
from door.net.telnet import INPUT_BURST, INPUT_RATE
from door.net.telnet_guard import COMMAND_BURST, COMMAND_RATE
from door.store.accounts import check_alias
from tests.support.door_server import RunningDoor
from tests.support.storms import (
    AYT,
    DO,
    DONT,
    ECHO,
    IAC,
    MCCP2,
    MCCP3,
    NAWS,
    NOP,
    PATIENT,
    SB,
    SE,
    TTYPE,
    WAIT,
    WILL,
    Player,
    Raw,
    hostile_door,
    nodes_settle,
    player,
    playing,
    sign_up,
    storm_door,
)
from tests.support.telnet_caller import Caller

IDLE = 3  # seconds: the idle tests' door hangs up on callers who type nothing for this long
MEMORY_SLACK = 1 << 20  # bytes traced memory may stay above its start after a storm

# Escape sequences the door itself sends (CSI with numbers, cursor save and restore), and
# the bytes a terminal acts on that the door never sends inside text.
DOOR_SEQUENCE = re.compile(rb"\x1b(?:\[[0-9;?]*[A-Za-z]|[78])")
FOREIGN_CONTROL = re.compile(rb"[\x00\x07\x0b\x0c\x0e\x0f\x18\x1a\x7f]")


# -- fixtures and helpers -------------------------------------------------------------------


@pytest.fixture
async def door(tmp_path, caplog) -> AsyncIterator[RunningDoor]:
    """A door for storms, with room for many connections from 127.0.0.1."""
    async with storm_door(tmp_path, caplog) as running:
        yield running


@pytest.fixture
async def idle_door(tmp_path, caplog) -> AsyncIterator[RunningDoor]:
    """A door that hangs up on idle callers after :data:`IDLE` seconds."""
    async with hostile_door(
        tmp_path, caplog, max_nodes=64, max_per_address=64, idle_timeout=IDLE, idle_warning=1
    ) as running:
        yield running


def naws(width: int, height: int) -> bytes:
    """A window-size report, with its 255 bytes doubled as telnet requires."""
    body = struct.pack(">HH", width, height).replace(b"\xff", b"\xff\xff")
    return bytes([IAC, WILL, NAWS, IAC, SB, NAWS]) + body + bytes([IAC, SE])


@contextlib.contextmanager
def traced_memory() -> Iterator[list[int]]:
    """Trace Python's allocations; the list gets the growth from start to end, in bytes."""
    gc.collect()
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    growth: list[int] = []
    try:
        yield growth
        gc.collect()
        growth.append(tracemalloc.get_traced_memory()[0] - start)
    finally:
        tracemalloc.stop()


async def next_caller(door: RunningDoor) -> None:
    """A caller comes and goes: telnetlib3 lets go of connections that ended when the next
    one arrives."""
    raw = await Raw.connect(door.port)
    raw.close()


# -- random bytes -----------------------------------------------------------------------------

HYPOTHESIS = settings(
    max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)


@pytest.fixture
async def alice(door: RunningDoor) -> AsyncIterator[Player]:
    async with playing(door) as alice:
        yield alice


@HYPOTHESIS
@given(data=st.binary(min_size=1, max_size=4000))
async def test_random_bytes_from_connecting(door: RunningDoor, alice: Player, data: bytes) -> None:
    raw = await Raw.connect(door.port)
    await raw.send(data)
    raw.reset()
    await alice.play()


@pytest.mark.slow
@HYPOTHESIS
@given(data=st.binary(min_size=1, max_size=4000), charset=st.sampled_from(["cp437", "utf-8"]))
async def test_random_bytes_at_the_prompt(
    door: RunningDoor, alice: Player, data: bytes, charset: str
) -> None:
    term = "ansi" if charset == "cp437" else "xterm"
    caller = await Caller.connect(door.port, term=term, charset=charset)
    await caller.wait_for("Your alias", WAIT)
    caller.writer.write(data)
    await asyncio.wait_for(caller.writer.drain(), WAIT)
    await caller.hang_up()
    await alice.play()


# Keys and pieces of keys, none of them a move: NUL, BEL, BS, DEL, CR, LF, C1 CSI, Ctrl-U,
# a UTF-8 lead byte cut short (by "(", which is no command: "A" would send cards up), an
# escaped 255, escape sequences whole and cut short.
AT_THE_BOARD = [bytes([byte]) for byte in b"\x00\x07\x08\x7f\r\n\x9b\x15"] + [
    b"\xc3(",
    b"\r\x00",
    b"\xff\xff",
    b"9 ",
    b"\x1b",
    b"\x1b[",
    b"\x1b[2J",
    b"\x1b]0;x\x07",
]


@HYPOTHESIS
@given(typed=st.lists(st.sampled_from(AT_THE_BOARD), max_size=40))
async def test_control_keys_and_sequences_at_the_board(
    door: RunningDoor, alice: Player, typed: list[bytes]
) -> None:
    # Whatever the caller types at the board, its game goes on: the next move is shown.
    alice.caller.writer.write(b"".join(typed) + b"\x15\r\n")  # Ctrl-U: a clean line after
    await alice.play()


# -- telnet commands ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "flood",
    [
        bytes([IAC, NOP]) * 300_000,
        bytes([IAC, AYT]) * 300_000,
        bytes([IAC, DO, ECHO, IAC, DONT, ECHO]) * 100_000,
        bytes([IAC, IAC]) * 300_000,
        bytes([IAC, SB, TTYPE]) + b"x" * 600_000,  # a subnegotiation that never ends
        bytes([IAC, SB, NAWS]) + b"\x00" * 600_000 + bytes([IAC, SE]),  # a huge one
    ],
    ids=["nop", "are-you-there", "do-dont-echo", "escaped-255s", "endless-sb", "huge-sb"],
)
@pytest.mark.slow
async def test_telnet_command_flood(
    door: RunningDoor, alice: Player, caplog: pytest.LogCaptureFixture, flood: bytes
) -> None:
    commands = flood.count(IAC) > len(flood) // 100
    with traced_memory() as growth:
        loop = asyncio.get_running_loop()
        started = loop.time()
        raw = await Raw.connect(door.port)
        raw.writer.write(flood)  # not drained: as fast as the door will take it
        await alice.play()
        seen = await raw.read_to_end()  # the door hangs up on the flood
        seconds = loop.time() - started
        raw.reset()
        await nodes_settle(door, 1)
        await next_caller(door)
    flood_of = "telnet commands" if commands else "input"
    if flood.startswith(bytes([IAC, SB])):  # cut short at its first few hundred bytes
        assert "hung up on 127.0.0.1: a sub-negotiation that never ends" in caplog.text
    else:
        assert f"hung up on 127.0.0.1: a flood of {flood_of}" in caplog.text
    # Each DO ECHO after a DONT ECHO earns a WILL ECHO: the answers count what was read.
    read_at_most = INPUT_BURST + INPUT_RATE * seconds
    assert 6 * seen.count(bytes([IAC, WILL, ECHO])) <= read_at_most + 6
    commands_at_most = COMMAND_BURST + COMMAND_RATE * seconds
    assert 2 * seen.count(bytes([IAC, WILL, ECHO])) <= commands_at_most + 2
    assert growth[0] < MEMORY_SLACK
    await alice.play()


# Sub-negotiations of the wrong shape: each made telnetlib3 log a traceback of a dozen lines.
MALFORMED = {
    "naws-one-byte": bytes([IAC, SB, NAWS, 1, IAC, SE]),
    "naws-six-bytes": bytes([IAC, SB, NAWS, 0, 80, 0, 24, 0, 1, IAC, SE]),
    "ttype-alone": bytes([IAC, SB, TTYPE, IAC, SE]),
    "ttype-not-ascii": bytes([IAC, SB, TTYPE, 0]) + b"\x80\xfe\x01" + bytes([IAC, SE]),
    "environ-garbage": bytes([IAC, SB, 39, 0, 9, 9, 9, IAC, SE]),
    "charset-garbage": bytes([IAC, SB, 42, 2, 0xFE, IAC, SE]),
    "linemode-short": bytes([IAC, SB, 34, 3, IAC, SE]),
    "never-asked": bytes([IAC, SB, 201]) + b"Core.Hello {" + bytes([IAC, SE]),
    "empty": bytes([IAC, SB, IAC, SE]),
}


@pytest.mark.slow
@pytest.mark.parametrize("command", list(MALFORMED.values()), ids=list(MALFORMED))
async def test_malformed_subnegotiations_are_not_read(
    door: RunningDoor, alice: Player, caplog: pytest.LogCaptureFixture, command: bytes
) -> None:
    start = len(caplog.records)
    raw = await Raw.connect(door.port)
    raw.writer.write(command * (120_000 // len(command)))  # 120 KB, as fast as it goes
    await alice.play()
    welcomed = await Raw.connect(door.port)  # a new caller is welcomed meanwhile
    await welcomed.read_until(b"Your alias (or NEW):")
    welcomed.close()
    await raw.read_to_end()  # the door hangs up on the flood
    raw.reset()
    await nodes_settle(door, 1)
    lines = [record.getMessage() for record in caplog.records[start:]]
    assert not [line for line in lines if "Traceback" in line or "File " in line]
    about_it = [line for line in lines if line.startswith("127.0.0.1") or "flood" in line]
    assert len(about_it) <= 4, about_it  # a line per kind of fault, a count, the hang-up
    faults = [line for line in about_it if line.startswith("127.0.0.1: ")]
    if faults:  # some shapes telnetlib3 reads harmlessly: no fault at all
        assert "telnet faults in all" in faults[-1]
    await alice.play()


@pytest.mark.slow
async def test_one_malformed_window_size_and_the_call_goes_on(door: RunningDoor) -> None:
    raw = await Raw.connect(door.port)
    await raw.send(bytes([IAC, SB, NAWS, 1, IAC, SE]))
    await raw.read_until(b"Your alias (or NEW):")
    await raw.send(b"NEW\r\n")
    await raw.read_until(b"Alias:")
    raw.close()


@pytest.mark.slow
@pytest.mark.parametrize("option", [MCCP3, MCCP2])
async def test_compression_the_door_never_offered_is_not_inflated(
    door: RunningDoor, alice: Player, option: int
) -> None:
    # A zip bomb: a few kilobytes that would inflate to megabytes of telnet commands, each
    # DO ECHO after a DONT ECHO earning an answer if the door inflated them.
    bomb = zlib.compress(bytes([IAC, DONT, ECHO, IAC, DO, ECHO]) * 200_000, 9)
    raw = await Raw.connect(door.port)
    await raw.send(bytes([IAC, SB, option, IAC, SE]) + bomb)
    seen = await raw.read_until(b"Your alias (or NEW):")
    await raw.send(b"NEW\r\n")  # typed after the bomb: the door read all of it by then
    seen += await raw.read_until(b"Alias:")
    assert seen.count(bytes([IAC, WILL, ECHO])) <= 1  # the door's own offer, no more
    raw.reset()
    await alice.play()


class SizedCaller(Caller):
    """A caller whose window-size report is encoded as telnet says, whatever its size."""

    def _answer(self, verb: int, option: int) -> None:
        if verb == DO and option == NAWS and self.size is not None:
            self.writer.write(naws(*self.size))
        else:
            super()._answer(verb, option)


@pytest.mark.parametrize("size", [(0, 0), (65535, 65535), (1, 1)])
async def test_unbelievable_window_sizes_get_80x24(
    door: RunningDoor, caplog: pytest.LogCaptureFixture, size: tuple[int, int]
) -> None:
    caller = await SizedCaller.connect(door.port, size=size)
    await caller.wait_for("Your alias", WAIT)
    assert "xterm 80x24, ANSI, utf-8" in caplog.text
    caller.writer.write(naws(*size))  # and again, mid-visit
    await caller.type("NEW")
    await caller.wait_for("Alias:", WAIT)
    assert caller.display().splitlines()[0].startswith(" Sign up")  # laid out in 80x24
    await caller.hang_up()


# -- lines, charsets and control characters -------------------------------------------------


async def test_megabyte_line_without_an_end(
    door: RunningDoor, alice: Player, caplog: pytest.LogCaptureFixture
) -> None:
    with traced_memory() as growth:
        caller = await Caller.connect(door.port)
        await caller.wait_for("Your alias", WAIT)
        caller.writer.write(b"A" * (1 << 20))  # no Enter, not drained: as fast as it goes
        await alice.play()
        await caller.wait_closed(WAIT)  # the door hangs up on the flood
        caller.writer.transport.abort()  # what it had not sent yet is dropped
        await nodes_settle(door, 1)
        await next_caller(door)
    assert "a flood of input" in caplog.text
    assert growth[0] < MEMORY_SLACK
    await alice.play()


async def test_long_line_is_cut_to_its_field(door: RunningDoor) -> None:
    caller = await Caller.connect(door.port)
    await caller.wait_for("Your alias", WAIT)
    caller.writer.write(b"B" * 3000 + b"\r\n")  # a runaway paste, short of noise and flood
    await caller.wait_for(r"Nobody called B{20} is here", WAIT)
    assert caller.text.count("\a") <= 1  # one bell for a whole runaway paste
    await caller.hang_up()


@pytest.mark.parametrize(
    ("term", "charset", "typed", "alias"),
    [
        ("xterm", "utf-8", b"Zo\xc3\xab\xc3(\xe2\x82x\xed\xa0\x80\xf4\x90\x80\x80", "Zoë(x"),
        ("ansi", "cp437", b"Fran\x87ois\x00\x01\x1b[1mX\x08\x9b!", "François¢!"),
        # Control sequences lose their ESC (and controls): what is left is plain text.
        (
            "xterm",
            "utf-8",
            b"E\x00v\x07i\x0bl\x1b[2J\x1b]0;pwn\x07\x1bP+q\x1b\\\xc2\x9b!",
            "Evil]0;pwnP+q\\!",
        ),
    ],
    ids=["invalid-utf-8", "cp437-and-controls", "escape-sequences"],
)
async def test_typed_garbage_never_reaches_an_alias(
    door: RunningDoor, term: str, charset: str, typed: bytes, alias: str
) -> None:
    caller = await Caller.connect(door.port, term=term, charset=charset)
    await caller.wait_for("Your alias", WAIT)
    caller.writer.write(typed + b"\r\n")
    await caller.wait_for(rf"Nobody called {re.escape(alias)} is here", WAIT)
    await caller.hang_up()


# -- callers who say nothing ----------------------------------------------------------------------


@pytest.mark.slow
async def test_client_that_never_answers_negotiation(idle_door: RunningDoor) -> None:
    raw = await Raw.connect(idle_door.port)
    seen = await raw.read_to_end()  # it reads, and says nothing at all
    assert b"Your alias (or NEW):" in seen
    assert b"Are you still there?" in seen
    assert seen.endswith(b"No input for 3 seconds. Goodbye.\r\n")


@pytest.mark.slow
async def test_bytes_that_are_not_keys_do_not_hold_a_node(idle_door: RunningDoor) -> None:
    # A NUL or a telnet NOP twice a second, faster than the idle limit: still idle, hung up.
    raw = await Raw.connect(idle_door.port)
    await raw.read_until(b"Your alias (or NEW):")

    async def drip() -> None:
        for byte in [b"\x00", bytes([IAC, NOP])] * 10:
            await raw.send(byte)
            await asyncio.sleep(0.5)

    dripping = asyncio.create_task(drip())
    seen = await raw.read_to_end()
    dripping.cancel()
    assert seen.endswith(b"No input for 3 seconds. Goodbye.\r\n")


@pytest.mark.slow
async def test_one_key_slower_than_the_idle_limit(idle_door: RunningDoor) -> None:
    raw = await Raw.connect(idle_door.port)
    await raw.read_until(b"Your alias (or NEW):")
    await raw.send(b"a")  # a key: the idle time starts again from here ...
    seen = await raw.read_to_end()  # ... and runs out before the next one would come
    assert seen.endswith(b"No input for 3 seconds. Goodbye.\r\n")


# -- crowds -------------------------------------------------------------------------------------


@pytest.mark.slow
async def test_burst_of_connections(tmp_path, caplog) -> None:
    """2,000 connections opened and dropped at once, while the address's limit is full."""
    async with hostile_door(
        tmp_path, caplog, max_nodes=32, max_per_address=4, idle_timeout=PATIENT
    ) as door:
        alice = await player(door)
        await alice.play()
        holders = [await sign_up(door.port, f"Holder{n}") for n in range(3)]
        tasks_before = len(asyncio.all_tasks())

        async def connect_and_drop(number: int) -> None:
            raw = await Raw.connect(door.port)
            if number % 3 == 0:
                await raw.send(b"NEW\r\n")
            if number % 2:
                raw.reset()
            else:
                raw.close()

        for start in range(0, 2000, 200):
            await asyncio.gather(*(connect_and_drop(n) for n in range(start, start + 200)))
        refused = await Raw.connect(door.port)
        assert TOO_MANY_MESSAGE.encode() in await refused.read_to_end()
        for holder in holders:
            await holder.hang_up()
        await nodes_settle(door, 1)
        async with asyncio.timeout(WAIT):
            while len(asyncio.all_tasks()) > tasks_before:
                await asyncio.sleep(0.05)
        await alice.play()
        welcomed = await Raw.connect(door.port)
        await welcomed.read_until(b"Your alias (or NEW):")
        welcomed.close()
        await alice.caller.hang_up()


@pytest.mark.slow
async def test_finished_connections_are_forgotten(door: RunningDoor, alice: Player) -> None:
    for _ in range(40):  # callers who get as far as the welcome, and hang up
        caller = await Caller.connect(door.port)
        await caller.wait_for("Your alias", WAIT)
        await caller.hang_up()
    await nodes_settle(door, 1)
    await (await Raw.connect(door.port)).read_until(b"Your alias (or NEW):")  # the next caller
    gc.collect()
    alive = [thing for thing in gc.get_objects() if isinstance(thing, telnetlib3.TelnetServer)]
    assert len(alive) <= 3  # Alice, the next caller, and at most one not yet let go
    await alice.play()


# -- what other callers see --------------------------------------------------------------------


EVIL_TYPING = [
    ("ansi", "cp437", b"Ev\x1b[2Jil\x1b]0;x\x07\x9b31m\x0c"),
    ("xterm", "utf-8", "Bad←[2J◙♪\x0e".encode() + b"\xc2\x9b\x1bP"),
    ("xterm", "utf-8", "Bell\u0007\u202e\u200bRLO".encode()),
]


@pytest.mark.slow
@pytest.mark.parametrize(("viewer_term", "viewer_charset"), [("ansi", "cp437"), ("xterm", "utf-8")])
async def test_aliases_reach_the_standings_without_controls(
    door: RunningDoor, viewer_term: str, viewer_charset: str
) -> None:
    for term, charset, typed in EVIL_TYPING:
        caller = await Caller.connect(door.port, term=term, charset=charset)
        await caller.wait_for("Your alias", WAIT)
        caller.writer.write(typed + b"\r\n")
        await caller.wait_for(r"Sign up\?", WAIT)
        await caller.type("Y")
        await caller.wait_for("Password:|Alias:", WAIT)
        if "Alias:" in caller.display():  # signs no caller's screen shows: another alias
            await caller.type("Bad")
            await caller.wait_for("Password:", WAIT)
        for _ in range(2):
            await caller.type("secret-one1")
            await caller.wait_for("Password again|Your choice", WAIT)
        await caller.type("P")  # a game, so as to be on the standings
        await caller.wait_for("Level:", WAIT)
        await caller.key("\r")
        await caller.wait_for("Command", WAIT)
        await caller.type("Q")
        await caller.wait_for("Your choice", WAIT)
        await caller.hang_up()
    for summary in await door.store.user_summaries():
        assert check_alias(summary.user.alias) is None, repr(summary.user.alias)
    viewer = await sign_up(door.port, "Viewer", term=viewer_term, charset=viewer_charset)
    await viewer.key("S")
    await viewer.wait_for("Which board", WAIT)
    start = len(viewer.received)
    await viewer.key("A")
    await viewer.wait_for("Press any key", WAIT)
    page = bytes(viewer.received[start:])
    for found in re.finditer(rb"\x1b", page):
        assert DOOR_SEQUENCE.match(page, found.start()), page[found.start() : found.start() + 12]
    assert page.count(b"\x1b[2J") == 1  # the page's own clear, and no other
    assert not FOREIGN_CONTROL.search(page)
    if viewer_charset == "utf-8":
        assert not re.search(rb"\xc2[\x80-\x9f]", page)  # no C1 controls either
    shown = viewer.display()
    assert "Evil" in shown and "Bad" in shown and "BellRLO" in shown
    await viewer.hang_up()


@pytest.mark.slow
async def test_finished_connections_leave_no_garbage_to_collect(door: RunningDoor) -> None:
    # The door collects garbage seldom (serve freezes start-up objects and raises the
    # thresholds), so a connection's objects must be freed as it ends, not left in cycles.
    gc.collect()
    gc.disable()
    try:
        for n in range(30):
            raw = await Raw.connect(door.port)
            if n % 2:
                await raw.read_until(b"Your alias (or NEW):")
            raw.close()
        await nodes_settle(door, 0)
        await next_caller(door)
        await asyncio.sleep(0.5)
        alive = [thing for thing in gc.get_objects() if isinstance(thing, telnetlib3.TelnetServer)]
        writers = [t for t in gc.get_objects() if isinstance(t, telnetlib3.TelnetWriter)]
        assert len(alive) <= 2 and len(writers) <= 2, (len(alive), len(writers))
    finally:
        gc.enable()
