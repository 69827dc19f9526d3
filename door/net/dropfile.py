"""Drop files: what a BBS tells a door about the caller it hands over.

Three formats are read: DOOR32.SYS (11 lines), DOOR.SYS (the GAP format, 52 lines; the
original 31-line form too) and DORINFOx.DEF (13 lines). Each becomes a :class:`DropFile`
with the same fields, whichever BBS wrote it. Files are plain text, usually CP437, with CR LF
or LF line ends, trailing spaces and sometimes a ^Z (0x1A) end-of-file mark. Anything a
caller could have typed (names) is cleaned with :func:`ansi.text.sanitize`.

Every fault in a file gives a :class:`DropFileError` naming the file, the line, what was
expected there and what was found, so the sysop can see which setting of the BBS is wrong.

>>> lines = ["2", "5", "38400", "Mystic BBS 1.12", "7", "Joe Caller", "Joe", "20", "45",
...          "1", "3"]
>>> drop = parse_dropfile("\\r\\n".join(lines).encode(), "door32", "DOOR32.SYS")
>>> drop.alias, drop.node, drop.seconds_left, drop.ansi, drop.handle
('Joe', 3, 2700, True, 5)
>>> kind_of("dorinfo3.def"), node_of("DORINFOB.DEF")
('dorinfo', 11)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ansi.text import sanitize

COMM_LOCAL = 0
COMM_SERIAL = 1
COMM_TELNET = 2

KINDS = ("door32", "door.sys", "dorinfo")
NAME_LIMIT = 40

# Drop files are a few hundred bytes; a large file is not one, and is not read whole.
MAX_BYTES = 64 * 1024

_FILE_NAMES = {"door32": "DOOR32.SYS", "door.sys": "DOOR.SYS", "dorinfo": "DORINFOx.DEF"}
_DORINFO_NAME = re.compile(r"DORINFO([0-9A-Z])\.DEF", re.IGNORECASE)
_LINE_END = re.compile(r"\r\n|\n|\r")


class DropFileError(ValueError):
    """A drop file that can't be used; the message names the file, the line and the fault."""


@dataclass(frozen=True, slots=True)
class DropFile:
    """The caller and the connection, as the BBS described them.

    ``seconds_left`` is the caller's time left on this call. ``comm_type`` is 0 (local),
    1 (serial) or 2 (telnet). ``handle`` is DOOR32.SYS's comm or socket handle (None when
    local or for the other formats); ``com_port`` is the COM port number of DOOR.SYS and
    DORINFOx.DEF (0 for local, None for DOOR32.SYS). ``page_length`` is the caller's screen
    rows where the file says (DOOR.SYS only). ``bbs_name`` is the board's name (DORINFOx.DEF)
    or its software (DOOR32.SYS), None when the file has none.
    """

    kind: str
    path: Path
    node: int
    alias: str
    real_name: str
    bbs_name: str | None
    security_level: int
    seconds_left: int
    ansi: bool
    comm_type: int
    handle: int | None
    baud: int
    page_length: int | None
    com_port: int | None

    @property
    def minutes_left(self) -> int:
        return self.seconds_left // 60

    @property
    def local(self) -> bool:
        """The caller sits at the BBS's own keyboard."""
        return self.comm_type == COMM_LOCAL


def read_dropfile(path: str | Path, kind: str | None = None) -> DropFile:
    """Read a drop file; its kind is taken from its name unless given."""
    path = Path(path)
    kind = _checked_kind(kind, path) if kind is not None else kind_of(path)
    try:
        with path.open("rb") as file:
            data = file.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise DropFileError(f"{path}: no such file") from None
    except OSError as error:
        raise DropFileError(f"{path}: can't be read: {error.strerror or error}") from None
    if len(data) > MAX_BYTES:
        raise DropFileError(f"{path}: is over {MAX_BYTES} bytes, too large for a drop file")
    return parse_dropfile(data, kind, path)


def parse_dropfile(data: bytes, kind: str, path: str | Path = "<drop file>") -> DropFile:
    """Parse a drop file's bytes; ``path`` names it in errors (and gives DORINFO's node)."""
    path = Path(path)
    lines = _Lines(path, _FILE_NAMES[_checked_kind(kind, path)], split_lines(data))
    return _PARSERS[kind.lower()](lines)


