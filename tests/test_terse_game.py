"""A whole game in lines, as a plain caller (or one who listens) plays it: the caller knows the
position only from the lines the door sends, and every line is checked against the game."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field

import pytest

from door.engine import Game
from door.engine.solver import solve
from door.store import Store
from door.store.schema import MIGRATIONS
from tests.support.telnet_caller import Caller
from tests.support.visits import sign_up

DEAL, LEVEL = 1, 1
PROMPT = "Command: "
CARD = re.compile(r"\b([A2-9TJQK][HDCS])\b")
RANKS = "A23456789TJQK"
RED = "HD"
# The migration step that added the caller's choice of lines or board.
GAME_VIEW_STEP = next(n for n, step in enumerate(MIGRATIONS, 1) if "game_view" in " ".join(step))


@dataclass
class Position:
    """What the caller knows, from the lines alone."""

    reserve: str | None = None
    reserve_count: int = 0
    deck: int = 0
    waste: list[str] = field(default_factory=list)  # the cards shown, bottom to top
    foundations: dict[str, str] = field(default_factory=dict)  # suit: top card
    columns: list[list[str]] = field(default_factory=list)
    base: str | None = None

    def tops(self) -> dict[str, str]:
        """The playable cards, by the key of their pile."""
        tops = {str(n): pile[-1] for n, pile in enumerate(self.columns, 1) if pile}
        if self.reserve:
            tops["S"] = self.reserve
        if self.waste:
            tops["D"] = self.waste[-1]
        return tops

    def can_go_up(self, card: str) -> bool:
        top = self.foundations.get(card[1])
        if top is None:
            return self.base is None or card[0] == self.base
        return RANKS[(RANKS.index(top[0]) + 1) % 13] == card[0]

    def fits_on(self, card: str, column: int) -> bool:
        pile = self.columns[column - 1]
        if not pile:
            return True
        top = pile[-1]
        below = RANKS[(RANKS.index(top[0]) - 1) % 13]
        return (card[1] in RED) != (top[1] in RED) and card[0] == below and top[0] != self.base

    def allows(self, command: str) -> bool:
        """Whether the caller, from what they know, sees this play as possible."""
        if command == "V":
            return self.deck > 0 or bool(self.waste)
        source, _, target = command.partition(" ")
        tops = self.tops()
        if source not in tops:
            return False
        card = tops[source] if not source.isdigit() else self.columns[int(source) - 1][0]
        if target == "F":
            return self.can_go_up(tops[source])
        return self.fits_on(card, int(target))


def cards_in(text: str) -> list[str]:
    return CARD.findall(text)


async def ask(caller: Caller, command: str) -> str:
    """Type ``command``; the door's answer, one line, without the echo and the prompt."""
    caller.forget_text()
    await caller.type(command)
    text = await caller.wait_for(rf"\r\n{re.escape(PROMPT)}$|Press Enter", in_text=True)
    echo, _, rest = text.partition("\r\n")
    assert echo == command and "\x1b" not in rest
    if "Press Enter" in rest:
        return rest  # the game is over: what ended it, then the last word
    answer = rest.removesuffix(PROMPT).removesuffix("\r\n")
    assert "\r\n" not in answer and len(answer) <= 80, answer
    return answer


def read_pile(position: Position, key: str, line: str) -> None:
    """Take what ``L key`` answered into ``position``."""
    if key == "S":
        found = re.fullmatch(r"Reserve (\S+), (\d+) cards\.|Reserve empty\.", line)
        assert found, line
        position.reserve = found[1]
        position.reserve_count = int(found[2] or 0)
    elif key == "D":
        found = re.fullmatch(r"Deck (\d+), waste (.*?)( \(\d+ in the waste\))?\.", line)
        assert found, line
        position.deck = int(found[1])
        position.waste = cards_in(found[2])
    elif key == "F":
        found = re.fullmatch(r"Foundations (.*)\. Base rank (\S+)\.", line)
        assert found, line
        position.foundations = {card[1]: card for card in cards_in(found[1])}
        position.base = None if found[2] == "chosen" else found[2].replace("10", "T")
    else:
        found = re.fullmatch(rf"Column {key}: (.*)\.", line)
        assert found, line
        position.columns[int(key) - 1] = cards_in(found[1])


