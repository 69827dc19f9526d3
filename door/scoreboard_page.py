"""The scoreboards as a web page and as JSON: what the main menu's scoreboards show.

:func:`gather` reads them from the store's reader side (the bulletin's lists, and today's
board of the deal of the day); :func:`render_html` and :func:`render_json` lay them out.

Each level's high scores, the standings, the deal of the day's board and the latest contest
that has opened (its table so far, its seals, and its deals and salts once it has closed),
with the Board column when callers of linked boards are on them, and the hint marks. Every
alias and name is cleaned of control characters (:func:`ansi.text.sanitize`) and then
HTML-escaped: an alias is only ever text. The deal of the day's number is not shown (callers
who have not played it must not learn it), nor an open contest's deal numbers, nor a game's
score while it is being played.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from ansi.text import sanitize
from door.bulletin import CONTEST_NOTE, Bulletin, LevelBoard, as_json, contest_when, updated
from door.bulletin import gather as gather_bulletin
from door.config import Config
from door.contests import ContestBoard
from door.engine.status import Status
from door.store import Store
from door.store.contests import ContestStanding
from door.store.records import DailyResult, HighScore, Standing
from door.views.layout import local_time
from door.views.pages import status_word
from door.words import N_, _, ngettext, speaking


@dataclass(frozen=True, slots=True)
class DailyBoard:
    """The deal of the day's board: its day, its level's name and its results."""

    day: str
    level: str
    results: tuple[DailyResult, ...]


async def gather(store: Store, config: Config) -> tuple[Bulletin, DailyBoard | None]:
    """Every level's high scores, the standings, and today's deal of the day's board (None
    until today's deal has been chosen)."""
    bulletin = await gather_bulletin(store, config)
    today = store.today()
    deal = await store.daily_deal(today)
    if deal is None:
        return bulletin, None
    level = config.level(deal.level).name if 1 <= deal.level <= len(config.levels) else ""
    results = tuple(await store.daily_board(today))
    return bulletin, DailyBoard(today.isoformat(), level, results)


def _text(value: str | None) -> str:
    return escape(sanitize(value or ""))


def _said(text: str) -> str:
    """Words of the door's, as HTML text: a sysop's catalog may reword them with any sign."""
    return escape(text, quote=False)


def _heads(*heads: str) -> list[str]:
    """Column heads in the caller's words, as HTML (also put in an attribute: quotes too)."""
    return [escape(_(head)) for head in heads]


def _table(
    caption: str,
    head: Sequence[str],
    rows: Sequence[Sequence[str]],
    empty: str,
    after: str = "",
) -> str:
    """A section: its caption, its table (or ``empty``), then ``after``. Each cell carries its
    column's name, which a narrow screen shows beside it (each row a card of its own)."""
    if not rows:
        return f"<section><h2>{caption}</h2><p>{empty}</p>{after}</section>"
    header = "".join(f"<th>{cell}</th>" for cell in head)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td data-label="{label}">{cell}</td>' for label, cell in zip(head, row, strict=True)
        )
        + "</tr>"
        for row in rows
    )
    return (
        f"<section><h2>{caption}</h2><table><thead><tr>{header}</tr></thead>"
        f"<tbody>{body}</tbody></table>{after}</section>"
    )


def _several_boards(bulletin: Bulletin, daily: DailyBoard | None) -> bool:
    rows: list[HighScore | Standing | DailyResult | ContestStanding] = [
        row for board in bulletin.levels for row in board.rows
    ]
    rows += [*(bulletin.standings or ()), *(daily.results if daily else ())]
    rows += bulletin.contest.rows if bulletin.contest else ()
    return any(row.bbs for row in rows)


def _level_section(board: LevelBoard, boards: bool) -> str:
    head = _heads(
        "#",
        N_("Alias"),
        *([N_("Board")] if boards else []),
        N_("Score"),
        N_("Won"),
        N_("Moves"),
        N_("Date"),
        N_("Hint"),
    )
    yes, no, hint = _said(_("yes")), _said(_("no")), _said(_("hint"))
    rows = [
        [
            str(rank),
            _text(row.alias),
            *([_text(row.bbs)] if boards else []),
            str(row.score),
            yes if row.won else no,
            str(row.moves),
            row.finished.astimezone().strftime("%Y-%m-%d"),
            hint if row.assisted else "",
        ]
        for rank, row in enumerate(board.rows, start=1)
    ]
    since = _("since {time}").format(time=local_time(board.since)) if board.since else ""
    since = f" <small>{_said(since)}</small>" if since else ""
    return _table(f"{_text(board.name)}{since}", head, rows, _said(_("No finished games yet.")))