def kind_of(path: str | Path) -> str:
    """The kind of drop file its name says: "door32", "door.sys" or "dorinfo"."""
    name = Path(path).name.upper()
    if name == "DOOR32.SYS":
        return "door32"
    if name == "DOOR.SYS":
        return "door.sys"
    if _DORINFO_NAME.fullmatch(name):
        return "dorinfo"
    raise DropFileError(
        f"{path}: can't tell the drop file's format from its name; expected DOOR32.SYS, "
        f"DOOR.SYS or DORINFOx.DEF, or the format given as one of {', '.join(KINDS)}"
    )


def node_of(path: str | Path) -> int:
    """DORINFOx.DEF's node: x is 1 to 9, or A to Z for nodes 10 to 35; 0 stands for node 10
    as some BBSes write it; 1 for other names."""
    match = _DORINFO_NAME.fullmatch(Path(path).name)
    if not match:
        return 1
    return 10 if match.group(1) == "0" else int(match.group(1), 36)


def split_lines(data: bytes) -> list[str]:
    """The file's lines, decoded, without line ends, stopping at a ^Z end-of-file mark.

    >>> split_lines(b"Zo\\x89 \\r\\nline two\\n\\x1a\\x00junk")
    ['Zoë ', 'line two']
    """
    data = data.split(b"\x1a", 1)[0]
    text = _decode(data)
    lines = _LINE_END.split(text)
    if lines and lines[-1] == "":
        lines.pop()  # the last line's terminator, not an empty line
    return lines


def _decode(data: bytes) -> str:
    # Newer boards write UTF-8; DOS-era ones CP437, where nearly no high byte forms UTF-8.
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp437", errors="replace")


def _checked_kind(kind: str, path: Path) -> str:
    if kind.lower() not in KINDS:
        raise DropFileError(
            f"{path}: unknown drop file format {kind!r}; expected one of " + ", ".join(KINDS)
        )
    return kind.lower()


# --- reading lines --------------------------------------------------------------------------

T = TypeVar("T")


class _Lines:
    """A drop file's lines, read by 1-based number, with errors that say where."""

    def __init__(self, path: Path, file_name: str, lines: Sequence[str]) -> None:
        self.path = path
        self.file_name = file_name
        self.lines = lines

    def require(self, last: int) -> None:
        """Refuse a file too short to hold line ``last``, the last one that must be read."""
        count = len(self.lines)
        if count < last:
            missing = f"line {last} is" if count + 1 == last else f"lines {count + 1}-{last} are"
            raise DropFileError(
                f"{self.path}: has {count} line{'' if count == 1 else 's'}, "
                f"{self.file_name} needs {last} ({missing} missing)"
            )

    def has(self, number: int) -> bool:
        return len(self.lines) >= number

    def text(self, number: int) -> str:
        return self.lines[number - 1].strip()

    def fault(self, number: int, expected: str) -> DropFileError:
        found = _shown(self.lines[number - 1]) if self.has(number) else ""
        return DropFileError(f"{self.path}: line {number}: expected {expected}, found '{found}'")

    def read(self, number: int, expected: str, convert: Callable[[str], T | None]) -> T:
        value = convert(self.text(number))
        if value is None:
            raise self.fault(number, expected)
        return value

    def whole(self, number: int, expected: str, low: int = 0, high: int | None = None) -> int:
        def convert(text: str) -> int | None:
            # Ten digits is past any count a drop file holds, and int() refuses huge ones.
            if not (text.isascii() and text.isdigit()) or len(text) > 10:
                return None
            value = int(text)
            return value if value >= low and (high is None or value <= high) else None

        return self.read(number, expected, convert)

    def name(self, number: int) -> str:
        return sanitize(self.lines[number - 1], limit=NAME_LIMIT)


def _shown(line: str) -> str:
    """A line as found, with control characters written out and cut short if long."""
    line = line.strip()
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in line[:NAME_LIMIT])
    return shown + ("..." if len(line) > NAME_LIMIT else "")


def _com_port(text: str) -> int | None:
    """The port number of COM1:, COM1 or com0 (0 is local)."""
    match = re.fullmatch(r"COM([0-9]{1,3}):?", text, re.IGNORECASE)
    return int(match.group(1)) if match else None


def _leading_number(text: str) -> int | None:
    """The number a line starts with: 38400 from 38400 BAUD,N,8,1."""
    match = re.match(r"([0-9]{1,10})(?![0-9])", text)
    return int(match.group(1)) if match else None


# --- the formats ----------------------------------------------------------------------------


