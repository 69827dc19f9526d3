"""Every text a caller reads goes through the catalogs, in a form Babel can extract, and
keeps its place on the screen in every language.

- Each string literal of two or more words in the modules a caller's screen is drawn from is
  marked (``_()``, ``N_()``, ``ngettext()``, or a keyword Babel is given for the engine's
  texts), is a docstring or a log line's, or is on the short list below of texts no caller
  reads, each with its reason.
- Each ``_()`` is given a literal Babel extracts, or a text kept elsewhere and marked there:
  never an f-string, a text glued or formatted before it is translated.
- Each translation keeps the English's formatting fields whole (``tests/test_words.py``
  checks the ``{name}`` fields; here: the ``{}`` and ``%`` fields it does not see, and
  braces that would fail ``str.format``).
- Each text whose translator comment says "at most N characters" fits N columns in every
  language the door ships.

Single words (a label such as "Score") are too many to tell from names and keys by their
shape: the German visit (``tests/test_words_visit.py``) finds those left on a screen.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg

from ansi.screen import cells
from door.words.catalogs import LOCALE, read_catalog, shipped_languages, template
from door.words.refresh import EXTRACT

ROOT = Path(__file__).resolve().parents[1]

# The modules a caller's screens, pages and messages are made in.
CALLER_FACING = (
    "door/views",
    "door/visit",
    "door/net",
    "door/running",
    "door/engine",
    "door/league",
    "door/bulletin.py",
    "door/scoreboard_page.py",
    "door/contests.py",
)
# Two words or more: a sentence or a phrase, not a name, a key or a format.
WORDS = re.compile(r"[A-Za-z]{2,}[,.:;!?']?\s+[A-Za-z]{2,}")
# Babel's keywords beside _, N_ and ngettext (door.words.refresh gives them to it), each
# with the argument that holds the text: the engine's refusals and hints, made where nothing
# of the door's may be imported.
KEYWORDS = {
    name: int(argument or 1)
    for name, _colon, argument in (
        option.removeprefix("--keyword=").partition(":")
        for option in EXTRACT
        if option.startswith("--keyword=")
    )
}
MARKS = {"_", "N_", "ngettext", *KEYWORDS}
MARKUP = re.compile(r"<[^<>]*>")  # an HTML tag is not words; the text between tags is
LOG_CALLS = {"debug", "info", "warning", "error", "exception", "critical", "log"}

# Exceptions whose message no caller reads: raised for a programming error, or for a
# sysop, a linked board or the log. (IllegalMove is not here: its message is the refusal a
# caller reads on the board.)
ERRORS_NOT_FOR_CALLERS = {
    "ValueError": "a bad argument: a programming error",
    "TypeError": "a programming error",
    "RuntimeError": "a programming error",
    "AssertionError": "a programming error",
    "EOFError": "the line closed mid-handshake: for the log",
    "VariantError": "a level's knob in sysop.toml: the sysop's check-config reads it",
    "DropFileError": "a BBS's drop file the door can't read: the sysop's log and exit status",
    "ControlError": "the sysop's control socket answers the sysop's command line",
    "StoreError": "the database failed: for the log",
    "Refused": "a league hub's refusal (the member board's log), an RLOGIN refusal's reason "
    "(the log: the line is told a text marked where it is kept)",
    "HubUnreachable": "a member's sync fault: its log (a caller gets the visit's own text)",
    "BadSignature": "a signed league message that fails: the hub's or the member's log",
}

# Calls whose text arguments no caller reads.
CALLS_NOT_FOR_CALLERS = {
    "doing": "what a caller is doing: the sysop's `who` reads it",
    "Supervised": "a background job's name, in the log when it fails",
    "log_fault": "what the store could not keep, for the log (the caller reads its own text)",
}


@dataclass(frozen=True, slots=True)
class Allowed:
    """Texts no caller reads: in the module (or folder) ``where``, the literals ``texts``
    matches whole (None: every literal there), for ``reason``."""

    where: str
    texts: str | None
    reason: str


NOT_FOR_CALLERS = (
    Allowed("door/league", None, "between boards of a league: signed requests, refusals, log"),
    Allowed("door/engine/solver", None, "the solver's own workings, read by the sysop's solve"),
    Allowed("door/engine/variant.py", None, "a level's knobs in sysop.toml: check-config reads"),
    Allowed("door/net/dropfile.py", None, "what a drop file holds: for the sysop whose BBS wrote"),
    Allowed("door/net/telnet_guard.py", None, "a hostile telnet command's fault, for the log"),
    Allowed("door/running/collector.py", None, "the garbage collector's report in the log"),
    Allowed("door/running/service.py", None, "the service's start and stop: log and sysop"),
    Allowed("door/running/worker.py", None, "the workers' hand-over between processes: the log"),
    Allowed("door/running/reload.py", r"\): new rules, for games dealt from now", "the log"),
    Allowed(
        "door/running/control.py",
        r"permission denied|the door failed; see its log| is for the running door"
        r"|send needs a node and a text|kick needs a node|no such command: |nobody is on node "
        r"|ended by the sysop",
        "the control socket answers the sysop's command line; why a call ended, for the log",
    ),
    Allowed(
        "door/running/front.py",
        r"the door is starting; try again in a moment|exit status "
        r"|taken over by a log-in on another node|refused (?:RLOGIN|SSH) from "
        r"|503 Service Unavailable",
        "the control socket's answer to the sysop; a worker's end, a call's and a refusal, "
        "for the log; HTTP's status line",
    ),
    Allowed(
        "door/net/nodes.py",
        r"ended for a new caller|not logged in in time|taken over by a log-in on another node",
        "why a call ended, for the log (the caller reads the message beside it)",
    ),
    Allowed(
        "door/net/listening.py",
        r"shut down|time up|caller gone|line noise| more in the minute before\)",
        "why a call ended, for the log",
    ),
    Allowed(
        "door/net/clocks.py",
        r"no input for ",
        "why a call ended, for the log (the caller reads its farewell)",
    ),
    Allowed("door/net/terminal.py", r" bytes of input that did nothing", "the same"),
    Allowed(
        "door/net",
        r"(?:RLOGIN )?connect from |RLOGIN from |SSH connect from |ssh: wrong password for ",
        "where a call came from, for the log",
    ),
    Allowed("door/net/telnet.py", r"telnet commands", "what flooded the line, for the log"),
    Allowed(
        "door/net/web_guard.py",
        r"\r\n.*|\d{3} [A-Z].*|ended for a newer connection|sent no whole request in time"
        r"|a WebSocket frame it did not mask|a flood of input \(WebSocket frames\)"
        r"|socket\.accept\(\) out of system resource|hung up on .*|refused WEB from "
        r"|: no whole request within |: a request that could not be read \("
        r"| more in the minute before\)|: a request's head past "
        r"|A request's headers are | KB at most\.",
        "HTTP's own words (headers, status lines), faults for the log, and the answer to a "
        "request with more headers than any browser sends",
    ),
    Allowed(
        "door/net/web.py",
        r"<.*|public, max-age=|refused WEB from |: a WebSocket from a page of "
        r"| \(not the door's own, nor in \[web\] origins\)"
        r"|This address takes a WebSocket carrying telnet; the page is at /\.\n",
        "HTML and HTTP's words; the log; what a program (not a caller) that asks the "
        "WebSocket's address wrongly is told",
    ),
    Allowed(
        "door/scoreboard_page.py",
        r"<!DOCTYPE.*|</title>.*|<td data-label=\"|body\{.*",
        "HTML markup and its style sheet around the page's words",
    ),
)


@dataclass(frozen=True, slots=True)
class Literal:
    path: str
    line: int
    text: str


def modules(where: tuple[str, ...] = CALLER_FACING) -> Iterator[Path]:
    for name in where:
        path = ROOT / name
        yield from [path] if path.is_file() else sorted(path.rglob("*.py"))


def _called(node: ast.Call) -> str:
    function = node.func
    if isinstance(function, ast.Name):
        return function.id
    return function.attr if isinstance(function, ast.Attribute) else ""


def _raised(node: ast.Raise) -> str:
    error = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    if isinstance(error, ast.Name):
        return error.id
    return error.attr if isinstance(error, ast.Attribute) else ""


def unmarked(path: Path) -> Iterator[Literal]:
    """The literals of two words or more in ``path`` that are not marked, not a docstring
    (a module's, a class's, a function's, or an attribute's: any string standing alone as a
    statement) and not in a log call, a raise of an error no caller reads or a call whose
    texts no caller reads."""
    return unmarked_in(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())


def unmarked_in(source: str, relative: str) -> Iterator[Literal]:
    tree = ast.parse(source)
    skipped: set[int] = set()

    def skip(node: ast.AST) -> None:
        skipped.update(id(sub) for sub in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skipped.add(id(node.value))
        elif isinstance(node, ast.Call):
            name = _called(node)
            log_call = isinstance(node.func, ast.Attribute) and name in LOG_CALLS
            if name in MARKS or log_call or name in CALLS_NOT_FOR_CALLERS:
                skip(node)
        elif (
            isinstance(node, ast.Raise)
            and node.exc is not None
            and _raised(node) in ERRORS_NOT_FOR_CALLERS
        ):
            skip(node.exc)
    found = [
        Literal(relative, node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skipped
        and WORDS.search(MARKUP.sub(" ", node.value))
    ]
    yield from sorted(found, key=lambda literal: literal.line)


def _allowed_by(literal: Literal) -> Allowed | None:
    for allowed in NOT_FOR_CALLERS:
        inside = literal.path == allowed.where or literal.path.startswith(allowed.where + "/")
        if inside and (allowed.texts is None or re.fullmatch(allowed.texts, literal.text, re.S)):
            return allowed
    return None


def test_every_text_a_caller_reads_is_marked_for_translation() -> None:
    left = []
    used = set()
    for path in modules():
        for literal in unmarked(path):
            allowed = _allowed_by(literal)
            if allowed is None:
                left.append(f"{literal.path}:{literal.line}: {literal.text[:70]!r}")
            else:
                used.add(allowed)
    if left:
        pytest.fail(f"{len(left)} texts not marked for translation:\n" + "\n".join(left))
    stale = [allowed for allowed in NOT_FOR_CALLERS if allowed not in used]
    assert not stale, f"allowed texts no longer in the code (take them off the list): {stale}"


def test_the_check_finds_what_it_is_for() -> None:
    sample = (
        '"""A docstring of many words."""\n'
        "from door.words import _, N_\n"
        'LABEL = N_("a kept label")\n'
        "TIMEOUT = 3.0\n"
        '"""An attribute\'s docstring."""\n'
        'log.info("a line for the log %s", x)\n'
        'raise ValueError("a programming error")\n'
        'shown = _("Your game is saved.")\n'
        'left = "Press any key"\n'
        'glued = f"You won {n} games"\n'
        'raise Refusal("That card can\'t go there")\n'
    )
    found = [literal.text for literal in unmarked_in(sample, "door/views/sample.py")]
    assert found == ["Press any key", "You won ", "That card can't go there"]


