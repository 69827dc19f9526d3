"""A caller's visit: welcome, log in, the main menu and everything it leads to.

The same visit serves a telnet caller (:func:`telnet_visit`, after a log in), an SSH caller
(:func:`ssh_visit`, logged in by SSH), a linked board's caller over RLOGIN
(:func:`linked_visit`) and a caller a BBS sends with a drop file (:func:`run_visit` with the
user already known).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from ansi.sequences import reset, show_cursor
from ansi.text import sanitize
from door.config import Config, Level
from door.contests import keep_contests_on_time
from door.engine import Card, Game
from door.engine.shuffle import MAX_DEAL_NUMBER
from door.engine.status import PLAYING
from door.fairness import secret_deal_number
from door.net.clocks import describe_seconds
from door.net.nodes import Nodes, address_key
from door.net.ssh import public_key_line
from door.net.terminal import Terminal
from door.solving.daily import close_past_days
from door.solving.pool import Solving
from door.store import AliasTaken, Store, StoreError
from door.store.accounts import (
    PASSWORD_MAX,
    alias_key,
    check_alias,
    check_new_password,
    check_reserved,
)
from door.store.records import User
from door.views.board import LABEL, VALUE, Look, card_text
from door.views.pages import (
    Entry,
    PageLine,
    Text,
    high_score_lines,
    level_line,
    standing_lines,
    statistics_lines,
    welcome_lines,
)
from door.views.texts import rules_lines
from door.visit.contests import contests, latest_table
from door.visit.context import RunningDoor, Visit
from door.visit.daily import deal_of_the_day
from door.visit.play import Outcome, play_game
from door.visit.screens import ask_line, show_lines, wait_key, whole_number

log = logging.getLogger("door")

LOGIN_TRIES = 3
LOGIN_DELAY = 1.0  # seconds after the first wrong password; doubled after each one
ALIAS_LENGTH = 20
PASSWORD_LENGTH = PASSWORD_MAX
NEW = "NEW"


async def telnet_visit(
    terminal: Terminal,
    node: int,
    store: Store,
    config: Config,
    solving: Solving | None = None,
    door: RunningDoor | None = None,
    nodes: Nodes | None = None,
) -> None:
    """A telnet caller: welcome, log in or sign up, then the main menu."""
    visit = Visit(terminal, store, config, node, solving=solving, door=door, nodes=nodes)
    visit.doing("logging in")
    user = await log_in(visit)
    if user is None:
        return
    await run_visit(visit, user)


async def ssh_visit(
    terminal: Terminal,
    node: int,
    store: Store,
    config: Config,
    solving: Solving | None,
    user: User | None,
    door: RunningDoor | None = None,
    nodes: Nodes | None = None,
) -> None:
    """An SSH caller, logged in by SSH as ``user``, or None to sign up first."""
    visit = Visit(terminal, store, config, node, solving=solving, door=door, nodes=nodes)
    if user is None:
        user = await sign_up(visit, "")
        if user is None:
            return
    await run_visit(visit, user)


async def linked_visit(
    terminal: Terminal,
    node: int,
    store: Store,
    config: Config,
    solving: Solving | None,
    alias: str,
    board: str,
    door: RunningDoor | None = None,
    nodes: Nodes | None = None,
) -> None:
    """A caller a linked board sends over RLOGIN: a user of that board, straight to the menu."""
    terminal.alias = alias
    user = await store.drop_file_user(alias, board)
    visit = Visit(
        terminal, store, config, node, bbs=board, solving=solving, door=door, nodes=nodes
    )
    await run_visit(visit, user)


async def run_visit(visit: Visit, user: User) -> None:
    """The main menu for a caller who is known, until they say goodbye.

    The caller's node becomes the one they are logged in on (:func:`claim_node`): one who
    is on another node already takes that call over, or leaves.
    """
    if not await claim_node(visit, user):
        await visit.terminal.hang_up("Goodbye.")
        return
    visit.adopt(user)
    await visit.store.touch(user.id)
    # Days whose deal of the day is over close their games, whoever's (door mode has no
    # background to do it at midnight).
    today = visit.store.today()
    message = ""
    if await close_past_days(visit.store, today, user.id):
        message = "Your unfinished deal of an earlier day counts as resigned."
    await close_past_days(visit.store, today)
    if await keep_contests_on_time(visit.store):  # likewise contests that open or close
        visit.game_ended()  # for the bulletins
    log.info("node %d: %s logged in", visit.node, sanitize(user.alias))
    await main_menu(visit, message)
    # The caller's own colours back (ESC[0m), not the door's white on black.
    reset_colours = reset() + show_cursor() if visit.look.ansi else ""
    visit.terminal.write(f"{reset_colours}\r\nThanks for playing Canfield. Goodbye!\r\n")
    await visit.terminal.flush(check_time=False)


# -- logging in ---------------------------------------------------------------------------------


async def _ask(
    visit: Visit,
    title: str,
    lines: list[PageLine],
    prompt: str,
    message: str = "",
    *,
    max_length: int = 60,
    mask: bool = False,
) -> str:
    return await ask_line(visit, title, lines, prompt, message, max_length=max_length, mask=mask)


async def _say(visit: Visit, text: str) -> None:
    visit.terminal.write(f"\r\n{text}\r\n")
    await visit.terminal.flush()


async def log_in(visit: Visit) -> User | None:
    """Ask for an alias and password (or sign up); None when the caller fails too often."""
    config = visit.config
    lines = welcome_lines(config.bbs.name, config.bbs.sysop, visit.node)
    failures = 0
    message = ""  # shown until the caller's next answer: a wrong password stays in view
    while failures < LOGIN_TRIES:
        alias = await _ask(
            visit, "Canfield", lines, "Your alias (or NEW): ", message, max_length=ALIAS_LENGTH
        )
        message = ""
        if not alias:
            continue
        if alias.upper() == NEW:
            user = await sign_up(visit, "")
        elif await visit.store.find_user(alias) is None:
            user = await sign_up(visit, alias)
        else:
            wait = await visit.store.login_wait(alias_key(alias), _address(visit))
            if wait > 0:
                # Wrong passwords from many calls: the alias (or the address) rests a while.
                failures += 1
                log.info("node %d: log-in as %s refused for now", visit.node, sanitize(alias))
                message = f"Too many wrong passwords lately. Try again in {describe_seconds(wait)}."
                continue
            password = await _ask(
                visit,
                "Canfield",
                lines,
                f"Password for {sanitize(alias)}: ",
                max_length=PASSWORD_LENGTH,
                mask=True,
            )
            user = await visit.store.authenticate(alias, password, address=_address(visit))
            if user is None:
                failures += 1
                log.info("node %d: wrong password for %s", visit.node, sanitize(alias))
                message = f"Wrong password for {sanitize(alias)}. Try again."
                if failures < LOGIN_TRIES:
                    await asyncio.sleep(LOGIN_DELAY * 2 ** (failures - 1))  # slower each time
                continue
        if user is not None:
            return user
    await visit.terminal.hang_up("Too many wrong passwords. Goodbye.")
    return None


def _address(visit: Visit) -> str:
    """Where the caller is calling from, as limits per address count it; '' if unknown."""
    call = visit.nodes.call(visit.node) if visit.nodes is not None else None
    return address_key(call.address) if call is not None else ""


async def claim_node(visit: Visit, user: User) -> bool:
    """Make this node the one ``user`` is logged in on; False if they would rather not.

    A user already on another node is asked whether to take that call over: its visit ends
    as at a shutdown, with its game saved, before this one goes on, so that two visits never
    play one game.
    """
    nodes = visit.nodes
    if nodes is None:
        return True
    while (other := nodes.holder(user.id, besides=visit.node)) is not None:
        answer = await _ask(
            visit,
            "Canfield",
            [Text(f"You are logged in on node {other.node} already."), ""],
            f"Take over your call on node {other.node}? (Y/N) ",
            max_length=3,
        )
        if answer.upper() not in ("Y", "YES"):
            return False
        await nodes.take_over(other)
        log.info("node %d: %s took over node %d", visit.node, sanitize(user.alias), other.node)
    nodes.log_in(visit.node, user.id)
    return True


async def sign_up(visit: Visit, alias: str) -> User | None:
    """Create an account; None if the caller gives up."""
    lines: list[PageLine] = [
        "A new caller! Choose an alias of 2 to 20 letters, digits or signs, and a password "
        "you will type each time you call.",
    ]
    message = ""  # why the last answer would not do, shown at the next question only
    if alias:
        answer = await _wait(
            visit, "Sign up", lines, f"Nobody called {sanitize(alias)} is here. Sign up? (Y/N) "
        )
        if answer != "Y":
            return None
    limit = visit.config.server.signups_per_hour
    if limit and await visit.store.sign_ups_lately(_address(visit)) >= limit:
        log.info("node %d: sign-up refused: %d from the address this hour", visit.node, limit)
        await _say(visit, "Too many new accounts from your address this hour. Call again later.")
        return None
    while True:
        if not alias:
            alias = await _ask(visit, "Sign up", lines, "Alias: ", message, max_length=ALIAS_LENGTH)
            message = ""
            if not alias:
                return None
        problem = check_alias(alias) or check_reserved(alias, visit.config.bbs.sysop)
        if problem is None and await visit.store.look_alike(alias) is not None:
            problem = "someone has that alias (or a look-alike)"
        if problem:
            message = _sentence(problem)
            alias = ""
            continue
        password = await _ask(
            visit, "Sign up", lines, "Password: ", message, max_length=PASSWORD_LENGTH, mask=True
        )
        message = ""
        again = await _ask(
            visit, "Sign up", lines, "Password again: ", max_length=PASSWORD_LENGTH, mask=True
        )
        problem = check_new_password(password, alias) or (
            None if password == again else "the two passwords differ"
        )
        if problem:
            message = _sentence(problem)
            continue
        try:
            user = await visit.store.create_user(alias, password)
        except AliasTaken:
            message = "Someone took that alias a moment ago."
            alias = ""
            continue
        await visit.store.record_sign_up(_address(visit))
        log.info("node %d: %s signed up", visit.node, sanitize(user.alias))
        return user


def _sentence(text: str) -> str:
    """A reason as a sentence of its own: "someone has it" -> "Someone has it."."""
    return text[:1].upper() + text[1:] + "."


# -- the main menu ------------------------------------------------------------------------------


async def main_menu(visit: Visit, message: str = "") -> None:
    while True:
        assert visit.user is not None
        visit.refresh()
        visit.doing("main menu")
        saved = await visit.store.unfinished_levels(visit.user.id)
        entries: list[PageLine] = [
            Text(f"Hello, {sanitize(visit.user.alias)}."),
            "",
            Entry("P", "Play a game"),
        ]
        if len(saved) == 1:
            entries.append(Entry("R", f"Resume your saved game (level {saved[0]})"))
        elif saved:
            names = ", ".join(map(str, saved[:-1])) + f" and {saved[-1]}"
            entries.append(Entry("R", f"Resume one of your saved games (levels {names})"))
        if visit.solving is not None:
            entries.append(Entry("D", "Deal of the day"))
        entries += [
            Entry("C", "Contests"),
            Entry("#", "Play a numbered deal"),
            Entry("S", "Scoreboards"),
            Entry("M", "My statistics"),
            Entry("I", "Instructions: the rules of Canfield"),
            Entry("T", "Terminal settings"),
            Entry("G", "Goodbye"),
        ]
        title = f"Canfield - {visit.config.bbs.name}"
        key = await _wait(visit, title, entries, "Your choice: ", message)
        message = ""
        if key == "G":
            return
        if key == "P":
            message = await choose_and_play(visit)
        elif key == "R" and saved:
            message = await resume(visit, saved)
        elif key == "#":
            message = await numbered_deal(visit)
        elif key == "D" and visit.solving is not None:
            message = await deal_of_the_day(visit)
        elif key == "C":
            message = await contests(visit)
        elif key == "S":
            visit.doing("reading the scoreboards")
            await scoreboards(visit)
        elif key == "M":
            visit.doing("reading their statistics")
            await statistics(visit)
        elif key == "I":
            visit.doing("reading the rules")
            await show_paged(visit, "The rules of Canfield", rules_lines(visit.config.levels))
        elif key == "T":
            visit.doing("terminal settings")
            await settings(visit)
        else:
            message = "Press one of the keys shown."


async def choose_level(
    visit: Visit, why: str, levels: Sequence[Level] | None = None
) -> Level | None:
    """One of ``levels`` (all the door's by default), or None when the caller goes back.

    Enter picks the default level when it is offered.
    """
    config = visit.config
    visit.doing("choosing a level")
    offered = tuple(config.levels if levels is None else levels)
    default = next((lv for lv in offered if lv.number == config.default_level), None)
    lines: list[PageLine] = [Text(why), ""]
    lines += [Entry(str(level.number), level_line(level)) for level in offered]
    back = "Q goes back."
    lines += ["", f"Enter plays level {default.number}; {back}" if default else back]
    message = ""
    while True:
        if not await show_lines(visit, "Choose a level", lines, "Level: ", message):
            return None
        if max(level.number for level in offered) > 9:  # two digits need a line, not a key
            key = (await visit.terminal.read_line(3)).strip().upper() or "\r"
        else:
            key = await visit.terminal.read_key()
        if key in ("Q", "\x1b"):
            return None
        if key == "\r" and default is not None:
            return default
        number = whole_number(key)
        chosen = next((level for level in offered if level.number == number), None)
        if chosen is not None:
            return chosen
        message = (
            "Press the number of a level"
            + (f", Enter for level {default.number}" if default else "")
            + ", or Q to go back."
        )


async def _daily_limit_reached(visit: Visit) -> str:
    limit = visit.config.daily_games
    assert visit.user is not None
    if limit and await visit.store.games_started_today(visit.user.id) >= limit:
        return f"You have played your {limit} games for today. Come back tomorrow!"
    return ""


def random_deal(level: Level) -> Game:
    """A fresh deal that is not over before it starts (a few deals are stuck at the deal),
    its number secret (see :mod:`door.fairness`)."""
    while True:
        game = Game.deal(level.variant, secret_deal_number())
        if game.status == PLAYING:
            return game


async def choose_and_play(visit: Visit) -> str:
    level = await choose_level(visit, "Which level will you play?")
    if level is None:
        return ""
    return await play_at(visit, level, None)


async def play_at(visit: Visit, level: Level, number: int | None) -> str:
    """Deal ``number`` (or a random deal) at ``level``; a saved game there is resumed or
    resigned first, as the caller chooses (one unfinished game per level)."""
    assert visit.user is not None
    saved = await visit.store.resume(visit.user.id, level.number)
    if saved is not None:
        deal = "a new deal" if number is None else f"deal {number}"
        answer = await _wait(
            visit,
            level.name,
            [
                Text("You have a saved game at this level."),
                "",
                Entry("R", "Resume it"),
                Entry("N", f"Resign it (it counts as lost) and play {deal}"),
            ],
            "Your choice (Enter goes back): ",
        )
        if answer == "R":
            return await _play(visit, level, *saved)
        if answer != "N":
            return ""
        game_id, game = saved
        game.resign()
        try:
            await visit.store.finish_game(game_id, game)
        except StoreError:  # played on meanwhile on another line
            return "That saved game was played on meanwhile on another line; it is kept."
        visit.game_ended()
        if not (await visit.store.game_record(game_id)).practice:
            await play_game(visit, level, game_id, game)  # its end shows the secret deal
    return await new_game(visit, level, number)


async def new_game(visit: Visit, level: Level, number: int | None) -> str:
    """Deal a game (a random one, or deal ``number``, which is practice) and play it, and
    the next ones."""
    while True:
        refusal = await _daily_limit_reached(visit)
        if refusal:
            return refusal
        game = await _deal(visit, level, number)
        assert visit.user is not None
        try:
            game_id = await visit.store.start_game(
                visit.user.id, level, game, practice=number is not None
            )
        except StoreError:  # a game begun meanwhile at this level, on another line
            return "You have a saved game at that level: R resumes it."
        outcome = await play_game(visit, level, game_id, game)
        if not outcome.next_deal:
            return _outcome_message(outcome)
        number = None


async def _deal(visit: Visit, level: Level, number: int | None) -> Game:
    """Deal ``number``; else a random deal, or at a winnable-only level one proved winnable."""
    if number is None and level.winnable_only and visit.solving is not None:

        async def waiting() -> None:
            await _say(visit, "Finding a winnable deal...")

        number = await visit.solving.winnable_deal(level, waiting)
    return random_deal(level) if number is None else Game.deal(level.variant, number)


async def _play(visit: Visit, level: Level, game_id: int, game: Game) -> str:
    outcome = await play_game(visit, level, game_id, game)
    if outcome.next_deal:
        return await new_game(visit, level, None)
    return _outcome_message(outcome)


def _outcome_message(outcome: Outcome) -> str:
    if outcome.practice and outcome.status != PLAYING:
        won = "Well played! " if outcome.status == "won" else ""
        return f"{won}That was practice: it is not on the scoreboards."
    return {
        "won": "Well played! Your win is on the scoreboard.",
        "stuck": "That deal is over. Better luck with the next!",
        "resigned": "Game resigned.",
    }.get(outcome.status, "Your game is saved: R resumes it.")


async def resume(visit: Visit, saved: list[int]) -> str:
    number = saved[0]
    if len(saved) > 1:
        levels = [lv for lv in visit.config.levels if lv.number in saved]
        level = await choose_level(visit, "Which saved game will you resume?", levels)
        if level is None:
            return ""
        number = level.number
    level = _level_or_none(visit.config, number)
    assert visit.user is not None
    found = await visit.store.resume(visit.user.id, number)
    if level is None or found is None:
        return "That saved game is no longer there."
    return await _play(visit, level, *found)


def _level_or_none(config: Config, number: int) -> Level | None:
    return next((level for level in config.levels if level.number == number), None)


async def numbered_deal(visit: Visit) -> str:
    message = ""
    while True:
        text = await _ask(
            visit,
            "A numbered deal",
            [
                "Every deal has a number: the same number deals the same cards, so you can "
                "replay a deal or play the one a friend played. A numbered deal is practice.",
            ],
            "Deal number (Enter to go back): ",
            message,
            max_length=20,
        )
        if not text:
            return ""
        number = whole_number(text)
        if number is not None and number <= MAX_DEAL_NUMBER:
            break
        message = (
            f'"{sanitize(text, 20)}" is not a deal number. Type the digits of a deal '
            "number, like 48213, or just press Enter to go back."
        )
    today = await visit.store.daily_deal(visit.store.today())
    if today is not None and today.deal == number:
        return "That is today's deal of the day: practise it from tomorrow."
    if await visit.store.contest_holding(number) is not None:
        return "That is a deal of a contest: practise it once the contest has closed."
    level = await choose_level(visit, f"Deal {number} (practice): at which level?")
    if level is None:
        return ""
    return await play_at(visit, level, number)


# -- scoreboards, statistics, rules, settings ---------------------------------------------------


async def _wait(
    visit: Visit, title: str, lines: list[PageLine], prompt: str, message: str = ""
) -> str:
    return await wait_key(visit, title, lines, prompt, message)


async def scoreboards(visit: Visit) -> None:
    config = visit.config
    message = ""
    while True:
        lines: list[PageLine] = [
            Entry(str(level.number), f"High scores: {level.name}") for level in config.levels
        ]
        lines += [
            Entry("A", "All callers' standings"),
            Entry("C", "The contest's table"),
            Entry("Q", "Back to the menu"),
        ]
        key = await _wait(visit, "Scoreboards", lines, "Which board? ", message)
        if key == "C":
            await latest_table(visit)
        elif key == "A":
            standings = await visit.store.standings(config.scoreboard.standings)
            await _wait(visit, "Standings", standing_lines(standings), "Press any key. ")
        elif (number := whole_number(key)) is not None and (
            level := _level_or_none(config, number)
        ) is not None:
            scores = await visit.store.high_scores(level, config.scoreboard.high_scores)
            await _wait(
                visit,
                f"High scores - {level.name}",
                high_score_lines(level, scores),
                "Press any key. ",
            )
        elif key in ("Q", "\r"):
            return
        else:
            message = "Press a level's number, A, C or Q."
            continue
        message = ""


async def statistics(visit: Visit) -> None:
    assert visit.user is not None
    levels = visit.config.levels
    for index, level in enumerate(levels, start=1):
        stats = await visit.store.statistics(visit.user.id, level)
        recent = await visit.store.recent_results(visit.user.id, 10, level.number)
        more = index < len(levels)
        key = await _wait(
            visit,
            f"Your statistics - {sanitize(visit.user.alias)} ({index}/{len(levels)})",
            statistics_lines(level, stats, recent),
            "Any key for the next level, Q to stop. " if more else "Press any key. ",
        )
        if key == "Q":
            return


async def show_paged(visit: Visit, title: str, lines: list[PageLine]) -> None:
    """A long text a page at a time (never a paragraph split where it can be helped)."""
    await _wait(visit, title, lines, "Press any key. ")


async def settings(visit: Visit) -> None:
    message = ""
    while True:
        terminal = visit.terminal
        lines: list[PageLine] = [
            Entry("A", f"ANSI colour screen: {'on' if visit.look.ansi else 'off (plain text)'}"),
            Entry("S", f"Character set: {terminal.charset}"),
            Entry("L", f"Suits drawn as: {_suits_word(visit)}"),
            Entry(
                "G",
                "Game shown as: "
                + ("a line per play (R: the board)" if visit.look.terse else "the whole board"),
            ),
        ]
        user = visit.user
        ssh_key = None
        if user is not None and user.bbs is None:  # a BBS's callers log in at their BBS
            ssh_key = await visit.store.ssh_key(user.id)
            lines.append(Entry("K", f"SSH key for logging in: {'added' if ssh_key else 'none'}"))
        lines += [
            Entry("H", f"Keys on the board: {_keys_setting(visit)}"),
            Entry("Q", "Back to the menu"),
            "",
            Text("Your cards look like this (as on the game board):", LABEL),
            Text(preview_cards(visit.look), VALUE),
            "",
            "If a suit is missing or garbled there, press S for the next character set.",
        ]
        key = await _wait(visit, "Terminal settings", lines, "Your choice: ", message)
        if key == "A":
            await visit.set_look(ansi=not visit.look.ansi)
        elif key == "S":
            order = ("cp437", "utf-8", "ascii")
            await visit.set_look(charset=order[(order.index(terminal.charset) + 1) % 3])
        elif key == "L":
            await visit.set_look(suit_letters=not visit.look.suit_letters)
        elif key == "K" and user is not None and user.bbs is None:
            message = await ssh_key_setting(visit, user, ssh_key)
            continue
        elif key == "G":
            await visit.set_game_view(terse=not visit.look.terse)
        elif key == "H":
            await visit.set_hot_keys(not visit.hot_keys)
        elif key in ("Q", "\r"):
            return
        message = "Saved for your next call."


SSH_KEY_LENGTH = 1000  # an RSA key of 4096 bits is some 740 characters


async def ssh_key_setting(visit: Visit, user: User, ssh_key: str | None) -> str:
    """Add the SSH public key the caller pastes, or remove theirs; the message to show."""
    if ssh_key is not None:
        answer = await _wait(
            visit,
            "SSH key",
            [Text("You log in over SSH with a key, or with your password."), ""],
            "Remove your SSH key? (Y/N) ",
        )
        if answer != "Y":
            return ""
        await visit.store.set_ssh_key(user.id, None)
        return "SSH key removed: over SSH you log in with your password."
    text = await _ask(
        visit,
        "SSH key",
        [
            "Over SSH you can log in with a key instead of your password. Paste your "
            "public key: one line, as in the file id_ed25519.pub of your .ssh folder.",
        ],
        "Key (Enter to go back): ",
        max_length=SSH_KEY_LENGTH,
    )
    if not text:
        return ""
    line = public_key_line(text)
    if line is None:
        return "That is not an SSH public key. Nothing was changed."
    await visit.store.set_ssh_key(user.id, line)
    log.info("node %d: %s added an SSH key", visit.node, sanitize(user.alias))
    return "SSH key added: log in with it on your next call over SSH."


PREVIEW = ("TH", "KS", "AD", "7C")


def preview_cards(look: Look) -> str:
    """A ten and a card of each suit, drawn as the game board draws them for ``look``."""
    return "  ".join(card_text(Card.parse(name), look).strip() for name in PREVIEW)


def _suits_word(visit: Visit) -> str:
    """How suits are drawn, honestly: symbols need ANSI and a charset that has them."""
    if visit.look.suit_letters:
        return "letters"
    if not visit.look.ansi or visit.terminal.charset == "ascii":
        return "symbols (letters in plain text and ASCII)"
    return "symbols"


def _keys_setting(visit: Visit) -> str:
    if visit.hot_keys:
        return "hot keys (a command acts at once)"
    return "lines (Enter ends each command)"