def _door32(lines: _Lines) -> DropFile:
    lines.require(11)
    comm_type = lines.whole(1, "comm type 0 (local), 1 (serial) or 2 (telnet)", 0, 2)
    # Some BBSes write -1 for "no handle" when the door talks over standard I/O.
    no_handle = lines.lines[1].strip() == "-1"
    handle = None if no_handle else lines.whole(2, "a comm or socket handle (a whole number)")
    baud = lines.whole(3, "a baud rate (a whole number)")
    real_name = lines.name(6)
    alias = lines.name(7) or real_name
    if not alias:
        raise lines.fault(7, "the caller's alias")
    security_level = lines.whole(8, "a security level (a whole number)")
    minutes_left = lines.whole(9, "minutes left (a whole number)")
    emulation = lines.whole(
        10, "emulation 0 (ASCII), 1 (ANSI), 2 (Avatar), 3 (RIP) or 4 (Max Graphics)", 0, 4
    )
    return DropFile(
        kind="door32",
        path=lines.path,
        node=lines.whole(11, "a node number of at least 1", 1),
        alias=alias,
        real_name=real_name or alias,
        bbs_name=lines.name(4) or None,
        security_level=security_level,
        seconds_left=60 * minutes_left,
        ansi=emulation >= 1,  # Avatar, RIP and Max Graphics terminals all do ANSI too
        comm_type=comm_type,
        handle=None if comm_type == COMM_LOCAL else handle,
        baud=baud,
        page_length=None,
        com_port=None,
    )


# DOOR.SYS graphics modes: GR graphics (ANSI), NG none, 7E 7-bit even parity, RIP.
_DOOR_SYS_GRAPHICS = {"GR": True, "RIP": True, "NG": False, "7E": False}


def _door_sys(lines: _Lines) -> DropFile:
    # Lines 1-21 are read; line 36 (alias) only exists in the 52-line form, not in the
    # original 31-line one, which is still a good file: the real name stands in.
    lines.require(21)
    com_port = lines.read(1, "a COM port such as COM1: (COM0: for local)", _com_port)
    baud = lines.whole(2, "a baud rate (a whole number)")
    node = lines.whole(4, "a node number of at least 1", 1)
    real_name = lines.name(10)
    security_level = lines.whole(15, "a security level (a whole number)")
    seconds_left = lines.whole(18, "seconds left (a whole number)")
    lines.whole(19, "minutes left (a whole number)")
    ansi = lines.read(20, "graphics mode GR, NG, 7E or RIP", _graphics)
    page_length = lines.whole(21, "a page length (a whole number)")
    alias = (lines.name(36) if lines.has(36) else "") or real_name
    if not alias:
        raise lines.fault(36 if lines.has(36) else 10, "the caller's alias or name")
    return DropFile(
        kind="door.sys",
        path=lines.path,
        node=node,
        alias=alias,
        real_name=real_name or alias,
        bbs_name=None,
        security_level=security_level,
        seconds_left=seconds_left,
        ansi=ansi,
        comm_type=COMM_LOCAL if com_port == 0 else COMM_SERIAL,
        handle=None,
        baud=baud,
        page_length=page_length,
        com_port=com_port,
    )


def _graphics(text: str) -> bool | None:
    return _DOOR_SYS_GRAPHICS.get(text.upper())


def _dorinfo(lines: _Lines) -> DropFile:
    # Line 13 (the FOSSIL flag) is not read, so a file that ends at line 12 will do.
    lines.require(12)
    com_port = lines.read(4, "a COM port such as COM1 (COM0 for local)", _com_port)
    baud = lines.read(5, "a baud rate such as 38400 BAUD,N,8,1", _leading_number)
    # DORINFO has no alias line; boards that use aliases write it as the first name.
    name = " ".join(part for part in (lines.name(7), lines.name(8)) if part)[:NAME_LIMIT]
    if not name:
        raise lines.fault(7, "the caller's first name")
    graphics = lines.whole(10, "graphics 0 (ASCII), 1 (ANSI), 2 (Avatar) or 3 (RIP)", 0, 4)
    security_level = lines.whole(11, "a security level (a whole number)")
    minutes_left = lines.whole(12, "minutes left (a whole number)")
    return DropFile(
        kind="dorinfo",
        path=lines.path,
        node=node_of(lines.path),
        alias=name,
        real_name=name,
        bbs_name=lines.name(1) or None,
        security_level=security_level,
        seconds_left=60 * minutes_left,
        ansi=graphics >= 1,
        comm_type=COMM_LOCAL if com_port == 0 else COMM_SERIAL,
        handle=None,
        baud=baud,
        page_length=None,
        com_port=com_port,
    )


_PARSERS: dict[str, Callable[[_Lines], DropFile]] = {
    "door32": _door32,
    "door.sys": _door_sys,
    "dorinfo": _dorinfo,
}