def _standings_section(standings: Sequence[Standing], boards: bool) -> str:
    head = _heads(
        "#",
        N_("Alias"),
        *([N_("Board")] if boards else []),
        N_("Saved"),
        N_("Games"),
        N_("Wins"),
        N_("Win %"),
        N_("Best"),
        N_("Hints"),
    )
    rows = [
        [
            str(rank),
            _text(row.alias),
            *([_text(row.bbs)] if boards else []),
            "*" if row.unfinished else "",  # a column of its own: an alias may end in *
            str(row.games),
            str(row.wins),
            "-" if row.percentage is None else f"{row.percentage:.1f}",
            "-" if row.best is None else str(row.best),
            str(row.assisted) if row.assisted else "",
        ]
        for rank, row in enumerate(standings, start=1)
    ]
    return _table(_said(_("Standings")), head, rows, _said(_("No finished games yet.")))


def _daily_section(daily: DailyBoard | None, boards: bool) -> str:
    if daily is None:
        caption, empty = _said(_("Deal of the day")), _said(_("No deal has been dealt today yet."))
        return f"<section><h2>{caption}</h2><p>{empty}</p></section>"
    head = _heads(
        "#",
        N_("Alias"),
        *([N_("Board")] if boards else []),
        N_("Result"),
        N_("Score"),
        N_("Moves"),
        N_("Hint"),
    )
    hint = _said(_("hint"))
    rows = []
    for place, row in enumerate(daily.results, start=1):
        playing = row.status == Status.PLAYING  # a game under way: nothing of it is shown
        rows.append(
            [
                str(place),
                _text(row.alias),
                *([_text(row.bbs)] if boards else []),
                _said(status_word(row.status)),
                "" if playing else str(row.score),
                "" if playing else str(row.moves),
                hint if row.assisted else "",
            ]
        )
    day = _said(_("Deal of the day, {day}").format(day=daily.day))
    caption = f"{day} <small>{_text(daily.level)}</small>"
    return _table(caption, head, rows, _said(_("Nobody has played this deal yet.")))


def _contest_section(board: ContestBoard, boards: bool) -> str:
    """The contest's table so far, then its seals, or its deals and salts once it has closed
    (an open contest's deal numbers are never here: ``board.deals`` is empty until then)."""
    contest = board.contest
    head = _heads(
        "#",
        N_("Alias"),
        *([N_("Board")] if boards else []),
        N_("Deals"),
        N_("Score"),
        N_("Moves"),
        N_("Finished"),
        N_("Hint"),
    )
    hint = _said(_("hint"))
    rows = [
        [
            str(rank),
            _text(row.alias),
            *([_text(row.bbs)] if boards else []),
            str(row.played) + (f" +{row.playing}" if row.playing else ""),
            str(row.score),
            str(row.moves),
            local_time(row.finished) if row.finished else "",
            hint if row.assisted else "",
        ]
        for rank, row in enumerate(board.rows, start=1)
    ]
    about = ngettext(
        "{count} deal, level {level}, opened {opens}, {when}",
        "{count} deals, level {level}, opened {opens}, {when}",
        contest.deals,
    ).format(
        count=contest.deals,
        level=contest.level,
        opens=local_time(contest.opens),
        when=contest_when(board),
    )
    name = _said(_("Contest: {name}")).format(name=_text(contest.name))
    caption = f"{name} <small>{_said(about)}</small>"
    if board.deals:
        note = _("Its deals (seal = first 32 hex digits of sha256 of DEAL:SALT):")
        # TRANSLATORS: a deal of a closed contest on the web page: {salt} and {seal} are
        # hex digits, shown as code
        item = _("{deal}, salt {salt}, seal {seal}")
        items = [
            "<li>"
            + _said(item).format(
                deal=deal.deal,
                salt=f"<code>{escape(deal.salt)}</code>",
                seal=f"<code>{escape(deal.seal)}</code>",
            )
            + "</li>"
            for deal in board.deals
        ]
    else:
        note = _("The seals of its deals (the deals and salts are shown when it closes):")
        items = [f"<li><code>{escape(sealed)}</code></li>" for sealed in board.seals]
    after = (
        f"<p><small>{_said(_(CONTEST_NOTE))}</small></p><p>{_said(note)}</p>"
        f"<ol>{''.join(items)}</ol>"
    )
    nobody = _said(_("Nobody has played a deal of it yet."))
    return _table(caption, head, rows, nobody, after)


STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:60em;margin:1em auto;padding:0 1em;"
    "background:#111;color:#ddd;overflow-wrap:anywhere}a{color:#8cf}"
    "h2{font-size:1.1em;margin-top:1.5em}code{word-break:break-all}"
    "table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.15em .6em;"
    "border-bottom:1px solid #333}small{color:#999;font-weight:normal}"
    # A narrow screen: each row a card, each cell under its column's name, nothing sideways.
    "@media (max-width:40em){body{padding:0 .5em}"
    "table,tbody,tr,td{display:block}thead{position:absolute;width:1px;height:1px;"
    "overflow:hidden;clip-path:inset(50%)}tr{border-bottom:1px solid #333;padding:.3em 0}"
    "td{border:0;padding:.05em .3em;display:flex;gap:.75em}td:empty{display:none}"
    "td::before{content:attr(data-label);flex:0 0 5.5em;color:#999}}"
)


def render_html(bulletin: Bulletin, daily: DailyBoard | None) -> str:
    """The whole page, in the board's language (the bulletin's)."""
    with speaking(bulletin.words):
        return _html(bulletin, daily)


def _html(bulletin: Bulletin, daily: DailyBoard | None) -> str:
    boards = _several_boards(bulletin, daily)
    heading = _said(_("{bbs} - Canfield scoreboards")).format(bbs=_text(bulletin.bbs_name))
    sections = [_level_section(board, boards) for board in bulletin.levels]
    if bulletin.standings is not None:
        sections.append(_standings_section(bulletin.standings, boards))
    sections.append(_daily_section(daily, boards))
    if bulletin.contest is not None:
        sections.append(_contest_section(bulletin.contest, boards))
    key = _(
        "Saved *: has a game to resume. Hint: a hint was taken in the game. Practice games "
        "are never on these lists."
    )
    # TRANSLATORS: the link to the door's own page, where a caller plays in the browser
    play = _said(_("Play"))
    return (
        f'<!DOCTYPE html><html lang="{escape(bulletin.language.replace("_", "-"))}"><head>'
        '<meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{heading}</title><link rel="icon" href="/favicon.svg" type="image/svg+xml">'
        f"<style>{STYLE}</style></head><body>"
        f'<h1>{heading}</h1><p><a href="/">{play}</a> · '
        '<a href="/scores.json">JSON</a></p>'
        + "".join(sections)
        + f"<p><small>{_said(key)}</small></p>"
        f"<p><small>{_said(updated(bulletin))}</small></p></body></html>\n"
    )


def render_json(bulletin: Bulletin, daily: DailyBoard | None) -> str:
    """The same facts for a sysop's own site: the bulletin's JSON (with the contest's table
    under ``contest``, None before any contest has opened) and the day's board."""
    document: dict[str, Any] = as_json(bulletin)
    document.setdefault("contest", None)
    document["daily"] = None
    if daily is not None:
        document["daily"] = {
            "day": daily.day,
            "level": sanitize(daily.level),
            "results": [
                {
                    "rank": place,
                    "alias": sanitize(row.alias),
                    "bbs": None if row.bbs is None else sanitize(row.bbs),
                    "result": row.status,
                    "score": None if row.status == Status.PLAYING else row.score,
                    "moves": None if row.status == Status.PLAYING else row.moves,
                    "assisted": row.assisted,
                }
                for place, row in enumerate(daily.results, start=1)
            ],
        }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