# -- what Babel can extract -----------------------------------------------------------------


def _literal(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _variable(node: ast.expr) -> bool:
    """A text kept elsewhere (where N_() marked it): a name, an attribute, an item, a table's
    lookup; not a text made here (a literal in it, an f-string, texts added or formatted)."""
    return not any(_made_here(sub) for sub in ast.walk(node))


def _made_here(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.Attribute):
        return node.attr in ("format", "format_map", "join")
    return isinstance(node, ast.JoinedStr | ast.BinOp)


def unextractable(path: Path) -> Iterator[str]:
    """The marking calls in ``path`` whose text Babel can't take from the code: ``_()`` of
    anything but a literal or a variable (an f-string, a text glued or formatted first, a
    choice between two texts), ``N_()`` or a keyword's call of anything but a literal,
    ``ngettext()`` whose two forms are not literals."""
    relative = path.relative_to(ROOT).as_posix()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        name, arguments = node.func.id, node.args
        if name == "_":
            fine = len(arguments) == 1 and (_literal(arguments[0]) or _variable(arguments[0]))
        elif name == "ngettext":
            fine = len(arguments) == 3 and _literal(arguments[0]) and _literal(arguments[1])
        elif name == "N_" or name in KEYWORDS:
            place = KEYWORDS.get(name, 1)
            fine = len(arguments) >= place and _literal(arguments[place - 1])
        else:
            continue
        if not fine:
            yield f"{relative}:{node.lineno}: {ast.unparse(node)[:90]}"


def test_every_marked_text_is_one_babel_extracts() -> None:
    found = [problem for path in modules(("door", "ansi")) for problem in unextractable(path)]
    assert not found, "texts Babel can't extract (see door/words):\n" + "\n".join(found)


def test_a_variable_given_to_gettext_holds_a_text_marked_elsewhere() -> None:
    """Where ``_()`` is given a variable, the module, or a door module it imports from, marks
    texts for the catalog (``N_()`` or a keyword): the text the variable holds is one of them.
    (door/words itself is left out: its machinery says whatever text it is handed.)"""
    lonely = []
    for path in modules(("door", "ansi")):
        if path.is_relative_to(ROOT / "door" / "words"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        given = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "_"
            and node.args
            and _variable(node.args[0])
        ]
        if given and not _marks_elsewhere(tree):
            lonely += [f"{path.relative_to(ROOT)}:{node.lineno}" for node in given]
    assert not lonely, "_() of a variable where no text is marked to hold:\n" + "\n".join(lonely)


def _marks(tree: ast.Module) -> bool:
    """Whether the module marks a text to be translated where it is shown."""
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and (node.func.id == "N_" or node.func.id in KEYWORDS)
        for node in ast.walk(tree)
    )


