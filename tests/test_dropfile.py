"""Drop files as BBS software writes them, and what the sysop sees when one is wrong."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from door.net.dropfile import (
    COMM_LOCAL,
    COMM_SERIAL,
    COMM_TELNET,
    DropFileError,
    node_of,
    parse_dropfile,
    read_dropfile,
)


def write(
    folder: Path, name: str, lines: list[str], *, end: str = "\r\n", tail: bytes = b"\x1a"
) -> Path:
    """A drop file as a DOS-era BBS writes it: CP437, CR LF, a ^Z at the end."""
    path = folder / name
    path.write_bytes(end.join(lines).encode("cp437") + end.encode() + tail)
    return path


def refused(path: Path, kind: str | None = None) -> str:
    with pytest.raises(DropFileError) as caught:
        read_dropfile(path, kind)
    return str(caught.value)


DOOR32 = [
    "2",  # 1 telnet
    "1784",  # 2 socket handle
    "38400",  # 3 baud
    "Mystic BBS 1.12 A48",  # 4 BBS software
    "17",  # 5 user record
    "Zoë Caller",  # 6 real name
    "Zoë",  # 7 alias
    "30",  # 8 security level
    "45",  # 9 minutes left
    "1",  # 10 ANSI
    "3",  # 11 node
]

DOOR_SYS = [
    "COM1:",
    "2400",
    "8",
    "4",
    "19200",
    "Y",
    "Y",
    "Y",
    "Y",
    "Rick Greer",  # 10 real name
    "Lewisville, Tx.",
    "214 221-7814",
    "214 221-7814",
    "PASSWORD",
    "110",  # 15 security level
    "1456",
    "03/14/88",
    "7560",  # 18 seconds left
    "126",  # 19 minutes left
    "GR",  # 20 graphics
    "23",  # 21 page length
    "Y",
    "1,2,3,4,5,6,7",
    "7",
    "01/01/99",
    "1",
    "Y",
    "0",
    "0",
    "0",
    "999999",
    "10/22/88",
    "G:\\GAP\\MAIN",
    "G:\\GAP\\GEN",
    "Michael",
    "Stud",  # 36 alias
    "00:05",
    "Y",
    "N",
    "Y",
    "14",
    "0",
    "02/02/94",
    "12:34",
    "12:00",
    "32768",
    "0",
    "0",
    "0",
    "None",
    "0",
    "0",
]

DORINFO = [
    "Dark Realms BBS",  # 1 BBS name
    "Jane",  # 2 sysop first name
    "Sysop",  # 3 sysop last name
    "COM1",  # 4 COM port
    "38400 BAUD,N,8,1",  # 5 baud
    "0",  # 6 network
    "BOB",  # 7 first name
    "SMITH",  # 8 last name
    "Springfield, IL",  # 9 city
    "1",  # 10 ANSI
    "50",  # 11 security level
    "59",  # 12 minutes left
    "-1",  # 13 FOSSIL
]


def changed(lines: list[str], **at: str) -> list[str]:
    """A copy with line N (1-based) replaced: changed(lines, l7="x")."""
    copy = list(lines)
    for key, value in at.items():
        copy[int(key[1:]) - 1] = value
    return copy


# --- DOOR32.SYS -----------------------------------------------------------------------------------


def test_door32_sys(tmp_path: Path) -> None:
    path = write(tmp_path, "DOOR32.SYS", [line + "  " for line in DOOR32])
    drop = read_dropfile(path)
    assert drop.kind == "door32"
    assert drop.path == path
    assert (drop.node, drop.alias, drop.real_name) == (3, "Zoë", "Zoë Caller")
    assert drop.bbs_name == "Mystic BBS 1.12 A48"
    assert (drop.security_level, drop.seconds_left, drop.minutes_left) == (30, 2700, 45)
    assert drop.ansi is True
    assert (drop.comm_type, drop.handle, drop.baud) == (COMM_TELNET, 1784, 38400)
    assert drop.page_length is None
    assert not drop.local


def test_door32_local_and_ascii(tmp_path: Path) -> None:
    path = write(
        tmp_path, "door32.sys", changed(DOOR32, l1="0", l2="0", l3="0", l10="0"), end="\n", tail=b""
    )
    drop = read_dropfile(path)
    assert (drop.comm_type, drop.handle, drop.ansi, drop.local) == (COMM_LOCAL, None, False, True)


def test_door32_without_an_alias_uses_the_real_name(tmp_path: Path) -> None:
    drop = read_dropfile(write(tmp_path, "DOOR32.SYS", changed(DOOR32, l7="")))
    assert drop.alias == "Zoë Caller"


def test_names_are_cleaned_and_cut_to_40(tmp_path: Path) -> None:
    lines = changed(DOOR32, l6="X" * 60, l7="\x1b[2J\x1b[31mEvil\x07 Guy\x1b]0;pwned\x07")
    drop = read_dropfile(write(tmp_path, "DOOR32.SYS", lines))
    assert drop.alias == "Evil Guy"
    assert drop.real_name == "X" * 40


# --- DOOR.SYS -------------------------------------------------------------------------------------


def test_door_sys_52_lines(tmp_path: Path) -> None:
    drop = read_dropfile(write(tmp_path, "DOOR.SYS", DOOR_SYS))
    assert drop.kind == "door.sys"
    assert (drop.node, drop.alias, drop.real_name) == (4, "Stud", "Rick Greer")
    assert (drop.security_level, drop.seconds_left) == (110, 7560)
    assert (drop.ansi, drop.page_length, drop.baud) == (True, 23, 2400)
    assert (drop.comm_type, drop.com_port, drop.handle) == (COMM_SERIAL, 1, None)
    assert drop.bbs_name is None


def test_door_sys_without_an_alias_uses_the_real_name(tmp_path: Path) -> None:
    drop = read_dropfile(write(tmp_path, "door.sys", changed(DOOR_SYS, l36="   ")))
    assert drop.alias == "Rick Greer"


def test_door_sys_original_31_line_form(tmp_path: Path) -> None:
    drop = read_dropfile(write(tmp_path, "DOOR.SYS", DOOR_SYS[:31]))
    assert (drop.alias, drop.real_name, drop.node) == ("Rick Greer", "Rick Greer", 4)


def test_door_sys_local_and_no_graphics(tmp_path: Path) -> None:
    drop = read_dropfile(write(tmp_path, "DOOR.SYS", changed(DOOR_SYS, l1="COM0:", l20="ng")))
    assert (drop.comm_type, drop.com_port, drop.ansi) == (COMM_LOCAL, 0, False)


# --- DORINFOx.DEF ---------------------------------------------------------------------------------


def test_dorinfo1_def(tmp_path: Path) -> None:
    drop = read_dropfile(write(tmp_path, "DORINFO1.DEF", DORINFO))
    assert drop.kind == "dorinfo"
    assert (drop.node, drop.alias, drop.real_name) == (1, "BOB SMITH", "BOB SMITH")
    assert drop.bbs_name == "Dark Realms BBS"
    assert (drop.security_level, drop.seconds_left, drop.ansi) == (50, 59 * 60, True)
    assert (drop.baud, drop.comm_type, drop.com_port) == (38400, COMM_SERIAL, 1)


@pytest.mark.parametrize(
    ("name", "node"), [("DORINFO7.DEF", 7), ("dorinfoa.def", 10), ("DORINFOZ.DEF", 35)]
)
def test_dorinfo_node_comes_from_the_file_name(tmp_path: Path, name: str, node: int) -> None:
    assert read_dropfile(write(tmp_path, name, DORINFO)).node == node


def test_dorinfo_alias_as_first_name_only_and_local(tmp_path: Path) -> None:
    lines = changed(DORINFO, l4="COM0", l5="0 BAUD,N,8,1", l7="Shadow", l8="", l10="0")
    drop = read_dropfile(write(tmp_path, "DORINFO1.DEF", lines))
    assert (drop.alias, drop.comm_type, drop.baud, drop.ansi) == ("Shadow", COMM_LOCAL, 0, False)


# --- names and kinds ------------------------------------------------------------------------------


def test_kind_can_be_given_for_any_file_name(tmp_path: Path) -> None:
    path = write(tmp_path, "caller.txt", DOOR32)
    assert read_dropfile(path, "door32").alias == "Zoë"
    assert read_dropfile(write(tmp_path, "x.def", DORINFO), "DORINFO").node == 1


def test_unknown_file_name_without_a_kind(tmp_path: Path) -> None:
    path = write(tmp_path, "caller.txt", DOOR32)
    message = refused(path)
    assert message.startswith(f"{path}: can't tell the drop file's format from its name")


def test_unknown_kind(tmp_path: Path) -> None:
    path = write(tmp_path, "DOOR32.SYS", DOOR32)
    assert "unknown drop file format 'pcboard.sys'" in refused(path, "pcboard.sys")


# --- what a sysop sees when a file is wrong -------------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "DOOR32.SYS"
    assert refused(path) == f"{path}: no such file"


def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "DOOR.SYS"
    path.mkdir()
    assert refused(path).startswith(f"{path}: can't be read: ")


def test_short_door32(tmp_path: Path) -> None:
    path = write(tmp_path, "DOOR32.SYS", DOOR32[:10])
    assert refused(path) == f"{path}: has 10 lines, DOOR32.SYS needs 11 (line 11 is missing)"


def test_short_door_sys(tmp_path: Path) -> None:
    path = write(tmp_path, "DOOR.SYS", DOOR_SYS[:15])
    assert refused(path) == f"{path}: has 15 lines, DOOR.SYS needs 21 (lines 16-21 are missing)"


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "DORINFO1.DEF"
    path.write_bytes(b"\x1a")
    assert refused(path) == f"{path}: has 0 lines, DORINFOx.DEF needs 12 (lines 1-12 are missing)"


@pytest.mark.parametrize(
    ("name", "lines", "line", "expected", "found"),
    [
        ("DOOR32.SYS", changed(DOOR32, l11="two"), 11, "a node number of at least 1", "two"),
        ("DOOR32.SYS", changed(DOOR32, l11="0"), 11, "a node number of at least 1", "0"),
        (
            "DOOR32.SYS",
            changed(DOOR32, l1="telnet"),
            1,
            "comm type 0 (local), 1 (serial) or 2",
            "telnet",
        ),
        ("DOOR32.SYS", changed(DOOR32, l9="-5"), 9, "minutes left", "-5"),
        ("DOOR32.SYS", changed(DOOR32, l8="9" * 5000), 8, "a security level", "9" * 40 + "..."),
        ("DOOR32.SYS", changed(DOOR32, l10="9"), 10, "emulation 0 (ASCII)", "9"),
        ("DOOR32.SYS", changed(DOOR32, l6="", l7=""), 7, "the caller's alias", ""),
        ("DOOR32.SYS", changed(DOOR32, l6="", l7="\x1b[2J"), 7, "the caller's alias", "\\x1b[2J"),
        ("DOOR.SYS", changed(DOOR_SYS, l4="node 4"), 4, "a node number", "node 4"),
        ("DOOR.SYS", changed(DOOR_SYS, l1="PORT1"), 1, "a COM port such as COM1:", "PORT1"),
        ("DOOR.SYS", changed(DOOR_SYS, l18="lots"), 18, "seconds left", "lots"),
        ("DOOR.SYS", changed(DOOR_SYS, l20="VGA"), 20, "graphics mode GR, NG, 7E or RIP", "VGA"),
        ("DOOR.SYS", changed(DOOR_SYS, l10="", l36=""), 36, "the caller's alias or name", ""),
        ("DORINFO1.DEF", changed(DORINFO, l5="fast"), 5, "a baud rate such as 38400", "fast"),
        ("DORINFO1.DEF", changed(DORINFO, l7="", l8=""), 7, "the caller's first name", ""),
        ("DORINFO1.DEF", changed(DORINFO, l11="high"), 11, "a security level", "high"),
    ],
)
def test_bad_line(
    tmp_path: Path, name: str, lines: list[str], line: int, expected: str, found: str
) -> None:
    path = write(tmp_path, name, lines)
    message = refused(path)
    assert message.startswith(f"{path}: line {line}: expected {expected}")
    assert message.endswith(f", found '{found}'")


def test_first_bad_line_is_the_one_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "DOOR32.SYS", changed(DOOR32, l3="fast", l11="x"))
    assert refused(path).startswith(f"{path}: line 3: ")


def test_garbage_bytes(tmp_path: Path) -> None:
    path = tmp_path / "DOOR32.SYS"
    path.write_bytes(bytes(range(256)) * 8)
    assert refused(path).startswith(f"{path}: ")
    path.write_bytes(b"\xff\xfe\x00\x9b2J\xe2\x94\r\n" * 20)
    message = refused(path)
    assert message.startswith(f"{path}: line 1: expected comm type")
    assert "\x9b" not in message and "\x00" not in message


def test_huge_file(tmp_path: Path) -> None:
    path = tmp_path / "DOOR.SYS"
    path.write_bytes(b"1\r\n" * 100_000)
    assert "too large for a drop file" in refused(path)


@pytest.mark.parametrize("kind", ["door32", "door.sys", "dorinfo"])
@given(data=st.binary(max_size=600))
def test_any_bytes_give_a_drop_file_or_drop_file_error(kind: str, data: bytes) -> None:
    with contextlib.suppress(DropFileError):
        parse_dropfile(data, kind, "DORINFO1.DEF")


@pytest.mark.parametrize(
    ("kind", "good"), [("door32", DOOR32), ("door.sys", DOOR_SYS), ("dorinfo", DORINFO)]
)
@pytest.mark.slow
@given(data=st.data())
def test_any_line_changed_gives_a_drop_file_or_drop_file_error(
    kind: str, good: list[str], data: st.DataObject
) -> None:
    lines = list(good)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(lines) - 1))
        lines[at] = data.draw(st.text(max_size=12))
    try:
        parse_dropfile("\r\n".join(lines).encode("utf-8", "surrogatepass"), kind)
    except DropFileError as error:
        assert ": line " in str(error) or ": has " in str(error)


def test_door32_handle_minus_one_means_none(tmp_path):
    lines = ["2", "-1", "38400", "ENiGMA 0.0.14", "7", "Real Name", "Zed", "30", "60", "1", "3"]
    path = tmp_path / "DOOR32.SYS"
    path.write_text("\r\n".join(lines) + "\r\n")
    drop = read_dropfile(path)
    assert drop.handle is None and drop.alias == "Zed"


def test_dorinfo0_is_node_ten(tmp_path):
    assert node_of(tmp_path / "DORINFO0.DEF") == 10
    assert node_of(tmp_path / "dorinfoa.def") == 10
    assert node_of(tmp_path / "DORINFO3.DEF") == 3