def take_play(position: Position, command: str, line: str) -> None:
    """Follow the play ``command`` on ``position``, from the line the door answered."""
    sentences = line.removesuffix(".").split(". ")
    source, _, target = command.partition(" ")
    if command != "V":
        head = sentences.pop(0)
        assert head.startswith(command), (command, line)
        if source.isdigit() and target.isdigit():  # a whole pile moves by its bottom card
            position.columns[int(target) - 1] += position.columns[int(source) - 1]
            position.columns[int(source) - 1] = []
        elif target.isdigit():
            card = position.tops()[source]
            position.columns[int(target) - 1].append(card)
            if source == "D":
                position.waste.pop()
        for card in cards_in(head.partition(":")[2]):  # cards sent up, in order
            if position.base is None:
                position.base = card[0]
            for pile in position.columns:
                if pile and pile[-1] == card:
                    pile.pop()
                    break
            else:
                if position.waste and position.waste[-1] == card:
                    position.waste.pop()
            position.foundations[card[1]] = card
    for sentence in sentences:
        if found := re.fullmatch(r"Deck (\d+), waste (.*)", sentence):
            position.deck, position.waste = int(found[1]), cards_in(found[2])
        elif found := re.fullmatch(r"Reserve (\S+), (\d+) cards|Reserve empty", sentence):
            position.reserve, position.reserve_count = found[1], int(found[2] or 0)
        elif found := re.fullmatch(r"Column (\d+): (.*)", sentence):
            pile = position.columns[int(found[1]) - 1]
            shown = cards_in(found[2])
            if not shown:
                assert not pile, line
            elif not pile or pile[-1] != shown[-1]:
                assert not pile, line  # a space the reserve filled
                pile.append(shown[-1])
        elif found := re.fullmatch(r"Base rank (\S+)", sentence):
            position.base = found[1].replace("10", "T")
        else:
            assert re.fullmatch(r"Pass \d+", sentence), (sentence, line)


def truth(game: Game) -> Position:
    """The position as the board shows it, read from the game itself."""
    return Position(
        reserve=str(game.reserve[-1]) if game.reserve else None,
        reserve_count=len(game.reserve),
        deck=len(game.deck),
        # As many as a turn lays down: the last three fanned at draw three, the top at one.
        waste=[str(card) for card in game.waste[-game.variant.draw :]],
        foundations={str(pile[-1])[1]: str(pile[-1]) for pile in game.foundations if pile},
        columns=[[str(card) for card in pile] for pile in game.tableau],
        base=None if game.base_rank is None else RANKS[game.base_rank],
    )


def shown_cards(game: Game) -> set[str]:
    """Every card face up on the board."""
    shown = truth(game)
    cards = set(shown.waste) | set(shown.foundations.values())
    cards |= {card for pile in shown.columns for card in pile}
    return cards | ({shown.reserve} if shown.reserve else set())


@pytest.mark.slow
async def test_a_whole_game_played_from_the_lines_alone(door) -> None:
    level = door.config.level(LEVEL)
    verdict = solve(Game.deal(level.variant, DEAL), max_seconds=30)
    assert verdict.result == "won"
    game = Game.deal(level.variant, DEAL)  # the door's game, to check the lines against

    caller = await sign_up(door, ansi=False, term="dumb", charset="ascii")
    await caller.key("#")
    await caller.wait_for("Deal number", in_text=True)
    await caller.type(str(DEAL))
    await caller.wait_for("Level:", in_text=True)
    caller.forget_text()
    await caller.key(str(LEVEL))
    await caller.wait_for(re.escape(PROMPT) + "$", in_text=True)

    # The caller reads the board one pile at a time.
    position = Position(columns=[[] for _ in game.tableau])
    for key in ["S", "D", "F", *(str(n) for n in range(1, len(game.tableau) + 1))]:
        read_pile(position, key, await ask(caller, f"L {key}"))
    assert position == truth(game)

    for number, command in enumerate(verdict.line, start=1):
        assert position.allows(command), (command, position)
        before = shown_cards(game)
        line = await ask(caller, command)
        game.play(command)
        # A line names no card the caller has not seen: none face down.
        assert set(cards_in(line)) <= before | shown_cards(game), line
        if "Press Enter" in line:
            assert number == len(verdict.line)
            break
        take_play(position, command, line)
        assert position == truth(game), (number, command, line)
        if number % 40 == 0:  # now and then the caller reads a column through, to be sure
            for key in ("D", "1", "2", "3", "4"):
                read_pile(position, key, await ask(caller, f"L {key}"))
            assert position == truth(game)
    assert "You won! Final score" in line and game.status == "won"
    await caller.hang_up()