def _marks_elsewhere(tree: ast.Module) -> bool:
    """Whether the module, or a door module it imports from, marks texts."""
    if _marks(tree):
        return True
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("door."):
            continue
        source = ROOT / Path(*(node.module or "").split("."))
        for file in (source.with_suffix(".py"), source / "__init__.py"):
            if file.is_file() and _marks(ast.parse(file.read_text(encoding="utf-8"))):
                return True
    return False


# -- the formatting fields a translation keeps ----------------------------------------------

PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdifrxXeEgGc%]")


def fields(text: str) -> list[str]:
    """The ``str.format`` fields of ``text`` in a canonical form ({} numbered in order), and
    its ``%`` conversions; raises ValueError for a brace ``str.format`` can't read."""
    found: list[str] = []
    automatic = 0
    for _literal_text, name, spec, conversion in string.Formatter().parse(text):
        if name is None:
            continue
        if name == "":
            name, automatic = str(automatic), automatic + 1
        found.append(f"{{{name}!{conversion or ''}:{spec or ''}}}")
    return sorted(found)


def _languages() -> list[str]:
    return list(shipped_languages()[1:])


def _translated(language: str) -> Iterator[tuple[Message, list[str], list[str]]]:
    """Each entry of the template with the language's translation: English and its forms."""
    catalog: Catalog = read_catalog(LOCALE / language / "LC_MESSAGES" / "canfield.po", language)
    for entry in template():
        if not entry.id:
            continue
        own = catalog.get(entry.id)
        forms = [] if own is None else [own.string] if isinstance(own.string, str) else own.string
        forms = [form for form in forms if form]
        if forms:
            yield entry, [entry.id] if isinstance(entry.id, str) else list(entry.id), forms


