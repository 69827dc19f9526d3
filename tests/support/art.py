"""ANSI art files as a sysop's folder holds them, made by the tests: SAUCE records, iCE
colours, cursor moves, and art that must not reach a caller as it is."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from door.art import read_screens
from door.config import ArtConfig, Config

ESC = b"\x1b"


def sauce(
    title: str = "", *, width: int = 80, ice: bool = False, comments: tuple[str, ...] = ()
) -> bytes:
    """The EOF byte, a comment block (if any) and a SAUCE record for a character file."""
    record = (
        b"SAUCE00"
        + title.encode("cp437").ljust(35)
        + b"Sysop".ljust(20)
        + b"Board".ljust(20)
        + b"20261207"
        + bytes(4)
        + bytes([1, 1])  # Character, ANSi
        + width.to_bytes(2, "little")
        + (25).to_bytes(2, "little")
        + bytes(4)
        + bytes([len(comments), 1 if ice else 0])
        + bytes(22)
    )
    assert len(record) == 128
    block = b"COMNT" + b"".join(line.encode("cp437").ljust(64) for line in comments)
    return b"\x1a" + (block if comments else b"") + record


def art_folder(folder: Path, files: dict[str, bytes]) -> Path:
    """A folder of art: ``files`` by name (``welcome.ans`` ...)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


def with_art(config: Config, folder: Path) -> Config:
    """``config`` with the art in ``folder``, read as sysop.toml's [art] folder reads it."""
    return dataclasses.replace(config, art=ArtConfig(folder, read_screens(folder)))


# A welcome as art is drawn: a clear, a double-line box in colour, a heart, cursor moves, and
# a title in the SAUCE record; between its lines, what a hostile file might try: a cursor
# position query, a device attributes query and a window title.
WELCOME = (
    ESC
    + b"[2J"
    + ESC
    + b"[1;33;44m\xc9"
    + b"\xcd" * 20
    + b"\xbb"
    + ESC
    + b"[0m\r\n"
    + ESC
    + b"[1;33;44m\xba"
    + ESC
    + b"[0;31m \x03 ART WELCOME \x03"
    + ESC
    + b"[6n"
    + ESC
    + b"[1;33;44m"
    + ESC
    + b"[22;1H"
    + ESC
    + b"[2;22H\xba"
    + ESC
    + b"[0m\r\n"
    + ESC
    + b"[c"
    + ESC
    + b"]0;pwned\x07"
    + ESC
    + b"P1$r"
    + ESC
    + b"\\"
    + ESC
    + b"[1;33;44m\xc8"
    + b"\xcd" * 20
    + b"\xbc"
    + ESC
    + b"[0m\r\n"
    + sauce("Welcome to the board", ice=True, comments=("Drawn for the door",))
)
WELCOME_ASC = b"+--------------------+\r\n| PLAIN ART WELCOME  |\r\n+--------------------+\r\n"
# A menu's head of four rows in iCE colours (blink: a bright background), saved, moved from
# and restored to.
MENU = (
    ESC
    + b"[0;5;44;37m"
    + b" MENU ART ".center(40, b"\xb1")
    + ESC
    + b"[s\r\n"
    + ESC
    + b"[0m\r\n"
    + ESC
    + b"[2C\x04 \x05 \x06"
    + ESC
    + b"[u"
    + ESC
    + b"[1B"
    + ESC
    + b"[3D!"
    + b"\r\n\r\n"
    + ESC
    + b"[32m"
    + b"\xdc" * 40
    + sauce("Menu", ice=True)
)
GOODBYE = b"   ART GOODBYE " + b"\x03" * 3 + b"\r\n"
# 100 columns by its SAUCE record, and using them: no 80-column screen shows it whole.
WIDE = b"W" * 100 + b"\r\nWIDE ART\r\n" + sauce("Too wide", width=100)
# A contest page's head of one row, and a blank row under it.
CONTEST = b"\x1b[1;36m=== CONTEST ART ===\x1b[0m\r\n\r\n"
