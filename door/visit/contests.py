"""Contests at the main menu: the open contest (or the next, and when it opens), its deals by
their place (1 to N, never their numbers while it runs), the caller's games of them and
the table so far; earlier contests with their deals revealed.

Each deal is played once: starting it is the attempt. A game left (or dropped) resumes from
the contest's page; resigning ends it with its score. No hints, and no deal number on any
screen until the contest has closed (see :mod:`door.store.contests`).
"""

from __future__ import annotations

import logging

from ansi.text import sanitize
from door.contests import ContestBoard, contest_board, keep_contests_on_time
from door.engine import Variant
from door.engine.status import Status
from door.league.protocol import MAX_PLAYS
from door.levels import Level
from door.store import StoreError
from door.store.contests import Contest, ContestState
from door.views.contests import deal_key, deal_lines, seal_lines, state_line, table_lines
from door.views.layout import local_time
from door.views.pages import Entry, PageLine, Text, lay_out, page_rows
from door.visit.art import art_for
from door.visit.context import Visit
from door.visit.play import GameTerms, play_game
from door.visit.screens import wait_key, whole_number
from door.words import N_, _

log = logging.getLogger("door")

# The contest page's menu, below its deals: each key and what it does (translated when shown).
MENU: tuple[tuple[str, str], ...] = (
    ("S", N_("The deals' seals (and, once it has closed, deals and salts)")),
    ("T", N_("The whole table")),
    ("E", N_("Earlier contests")),
    ("Q", N_("Back to the menu")),
)
EARLIER = 9
WHOLE_TABLE_ROWS = 200

ONCE = N_("You have played deal {number} of this contest: each deal is played once.")
CLOSED_NOW = N_("The contest has closed: its deals are no longer played.")
OUTCOMES = {
    Status.WON: N_("Well played! Your win is on the contest's table."),
    Status.STUCK: N_("That deal is over. Your score is on the contest's table."),
    Status.RESIGNED: N_("Deal resigned. Its score is on the contest's table."),
}
SAVED = N_("Your game is saved: its number resumes it.")


async def contests(visit: Visit) -> str:
    """The contest's page, until the caller goes back; a message for the menu. With both a
    contest of this door's own and one of the InterBBS league, L goes from one to the other."""
    assert visit.user is not None
    store = visit.store
    if await keep_contests_on_time(store):
        visit.game_ended()  # for the bulletins
    message = ""
    league = False
    while True:
        own, of_league = await store.contest_now(), await store.contest_now(league=True)
        if own is None and of_league is None:
            return _("There is no contest yet. The sysop announces them.")
        league = of_league is not None and (league or own is None)
        contest = of_league if league else own
        other = own if league else of_league
        assert contest is not None
        board = await contest_board(store, contest)
        assert board is not None
        level = await contest_level(visit, contest)
        menu = _menu()
        if other is not None:
            what = (
                _("This board's own contest: {contest}")
                if league
                else _("The league's contest: {contest}")
            )
            menu = [Entry("L", what.format(contest=sanitize(other.name))), *menu]
        lines = await _page_lines(visit, board, level.name, menu)
        visit.doing("at the contests")
        named = _("League contest - {contest}") if league else _("Contest - {contest}")
        title = named.format(contest=sanitize(contest.name))
        head = art_for(visit, "contest")
        key = await wait_key(visit, title, lines, _("Your choice: "), message, head)
        message = ""
        keys = {deal_key(n): n for n in range(1, contest.deals + 1)}
        number = keys.get(key)
        if number is not None:
            # Judged by where the contest stands now, not when the page was drawn: it may
            # have opened or closed while the caller read it (the page is drawn again).
            if await keep_contests_on_time(store):
                visit.game_ended()
            message = await _play(visit, contest, number)
        elif key == "L" and other is not None:
            league = not league
        elif key == "T":
            await _whole_table(visit, contest)
        elif key == "S":
            await _seals(visit, board)
        elif key == "E":
            await _earlier_contests(visit, contest)
        elif key in ("Q", "\r"):
            return ""
        else:
            message = _("Press one of the keys shown.")


def _menu() -> list[PageLine]:
    """The contest page's menu in the caller's words."""
    return [Entry(key, _(text)) for key, text in MENU]


async def contest_level(visit: Visit, contest: Contest) -> Level:
    """The rules the contest is played under (as they were when it was declared), without
    hints."""
    knobs = next(row.knobs for row in await visit.store.variants() if row.id == contest.variant_id)
    variant = Variant.from_dict(knobs)
    named = next((lv for lv in visit.config.levels if lv.number == contest.level), None)
    same = named is not None and named.variant == variant
    name = (
        named.name
        if named is not None and same
        else _("Level {number}").format(number=contest.level)
    )
    return Level(contest.level, name, variant)


