"""Bytes sent per game command, over real TCP, for ANSI and plain-ASCII callers.

A caller signs up, starts deal 1 at level 1 and plays a winning line found by the solver,
with a refused command every so often; every byte the door sends for each command (the echo
of the caller's typing included) is counted until the door has answered it. Beside it: what
a full redraw of the same board would cost, and an ANSI caller's in a 40x25 window (the
narrow board), whose deck turns are set beside the 80x24 board's. A second table splits
the figures by the kind of command: deck turns, plays to a foundation, column to column,
refusals, the rest. A third plays the winning line again by hot keys (no Enter) and by
the pointer, whose every arrow step is also counted on its own.

    python -m benchmarks.bytes [--commands 200] [--language de] [--json FILE]

With ``--language de`` the board speaks German (``[words] language``): its callers wait for
the door's texts by their German (:func:`tests.support.german.said`), and for a refusal by
the door's answer, whatever it says.

Targets: a deck turn at most 70 bytes (median) and every command at most 80 bytes (mean)
for ANSI callers; at most 120 bytes (mean) for plain callers, who get a line per play; at
most 40 bytes (mean) per pointer step.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import dataclasses
import json
import re
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ansi.charset import encode
from ansi.screen import ScreenBuffer
from ansi.text import sanitize
from door.engine import Game, IllegalMove
from door.engine.solver import solve
from door.views.board import REFUSAL, Look, draw_board
from door.words import Catalogs, speak
from tests.support.door_server import door_config, open_door
from tests.support.german import said
from tests.support.keyplay import Player, key_bytes
from tests.support.telnet_caller import Caller

ROOT = Path(__file__).resolve().parent.parent
TURN_TARGET, ANSI_TARGET, LINES_TARGET = 70, 80, 120
POINTER_TARGET = 40
DEAL, LEVEL = 1, 1
NARROW = (40, 25)  # a phone's window: the narrow board
REFUSE_EVERY = 15
# Commands a caller might mistype; the first that the position refuses is sent.
MISTAKES = ("D F", "S F", "1 F", "2 F", "3 F", "4 F", "D 1", "S 2", "1 2", "XX")
KINDS = ("turn", "to foundation", "column to column", "refusal", "other")
LANGUAGES = ("en", "de")
spoken = ["en"]  # the board's language, as --language sets it


def shown(pattern: str, *english: str) -> str:
    """``pattern``, a regex of the door's English, on an English board; else also the texts
    holding ``english`` as the board says them."""
    if spoken[0] == "en":
        return pattern
    # The English too: a text not yet translated is waited for as it shows.
    return "|".join([pattern, *(f"(?:{said(text)})" for text in english)])


@dataclass(frozen=True, slots=True)
class Step:
    """One command of the script: what is typed, its kind, and what the door then says
    (the refusal's text, or None for a play)."""

    command: str
    kind: str
    refusal: str | None = None


def kind_of(command: str) -> str:
    if command == "V":
        return "turn"
    if command == "F" or command.endswith(" F"):
        return "to foundation"
    source, _, target = command.partition(" ")
    if source.isdigit() and target.isdigit():
        return "column to column"
    return "other"


def script(game: Game, line: list[str]) -> list[Step]:
    """The winning ``line``, with a refused command after every ``REFUSE_EVERY`` plays."""
    steps = []
    for number, command in enumerate(line, start=1):
        steps.append(Step(command, kind_of(command)))
        game.play(command)
        if number % REFUSE_EVERY == 0 and game.status == "playing":
            for mistake in MISTAKES:
                try:
                    copy.deepcopy(game).play(mistake)
                except IllegalMove as refusal:
                    steps.append(Step(mistake, "refusal", str(refusal)))
                    break
    return steps


async def settle(caller: Caller, pattern: str | None, in_text: bool, before: int = 0) -> None:
    """Wait for ``pattern`` (None: for anything after ``before`` bytes), then until the door
    has stopped sending."""
    if pattern is None:
        await changed(caller, before)
        return
    await caller.wait_for(pattern, in_text=in_text)
    size = -1
    while size != len(caller.received):
        size = len(caller.received)
        await asyncio.sleep(0.03)


async def measure(
    door, steps: list[Step], ansi: bool, board: bool = True, size: tuple[int, int] = (80, 24)
) -> list[int]:
    """Bytes per step for an ANSI caller (in a window of ``size``), or a plain one who sees
    the ``board`` reprinted (chosen in the terminal settings) or, as plain callers do unless
    they choose, a line per play."""
    options = (
        {"term": "xterm", "charset": "utf-8", "size": size}
        if ansi
        else {"ansi": False, "term": "dumb", "charset": "ascii"}
    )
    caller = await Caller.connect(door.port, **options)
    alias = (
        ("ansi" if size == (80, 24) else f"ansi{size[0]}")
        if ansi
        else ("board" if board else "lines")
    )
    in_text = not ansi
    await sign_up_and_deal(caller, alias, "secret-one1", in_text, board=not ansi and board)
    sizes = []
    moves = 0
    for step in steps:
        before = len(caller.received)
        caller.forget_text()
        await caller.type(step.command)
        pattern: str | None
        if not ansi and not board:
            pattern = shown(r"\r\nCommand: $|Press Enter", "Command: ", "Press Enter")
        elif step.refusal is None:
            moves += 1
            pattern = shown(rf"Moves\s+{moves}\b|You won", "You won!")
            if spoken[0] != "en":
                pattern = rf"{said('Moves')}\s+{moves}\b|{pattern}"
        elif spoken[0] == "en":
            # Suits are symbols or letters, depending on the caller's charset.
            text = sanitize(step.refusal, 76)[:30]
            pattern = ".".join(re.escape(part) for part in re.split(r"[^ -~]", text))
        else:
            pattern = None  # the refusal in the board's words, whatever they are
        await settle(caller, pattern, in_text, before)
        sizes.append(len(caller.received) - before)
    await caller.hang_up()
    return sizes


async def sign_up_and_deal(
    caller: Caller, alias: str, password: str, in_text: bool, board: bool = False
) -> None:
    """Sign up, choose the whole board after each play if ``board`` (a plain caller), and
    deal ``DEAL`` at ``LEVEL``."""
    for prompt, answer in (
        (shown("Your alias", "Your alias"), alias),
        (shown("Sign up", "Sign up?"), "Y"),
        (shown("Password:", "Password:"), password),
        (shown("Password again", "Password again"), password),
    ):
        await settle(caller, prompt, in_text)
        await caller.type(answer)
    menu = shown("Your choice", "Your choice")
    await settle(caller, menu, in_text)
    if board:
        before = len(caller.received)
        await caller.key("T")
        lines = "Game shown as: a line per play" if spoken[0] == "en" else None
        await settle(caller, lines, in_text, before)
        before = len(caller.received)
        await caller.key("G")
        whole = "Game shown as: the whole board" if spoken[0] == "en" else None
        await settle(caller, whole, in_text, before)
        await caller.key("Q")
        await settle(caller, menu, in_text)
    await caller.key("#")
    await settle(caller, shown("Deal number", "Deal number"), in_text)
    await caller.type(str(DEAL))
    await settle(caller, shown("Level:", "Choose a level", "Level:"), in_text)
    await caller.key(str(LEVEL))
    await settle(caller, shown("Command", "Command (? for help)", "Command: "), in_text)


async def changed(caller: Caller, before: int) -> None:
    """Wait until the door has sent something since ``before`` bytes, then until it stops."""
    for _ in range(500):
        if len(caller.received) > before:
            break
        await asyncio.sleep(0.01)
    size = -1
    while size != len(caller.received):
        size = len(caller.received)
        await asyncio.sleep(0.03)


async def measure_keys(door, line: list[str], method: str) -> tuple[list[int], list[int]]:
    """Play ``line`` as an ANSI caller by hot keys or by the pointer: bytes per play, and
    per pointer step (each arrow key alone)."""
    caller = await Caller.connect(door.port, term="xterm", charset="utf-8")
    await sign_up_and_deal(caller, method, "secret-key1", in_text=False)
    game = Game.deal(door.config.level(LEVEL).variant, DEAL)
    player = Player(method, game)
    plays, steps = [], []
    for move, command in enumerate(line, start=1):
        start = len(caller.received)
        for key in player.keys_for(command):
            data = key_bytes(key)
            if data.startswith(b"\x1b"):  # an arrow: one pointer step
                before = len(caller.received)
                await caller.key(data.decode())
                await changed(caller, before)
                steps.append(len(caller.received) - before)
            else:
                await caller.key(data.decode())
        game.play(command)
        won = shown(rf"Moves\s+{move}\b|You won", "You won!")
        if spoken[0] != "en":
            won = rf"{said('Moves')}\s+{move}\b|{won}"
        await settle(caller, won, False)
        plays.append(len(caller.received) - start)
    await caller.hang_up()
    return plays, steps


def full_redraws(variant, steps: list[Step]) -> list[int]:
    game = Game.deal(variant, DEAL)
    sizes = []
    for step in steps:
        message = ""
        if step.refusal is None:
            game.play(step.command)
        else:
            message = sanitize(step.refusal, 76)
        screen = ScreenBuffer()
        draw_board(screen, game, "Level 1 - Draw one", Look(), message, REFUSAL)
        sizes.append(len(encode(screen.render_full(), "utf-8")))
    return sizes


def row(name: str, sizes: list[int]) -> dict:
    return {
        "caller": name,
        "commands": len(sizes),
        "mean": round(statistics.mean(sizes), 1),
        "median": statistics.median(sizes),
        "max": max(sizes),
        "total": sum(sizes),
    }


def by_kind(steps: list[Step], callers: dict[str, list[int]]) -> list[dict]:
    """Mean and median bytes of each kind of command, for each caller."""
    table = []
    for kind in KINDS:
        picked = [index for index, step in enumerate(steps) if step.kind == kind]
        if not picked:
            continue
        entry: dict = {"kind": kind, "commands": len(picked)}
        for name, sizes in callers.items():
            chosen = [sizes[index] for index in picked]
            entry[name] = {
                "mean": round(statistics.mean(chosen), 1),
                "median": statistics.median(chosen),
            }
        table.append(entry)
    return table


def print_tables(rows: list[dict], kinds: list[dict]) -> None:
    print(f"{'caller':<32} {'commands':>8} {'mean':>8} {'median':>8} {'max':>6} {'total':>8}")
    for item in rows:
        print(
            f"{item['caller']:<32} {item['commands']:>8} {item['mean']:>8} {item['median']:>8} "
            f"{item['max']:>6} {item['total']:>8}"
        )
    print()
    names = [item["caller"] for item in rows]
    print("bytes per command by kind, mean / median, callers in the order above")
    print(
        f"{'kind':<18} {'commands':>8} "
        + " ".join(f"{'caller ' + str(n):>15}" for n in range(1, len(names) + 1))
    )
    for entry in kinds:
        cells = " ".join(f"{entry[name]['mean']:>7} / {entry[name]['median']:<5}" for name in names)
        print(f"{entry['kind']:<18} {entry['commands']:>8} {cells}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=200, help="at most this many plays")
    parser.add_argument("--language", choices=LANGUAGES, default="en", help="the board's")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks/results/bytes.json")
    args = parser.parse_args()
    spoken[0] = args.language
    words = Catalogs.read(args.language)
    speak(words.words(args.language))  # the refusals and full redraws here, in its words too
    with tempfile.TemporaryDirectory() as folder:
        config = dataclasses.replace(door_config(Path(folder)), words=words)
        door = await open_door(config)
        variant = door.config.level(LEVEL).variant
        verdict = solve(Game.deal(variant, DEAL), max_seconds=30)
        if verdict.result != "won":
            raise SystemExit(f"deal {DEAL} did not solve: {verdict.result}")
        steps = script(Game.deal(variant, DEAL), list(verdict.line[: args.commands]))
        try:
            callers = {
                "ANSI, only what changed": await measure(door, steps, ansi=True),
                "plain ASCII, a line per play": await measure(door, steps, ansi=False, board=False),
                "plain ASCII, board reprinted": await measure(door, steps, ansi=False),
                "ANSI, full redraw (for scale)": full_redraws(variant, steps),
                "ANSI at 40x25, what changed": await measure(door, steps, True, size=NARROW),
            }
            line = [step.command for step in steps if step.refusal is None]
            hot, _ = await measure_keys(door, line, "hot")
            pointer_plays, pointer_steps = await measure_keys(door, line, "pointer")
        finally:
            await door.server.close("done", grace=1.0)
            await door.store.close()
    rows = [row(name, sizes) for name, sizes in callers.items()]
    kinds = by_kind(steps, callers)
    print_tables(rows, kinds)
    key_rows = [
        row("ANSI, plays by hot keys", hot),
        row("ANSI, plays by the pointer", pointer_plays),
        row("ANSI, pointer steps (per key)", pointer_steps),
    ]
    print()
    print(
        f"{'by key (no Enter)':<32} {'count':>8} {'mean':>8} {'median':>8} {'max':>6} {'total':>8}"
    )
    for item in key_rows:
        print(
            f"{item['caller']:<32} {item['commands']:>8} {item['mean']:>8} {item['median']:>8} "
            f"{item['max']:>6} {item['total']:>8}"
        )
    ansi = callers["ANSI, only what changed"]
    lines = callers["plain ASCII, a line per play"]
    turns = [size for size, step in zip(ansi, steps, strict=True) if step.kind == "turn"]
    narrow = callers["ANSI at 40x25, what changed"]
    narrow_turns = [size for size, step in zip(narrow, steps, strict=True) if step.kind == "turn"]
    print()
    print(
        f"deck turn, ANSI, median / mean: 80x24 {statistics.median(turns)} / "
        f"{statistics.mean(turns):.1f}, 40x25 (the narrow board) {statistics.median(narrow_turns)}"
        f" / {statistics.mean(narrow_turns):.1f}"
    )
    for name, figure, target, what in (
        ("deck turn, ANSI, median", statistics.median(turns), TURN_TARGET, "at most"),
        ("every command, ANSI, mean", round(statistics.mean(ansi), 1), ANSI_TARGET, "at most"),
        ("every command, plain, mean", round(statistics.mean(lines), 1), LINES_TARGET, "at most"),
        ("pointer step, ANSI, mean", key_rows[2]["mean"], POINTER_TARGET, "at most"),
    ):
        verdict_text = "meets" if figure <= target else "misses"
        print(f"target: {name} {what} {target} bytes: {figure}, {verdict_text}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(
        json.dumps(
            {
                "deal": DEAL,
                "level": LEVEL,
                "language": args.language,
                "rows": rows,
                "kinds": kinds,
                "keys": key_rows,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