@pytest.mark.parametrize("language", _languages())
def test_every_translation_keeps_its_format_fields_and_percent_signs(language: str) -> None:
    broken = []
    for _entry, english, forms in _translated(language):
        wanted = _fields_of(english)
        percents = {sign for text in english for sign in PERCENT.findall(text)}
        if wanted is None:  # braces that are text, not fields: never formatted
            continue
        given: set[str] = set()
        for form in forms:
            try:
                given.update(fields(form))
            except ValueError as error:  # str.format would fail on the caller's screen
                broken.append(f"{form!r}: {error} (for {english[0]!r})")
            if not set(PERCENT.findall(form)) <= percents:
                broken.append(f"{form!r}: % signs the English has not (for {english[0]!r})")
        # A singular may leave out the count ("eine Karte"): the forms are held together.
        if given != wanted:
            broken.append(f"{forms[0]!r}: fields {sorted(given)}, not {sorted(wanted)}")
        if not percents <= {sign for form in forms for sign in PERCENT.findall(form)}:
            broken.append(f"{forms[0]!r} lost a % sign of {english[0]!r}")
    assert not broken, "\n".join(broken)


def _fields_of(english: list[str]) -> set[str] | None:
    try:
        return {field for text in english for field in fields(text)}
    except ValueError:
        return None


