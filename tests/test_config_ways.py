"""sysop.toml's [ssh] and [rlogin] sections: off as shipped, one line to turn on, and the
mistakes a sysop may make with a linked board."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest

from door.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "sysop.toml"

BOARD = """
[rlogin]
port = 5513

[[rlogin.boards]]
tag = "ABC"
name = "Another Board"
addresses = ["192.0.2.7", "2001:db8::/64"]
secret = "s3cret-shared"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sysop.toml"
    path.write_text(text, encoding="utf-8")
    return path


def refused(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    return str(caught.value)


def test_shipped_file_has_ssh_and_rlogin_off_and_ssh_is_one_line_to_turn_on(tmp_path):
    shipped = load_config(SHIPPED)
    assert shipped.ssh.port is None and shipped.rlogin.port is None
    assert shipped.rlogin.boards == ()
    assert shipped.host_key == shipped.server.database.parent / "canfield-ssh-host-key"
    text = SHIPPED.read_text().replace("\n# port = 2222\n", "\nport = 2222\n")
    assert load_config(write(tmp_path, text)).ssh.port == 2222


def test_shipped_linked_board_example_works_once_uncommented(tmp_path):
    text = SHIPPED.read_text()
    for line in ("port = 5513", "[[rlogin.boards]]", 'tag = "EXAMPLE"', 'name = "Example BBS"'):
        text = text.replace(f"# {line}\n", f"{line}\n")
    text = text.replace('# addresses = ["192.0.2.7"]', 'addresses = ["192.0.2.7"]')
    text = text.replace('# secret = "change-this-secret"', 'secret = "change-this-secret"')
    config = load_config(write(tmp_path, text))
    assert config.rlogin.port == 5513
    [board] = config.rlogin.boards
    assert (board.tag, board.name, board.secret) == ("EXAMPLE", "Example BBS", "change-this-secret")


def test_host_key_is_taken_beside_the_file(tmp_path):
    config = load_config(write(tmp_path, '[ssh]\nport = 22\nhost_key = "keys/door_key"\n'))
    assert config.host_key == tmp_path / "keys" / "door_key"


def test_a_linked_board(tmp_path):
    config = load_config(write(tmp_path, BOARD))
    [board] = config.rlogin.boards
    assert board.addresses == (
        ipaddress.ip_network("192.0.2.7/32"),
        ipaddress.ip_network("2001:db8::/64"),
    )
    assert board.admits("192.0.2.7") and board.admits("::ffff:192.0.2.7")
    assert board.admits("2001:db8::42") and not board.admits("192.0.2.8")
    assert config.rlogin.board("abc") is board and config.rlogin.board("XYZ") is None
    assert "s3cret" not in repr(board)
    assert board.max_calls is None  # as many as there are nodes
    limited = BOARD.replace('name = "Another Board"', 'name = "Another Board"\nmax_calls = 6')
    [board] = load_config(write(tmp_path, limited)).rlogin.boards
    assert board.max_calls == 6


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ('tag = "ABC"', 'tag = "A B"'),
            'rlogin.boards[1].tag = "A B" is not accepted: 1 to 16 letters, digits, - or _',
        ),
        (
            ('addresses = ["192.0.2.7", "2001:db8::/64"]', 'addresses = ["bbs.example"]'),
            'rlogin.boards[1].addresses = "bbs.example" is not accepted: a list of IP addresses',
        ),
        (
            ('addresses = ["192.0.2.7", "2001:db8::/64"]', "addresses = []"),
            "rlogin.boards[1].addresses = [] is not accepted",
        ),
        (
            ('secret = "s3cret-shared"', 'secret = "short"'),
            'rlogin.boards[1].secret = "..." is not accepted: 8 to 64 ASCII letters',
        ),
        (
            ('secret = "s3cret-shared"\n', ""),
            "rlogin.boards[1].secret is missing: every linked board needs tag, name, "
            "addresses, secret",
        ),
        (
            ('name = "Another Board"', 'name = "Another Board"\nsysop = "Me"'),
            'rlogin.boards[1].sysop = "Me" is not a setting; a linked board takes tag, name',
        ),
        (("port = 5513", "port = 70000"), "rlogin.port = 70000 is not accepted"),
        (
            ('name = "Another Board"', 'name = "Another Board"\nmax_calls = 0'),
            "rlogin.boards[1].max_calls = 0 is not accepted: a whole number of at least 1",
        ),
    ],
)
def test_mistakes_with_a_linked_board(tmp_path, change, message):
    old, new = change
    assert old in BOARD
    assert message in refused(write(tmp_path, BOARD.replace(old, new)))


