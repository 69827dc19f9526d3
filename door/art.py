"""The sysop's own ANSI art on the door's screens: which files, the room each may take, and
reading them.

A folder named in sysop.toml (``[art] folder``) holds a ``.ans`` file (CP437 ANSI art, with or
without a SAUCE record) for each screen the sysop draws, and may hold a ``.asc`` beside it
(plain text) for callers without ANSI. A file missing, or art that does not fit the room its
screen leaves it (:data:`SCREENS`) or the caller's window, leaves the door's own screen.

>>> [(screen.name, screen.rows, screen.columns) for screen in SCREENS][:3]
[('welcome', 15, 80), ('menu', 6, 80), ('goodbye', 22, 80)]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ansi.art import Art, cp437_problem, read_art, split_sauce

#: The widest art any caller's screen takes: the door lays its screens out in 80 columns.
MOST_COLUMNS = 80
#: Plain text stops short of the last column: a terminal may wrap after it.
PLAIN_COLUMNS = MOST_COLUMNS - 1


@dataclass(frozen=True, slots=True)
class ArtScreen:
    """A screen the sysop may draw: its art is ``NAME.ans`` (and ``NAME.asc``), at most
    ``rows`` rows and ``columns`` columns, shown ``where``."""

    name: str
    rows: int
    columns: int
    where: str


# The rows each may take are what the screen keeps below it: the welcome's title, its line
# and prompt; the menu's twelve lines under its title; the goodbye line; a won game's
# columns' rows (8 to 20) beside the sidebar (from column 62).
SCREENS = (
    ArtScreen("welcome", 15, MOST_COLUMNS, "above the log-in prompt"),
    ArtScreen("menu", 6, MOST_COLUMNS, "the main menu's head"),
    ArtScreen("goodbye", 22, MOST_COLUMNS, "above the goodbye line"),
    ArtScreen("won", 13, 60, "across a won game's emptied columns"),
    ArtScreen("contest", 6, MOST_COLUMNS, "the contest page's head"),
    ArtScreen("scores", 6, MOST_COLUMNS, "the scoreboards' head"),
)
SCREEN_NAMES = tuple(screen.name for screen in SCREENS)


@dataclass(frozen=True, slots=True)
class ScreenArt:
    """One screen's art as read: ``ansi`` from its .ans, ``plain`` from its .asc (None: no
    such file)."""

    screen: ArtScreen
    ansi: Art | None
    plain: Art | None

    def for_caller(self, *, ansi: bool, width: int) -> Art | None:
        """The art a caller sees, or None (the door's own screen): the .ans for an ANSI
        screen, the .asc for a plain one, either only if it fits the screen's room and the
        caller's window of ``width`` columns, whole."""
        art = self.ansi if ansi else self.plain
        if art is None:
            return None
        columns = min(self.screen.columns, width if ansi else min(width - 1, PLAIN_COLUMNS))
        if art.columns > columns or art.height > self.screen.rows:
            return None
        return art


def art_files(folder: Path, screen: ArtScreen) -> tuple[Path, Path]:
    """The .ans and .asc files of ``screen`` in ``folder``."""
    return folder / f"{screen.name}.ans", folder / f"{screen.name}.asc"


def _read(path: Path) -> Art | None:
    """The art in ``path``, None if there is no such file (OSError if it can't be read)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    return read_art(data)


def read_screens(folder: Path) -> tuple[ScreenArt, ...]:
    """Every screen's art found in ``folder``; OSError if a file there can't be read."""
    found = []
    for screen in SCREENS:
        ans, asc = art_files(folder, screen)
        ansi, plain = _read(ans), _read(asc)
        if ansi is not None or plain is not None:
            found.append(ScreenArt(screen, ansi, plain))
    return tuple(found)


def art_problems(folder: Path) -> list[str]:
    """What check-config says of each art file in ``folder``: too wide or tall to be shown,
    holding sequences the door does not pass on, or not CP437 text.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as name:
    ...     _ = (Path(name) / "menu.ans").write_bytes(b"\\x1b]0;hi\\x07\\x1b[6n" + b"=\\r\\n" * 7)
    ...     _ = (Path(name) / "won.ans").write_bytes("═══ ♥".encode())
    ...     for problem in art_problems(Path(name)):  # doctest: +NORMALIZE_WHITESPACE
    ...         print(problem)
    menu.ans is 7 rows high: more than the 6 the main menu's head takes, so callers see
    the door's own screen
    menu.ans holds sequences the door does not pass on to callers (dropped): ESC]0;hi BEL, ESC[6n
    won.ans is not CP437 text: it is UTF-8 text (saved as UTF-8, not CP437)
    """
    problems = []
    for screen in SCREENS:
        for path in art_files(folder, screen):
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                continue
            except OSError as error:
                problems.append(f"{path.name} can't be read: {error.strerror or error}")
                continue
            problems += _problems_of(path.name, data, screen)
    return problems


def _problems_of(name: str, data: bytes, screen: ArtScreen) -> list[str]:
    art = read_art(data)
    problems = []
    widest = min(PLAIN_COLUMNS, screen.columns) if name.endswith(".asc") else screen.columns
    if art.columns > widest:
        problems.append(
            f"{name} is {art.columns} columns wide: wider than the {widest} {screen.where} "
            "takes, so callers see the door's own screen"
        )
    if art.height > screen.rows:
        problems.append(
            f"{name} is {art.height} rows high: more than the {screen.rows} {screen.where} "
            "takes, so callers see the door's own screen"
        )
    if art.dropped:
        problems.append(
            f"{name} holds sequences the door does not pass on to callers (dropped): "
            + ", ".join(art.dropped)
        )
    why = cp437_problem(split_sauce(data)[0])
    if why:
        problems.append(f"{name} is not CP437 text: {why}")
    return problems