# -- texts in a fixed place -----------------------------------------------------------------

AT_MOST = re.compile(r"at most (\d+) (?:characters|columns)")


def width(text: str) -> int:
    """The columns ``text`` takes on a screen (an umlaut one, as every charset draws it), its
    ``{fields}`` left out: the room is the words' (a field's value is the caller's, a card's,
    a number's)."""
    return len(cells(re.sub(r"\{[^{}]*\}", "", text))) // 2  # a cell: a character, a colour


def _room(entry: Message) -> int | None:
    """The columns a translator comment gives the text, if it gives any."""
    for comment in entry.auto_comments:
        found = AT_MOST.search(comment)
        if found:
            return int(found[1])
    return None


def test_every_room_said_in_the_code_reaches_the_translator() -> None:
    """A translator comment reaches the template only on the line right above the marked
    text; and every English text fits the room its comment gives it."""
    with (ROOT / "babel.cfg").open() as file:
        method_map, options_map = parse_mapping_cfg(file)
    extracted = sum(
        1
        for _file, _line, _message, comments, _context in extract_from_dir(
            ROOT,
            method_map,
            options_map,
            keywords={
                **DEFAULT_KEYWORDS,
                **{name: None if place == 1 else (place,) for name, place in KEYWORDS.items()},
            },
            comment_tags=("TRANSLATORS:",),
        )
        if any(AT_MOST.search(comment) for comment in comments)
    )
    said = sum(
        len(re.findall(r"#\s*TRANSLATORS:.*at most \d+ (?:characters|columns)", path.read_text()))
        for path in modules(("door", "ansi"))
    )
    assert extracted == said, "a TRANSLATORS comment not right above its text's call"
    too_long = [
        f"{text!r}: {width(text)} columns, room for {room}"
        for entry in template()
        if entry.id and (room := _room(entry)) is not None
        for text in ([entry.id] if isinstance(entry.id, str) else entry.id)
        if width(text) > room
    ]
    assert not too_long, "English texts longer than their comment allows:\n" + "\n".join(too_long)


@pytest.mark.parametrize("language", _languages())
def test_a_text_in_a_fixed_place_fits_its_room_in_every_language(language: str) -> None:
    too_long = [
        f"{form!r}: {width(form)} columns, room for {room} (for {english[0]!r})"
        for entry, english, forms in _translated(language)
        if (room := _room(entry)) is not None
        for form in forms
        if width(form) > room
    ]
    assert not too_long, "\n".join(too_long)