async def _page_lines(
    visit: Visit, board: ContestBoard, level_name: str, menu: list[PageLine]
) -> list[PageLine]:
    """The contest's page: where it stands, the deals and the caller's games of them, the
    table as far as one page holds it, and ``menu`` at the foot."""
    assert visit.user is not None
    contest = board.contest
    plays = await visit.store.contest_plays(visit.user.id, contest.id)
    now = visit.store.now()
    lines: list[PageLine] = [
        Text(
            state_line(board.state, contest.opens, contest.closes, level_name, contest.deals, now)
        ),
    ]
    rule = Text(_("Each deal is played once: starting it is your attempt. No hints."))
    deals = ["", *deal_lines(board.state, plays, contest.deals)]
    foot: list[PageLine] = ["", *menu]
    open_page = [*lines, rule, *deals, *foot]
    room = page_rows(visit.look)
    if board.state == ContestState.OPEN and len(lay_out(open_page, visit.look)) <= room:
        lines.append(rule)  # where ten deals leave room for it
    lines += deals
    if board.state == ContestState.COMING:
        return lines + foot
    # The table below the deals, as many rows as the page has room for (T: all of them).
    room -= len(lay_out([*lines, *foot], visit.look)) + 2  # a blank, the titles
    fits = room if len(board.rows) <= room else room - 1  # and a row for "... and N more"
    if fits >= 1:
        return [*lines, "", *table_lines(board.rows, fits, _me(visit)), *foot]
    return [*lines, *foot]  # no room for the table on the page: T shows it


async def _play(visit: Visit, contest: Contest, number: int) -> str:
    """Play (or resume) deal ``number``: the caller's one attempt at it, while the contest
    is open; else what stands in the way."""
    assert visit.user is not None
    store = visit.store
    level = await contest_level(visit, contest)
    mine = await store.contest_game(visit.user.id, contest.id, number)
    state = contest.state(store.now())
    if state == ContestState.COMING:
        return _("The contest has not opened yet: it opens {when}.").format(
            when=local_time(contest.opens)
        )
    if mine is not None:
        game_id, status, game = mine
        if status != Status.PLAYING:
            return _(ONCE).format(number=number)
    if state == ContestState.CLOSED:
        return _(CLOSED_NOW)
    if mine is None:
        if contest.mirrored and not await _deal_held(visit, contest, number):
            return _(
                "The league's hub does not answer just now: deal {number} is dealt once it "
                "does. Try it again later."
            ).format(number=number)
        try:
            game_id, game = await store.start_contest_game(visit.user.id, contest, number, level)
        except StoreError:  # begun meanwhile on another line, or the contest just closed
            return await _why_not_started(visit, contest, number)
    terms = GameTerms(
        no_hints=_("No hints in a contest: every caller plays these deals on their own."),
        # TRANSLATORS: when a contest's deal is shown: "deal and salt shown at the close"
        sealed_until=_("at the close"),
        closes=contest.closes,
        # TRANSLATORS: followed by ": this game counts as resigned."
        closed=_("The contest is over"),
        resign=_("Resign this deal? It counts with its score as it stands. (Y/N) "),
        # TRANSLATORS: what N does, in the game's help, beside the key
        resign_help=_("resign this deal: it counts with its score as it stands"),
        won=_("It is on the contest's table."),
        seal=(await store.contest_seals(contest))[number - 1] if contest.mirrored else None,
        # What a result can carry to the hub: on every board of a league alike.
        most_plays=MAX_PLAYS if contest.league else None,
        # TRANSLATORS: followed by ": this game counts as resigned."
        most_plays_told=_("A league game is {count} plays at most").format(
            # TRANSLATORS: the separator of thousands in a number (6,000)
            count=f"{MAX_PLAYS:,}".replace(",", _(","))
        ),
    )
    name = _("{contest}, deal {number}").format(contest=sanitize(contest.name), number=number)
    shown = Level(level.number, name, level.variant)
    outcome = await play_game(visit, shown, game_id, game, terms)
    if contest.mirrored and outcome.status != Status.PLAYING and visit.app.league is not None:
        visit.app.league.game_ended()  # its result goes to the hub
    return _(OUTCOMES.get(outcome.status, SAVED))


async def _deal_held(visit: Visit, contest: Contest, number: int) -> bool:
    """Whether this board has deal ``number`` of a league contest to deal, fetching it from
    the hub the first time one of its callers starts it (its number is never shown)."""
    if any(deal.number == number for deal in await visit.store.contest_deals(contest.id)):
        return True
    if visit.app.league is None:
        return False
    try:
        await visit.app.league.fetch_deal(contest, number)
    except Exception as error:  # the hub away, slow or refusing: the caller is told
        log.warning("league: deal %d could not be fetched: %s", number, error)
        return False
    return True