@pytest.mark.slow
async def test_refusals_and_the_board_on_request(door) -> None:
    caller = await sign_up(door, ansi=False, term="dumb", charset="ascii")
    await caller.key("#")
    await caller.wait_for("Deal number", in_text=True)
    await caller.type(str(DEAL))
    await caller.wait_for("Level:", in_text=True)
    await caller.key(str(LEVEL))
    await caller.wait_for(re.escape(PROMPT) + "$", in_text=True)
    assert await ask(caller, "S 9") == "There is no column 9: this game has 4"
    assert (await ask(caller, "L 7")).startswith('No pile "7": L 1 to L 4')
    assert await ask(caller, "L") == "Score 0, 0 moves, 1 of 52 up, pass 1."
    caller.forget_text()
    await caller.type("R")
    board = await caller.wait_for(r"\r\nCommand: $", in_text=True)
    assert "Reserve S" in board and "Foundations F" in board and "Moves     0" in board
    await caller.hang_up()


@pytest.mark.slow
async def test_the_choice_of_lines_or_board_is_kept_with_the_caller(door) -> None:
    caller = await sign_up(door, ansi=False, term="dumb", charset="ascii")
    await caller.key("T")
    await caller.wait_for("Game shown as: a line per play", in_text=True)
    caller.forget_text()
    await caller.key("G")
    await caller.wait_for("Game shown as: the whole board", in_text=True)
    await caller.key("Q")
    await caller.hang_up()
    user = await door.store.find_user("Alice")
    assert user is not None and user.game_view == "board"

    # On the next call the plain caller gets the whole board after each play.
    again = await Caller.connect(door.port, ansi=False, term="dumb", charset="ascii")
    for prompt, answer in (("Your alias", "Alice"), ("Password for", "secret-one1")):
        await again.wait_for(prompt, in_text=True)
        await again.type(answer)
    await again.wait_for("Your choice", in_text=True)
    await again.key("#")
    await again.wait_for("Deal number", in_text=True)
    await again.type(str(DEAL))
    await again.wait_for("Level:", in_text=True)
    await again.key(str(LEVEL))
    await again.wait_for(r"Command \(\? for help\): $", in_text=True)
    again.forget_text()
    await again.type("V")
    board = await again.wait_for(r"(?s)Moves\s+1\b.*Command \(\? for help\): $", in_text=True)
    assert "Foundations F" in board
    await again.hang_up()


async def test_a_database_from_before_keeps_its_users_who_then_choose(tmp_path) -> None:
    path = tmp_path / "old.db"
    now = "2026-11-28T12:00:00.000000+00:00"
    with sqlite3.connect(path) as db:
        for step in MIGRATIONS[: GAME_VIEW_STEP - 1]:
            for statement in step:
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {GAME_VIEW_STEP - 1}")
        db.execute(
            "INSERT INTO users (alias, alias_key, ansi, charset, suit_letters, created, "
            "last_seen) VALUES ('Bob', 'bob', 0, 'ascii', 1, ?, ?)",
            (now, now),
        )
    async with Store.open(path) as store:
        bob = await store.find_user("Bob")
        assert bob is not None
        assert (bob.ansi, bob.charset, bob.suit_letters, bob.game_view) == (
            False,
            "ascii",
            True,
            None,
        )
        assert (await store.save_game_view(bob.id, "terse")).game_view == "terse"
        with pytest.raises(ValueError):
            await store.save_game_view(bob.id, "sideways")
        assert (await store.find_user("Bob")).game_view == "terse"