def test_two_boards_cannot_share_a_tag(tmp_path):
    second = BOARD.split("\n", 3)[3].replace("Another Board", "Third Board").replace("ABC", "abc")
    message = refused(write(tmp_path, BOARD + second))
    expected = 'rlogin.boards[2].tag = "abc" is not accepted: a tag no other linked board has'
    assert expected in message


def test_unknown_ssh_setting(tmp_path):
    message = refused(write(tmp_path, "[ssh]\nport = 22\nbanner = 1\n"))
    assert "ssh.banner = 1 is not a setting; [ssh] takes port, host_key" in message


def test_a_reload_takes_new_linked_boards_at_once_and_new_ports_at_a_restart(tmp_path):
    from door.running.reload import compare

    running = load_config(write(tmp_path, BOARD))
    second = BOARD.split("\n", 3)[3].replace("Another Board", "Third Board").replace("ABC", "XYZ")
    fresh_text = BOARD.replace("port = 5513", "port = 6000") + second + "[ssh]\nport = 2222\n"
    reloaded = compare(running, load_config(write(tmp_path, fresh_text)))
    assert [board.tag for board in reloaded.config.rlogin.boards] == ["ABC", "XYZ"]
    assert reloaded.config.rlogin.port == 5513 and reloaded.config.ssh.port is None
    assert reloaded.changes == ("rlogin.boards: ABC -> ABC, XYZ",)
    assert reloaded.restart == ("ssh.port: none -> 2222", "rlogin.port: 5513 -> 6000")
    assert all("s3cret" not in line for line in reloaded.changes + reloaded.restart)


def test_shipped_file_has_the_web_on_and_one_line_turns_it_off(tmp_path):
    shipped = load_config(SHIPPED)
    assert shipped.web.port == 8080 and shipped.web.assets is None
    text = SHIPPED.read_text().replace("\nport = 8080\n", "\n# port = 8080\n")
    assert load_config(write(tmp_path, text)).web.port is None


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ('origins = "https://bbs.example.org"', "web.origins = "),
        ('origins = ["bbs.example.org"]', "a scheme and host"),
        ('origins = ["https://bbs.example.org/fterm"]', "a scheme and host"),
        ('proxies = ["localhost"]', "web.proxies = \"localhost\" is not accepted: a list of IP"),
        ('certificate = "cert.pem"', "web.key is missing: TLS needs both files"),
        ('certificate = "cert.pem"\nkey = "key.pem"', "can't be used for TLS"),
        ('assets = "xterm"', "has no xterm/lib/xterm.js"),
        ("port = 70000", "web.port = 70000 is not accepted: a whole number from 0 to 65535"),
    ],
)
def test_web_mistakes_are_named_with_what_would_do(tmp_path, setting, words):
    (tmp_path / "xterm").mkdir()
    (tmp_path / "cert.pem").write_text("not a certificate\n")
    (tmp_path / "key.pem").write_text("not a key\n")
    message = refused(write(tmp_path, f"[web]\n{setting}\n"))
    assert words in message
    assert message.startswith(str(tmp_path / "sysop.toml"))


def test_web_settings_are_read_beside_the_file(tmp_path):
    text = '[web]\nport = 8443\norigins = ["https://BBS.example.org"]\nproxies = ["10.0.0.0/8"]\n'
    web = load_config(write(tmp_path, text)).web
    assert web.port == 8443 and web.origins == ("https://bbs.example.org",)
    assert web.proxies == (ipaddress.ip_network("10.0.0.0/8"),)