async def _why_not_started(visit: Visit, contest: Contest, number: int) -> str:
    """Why the store would not start deal ``number``, in the caller's words."""
    assert visit.user is not None
    if contest.state(visit.store.now()) != ContestState.OPEN:
        return _(CLOSED_NOW)
    if await visit.store.contest_game(visit.user.id, contest.id, number) is not None:
        return _(ONCE).format(number=number)
    return _("Deal {number} could not be started just now. Try it again in a moment.").format(
        number=number
    )


async def saved_deal(visit: Visit, contest: Contest | None) -> tuple[Contest, int] | None:
    """The contest and the place of the deal the caller has a saved game of, while the
    contest is open (the first, if several)."""
    if contest is None or visit.user is None:
        return None
    if contest.state(visit.store.now()) != ContestState.OPEN:
        return None
    plays = await visit.store.contest_plays(visit.user.id, contest.id)
    saved = sorted(number for number, play in plays.items() if play.status == Status.PLAYING)
    return (contest, saved[0]) if saved else None


async def resume_deal(visit: Visit, contest: Contest, number: int) -> str:
    """Resume the caller's saved game of deal ``number``, from the main menu: judged as its
    key on the contest's page is, by where the contest stands now."""
    if await keep_contests_on_time(visit.store):
        visit.game_ended()
    return await _play(visit, contest, number)


def _me(visit: Visit) -> str | None:
    """The caller's alias as the table shows a caller of this door (one a board sent over
    RLOGIN shows under that board, and is not marked)."""
    user = visit.user
    return user.alias if user is not None and user.bbs is None else None


async def latest_table(visit: Visit) -> None:
    """The table of the latest contest that has opened, as the scoreboards show it."""
    await keep_contests_on_time(visit.store)
    board = await contest_board(visit.store)
    if board is None:
        await wait_key(visit, _("Contest"), [_("No contest has opened yet.")], _("Press any key. "))
        return
    await _whole_table(visit, board.contest)


async def _whole_table(visit: Visit, contest: Contest) -> None:
    rows = await visit.store.contest_table(contest.id)
    now = visit.store.now()
    state = contest.state(now)
    level = await contest_level(visit, contest)
    lines: list[PageLine] = [
        Text(state_line(state, contest.opens, contest.closes, level.name, contest.deals, now)),
        "",
        *table_lines(rows, WHOLE_TABLE_ROWS, _me(visit)),
        "",
        Text(_("Deals: finished (+ begun). By score, then fewer moves, then who finished first.")),
    ]
    title = _("Contest - {contest} - the table").format(contest=sanitize(contest.name))
    await wait_key(visit, title, lines, _("Press any key. "))


async def _seals(visit: Visit, board: ContestBoard) -> None:
    revealed = [(deal.number, deal.deal, deal.salt) for deal in board.deals]
    await wait_key(
        visit,
        _("Contest - {contest} - the deals' seals").format(contest=sanitize(board.contest.name)),
        seal_lines(board.seals, revealed),
        _("Press any key. "),
    )


async def _earlier(visit: Visit, shown: Contest) -> list[Contest]:
    """The contests that have closed, latest first, besides the one shown."""
    now = visit.store.now()
    every = await visit.store.contests()
    closed = [c for c in every if c.state(now) == ContestState.CLOSED and c.id != shown.id]
    return closed[::-1][:EARLIER]


async def _earlier_contests(visit: Visit, shown: Contest) -> None:
    while True:
        earlier = await _earlier(visit, shown)
        lines: list[PageLine] = [
            Entry(
                str(key),
                _("{contest}, closed {when}").format(
                    contest=sanitize(contest.name), when=local_time(contest.closes)
                ),
            )
            for key, contest in enumerate(earlier, start=1)
        ] or [_("No earlier contest has closed yet.")]
        lines += ["", Entry("Q", _("Back"))]
        key = await wait_key(visit, _("Contests - earlier"), lines, _("Your choice: "))
        number = whole_number(key)
        if number is None or not 1 <= number <= len(earlier):
            return
        contest = earlier[number - 1]
        board = await contest_board(visit.store, contest)
        assert board is not None
        level = await contest_level(visit, contest)
        while True:
            menu: list[PageLine] = [
                Entry("S", _("Its deals, salts and seals")),
                Entry("T", _("Its whole table")),
                Entry("Q", _("Back")),
            ]
            key = await wait_key(
                visit,
                _("Contest - {contest}").format(contest=sanitize(contest.name)),
                await _page_lines(visit, board, level.name, menu),
                _("Your choice: "),
            )
            if key == "S":
                await _seals(visit, board)
            elif key == "T":
                await _whole_table(visit, contest)
            else:
                break
