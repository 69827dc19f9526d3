"""The web page in the board's language, over real HTTP on 127.0.0.1: a German board's page
is German through and through (its HTML, what door.js says, the 503 a browser shows), an
English board's is the English it was, and a reload that changes the board's language
serves the page in the new one."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import string
from html.parser import HTMLParser
from pathlib import Path

import aiohttp

import door.net.web as web_module
from door.app import App
from door.config import Config
from door.net.nodes import Nodes
from door.running.ways import Ways, open_ways
from door.solving.pool import Solving
from door.store import Store
from tests.support.door_server import door_config
from tests.support.german import english_left, german_sysop_toml, said, sysops_words
from tests.support.web_caller import web_caller

# The page as it was before it spoke the board's language, its words written in it.
ENGLISH_PAGE = Path(__file__).parent / "fixtures" / "web-page-en.html"
WORDS_BLOCK = re.compile(r'\n *<script type="application/json" id="words">(.*?)</script>')


@dataclasses.dataclass
class ReloadedDoor:
    """A door whose settings a test reloads, as the running door's reload replaces them."""

    config: Config

    def game_ended(self) -> None:
        """No bulletins are kept here."""


@dataclasses.dataclass
class Board:
    ways: Ways
    store: Store
    solving: Solving
    door: ReloadedDoor

    @property
    def url(self) -> str:
        assert self.ways.web is not None
        return f"http://127.0.0.1:{self.ways.web.port}/"

    def reload(self, config: Config) -> None:
        """Take on ``config`` as the door's reload does."""
        self.door.config = config
        self.ways.reconfigure(config)

    async def close(self) -> None:
        await self.ways.close("The door is shutting down.", grace=2.0)
        await self.solving.close()
        await self.store.close()


async def open_board(config: Config) -> Board:
    store = await Store.open(config.server.database)
    solving = Solving(store, config)
    door = ReloadedDoor(config)
    ways = await open_ways(App(store, door, solving, Nodes(config.server)), detect_timeout=0.5)
    return Board(ways, store, solving, door)


def with_web(config: Config) -> Config:
    return dataclasses.replace(config, web=dataclasses.replace(config.web, port=0))


def english_board(tmp_path: Path) -> Config:
    return with_web(door_config(tmp_path))


def german_board(tmp_path: Path) -> Config:
    """The shipped sysop.toml with ``[words] language = "de"`` (and the sysop's names German)."""
    return with_web(door_config(tmp_path, source=german_sysop_toml(tmp_path)))


async def fetched(url: str) -> tuple[str, str]:
    """The page at ``url`` and its ETag."""
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        assert response.status == 200
        return await response.text(), response.headers["ETag"]


def words_of(page: str) -> dict:
    """What door.js says, as the page gives it."""
    found = WORDS_BLOCK.search(page)
    assert found is not None, "no words block in the page"
    return json.loads(found[1])


def flattened(words: dict) -> list[str]:
    return [
        text
        for value in words.values()
        for text in (flattened(value) if isinstance(value, dict) else [value])
    ]


class PageText(HTMLParser):
    """The texts a browser shows of a page, or reads out (its title, an aria-label): each
    run of text between tags, but the scripts'."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_script = tag == "script"
        self.texts += [value for name, value in attrs if name == "aria-label" and value]

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        text = " ".join(data.split())
        if text and not self._in_script:
            self.texts.append(text)


def shown(page: str) -> list[str]:
    parser = PageText()
    parser.feed(page)
    return parser.texts


def spaced(text: str) -> str:
    return " ".join(text.split())


def as_it_was(page: str, title: str, telnet_port: int) -> str:
    """The English page as the door served it before it spoke the board's language, with
    the xterm.js tags of ``page``."""
    xterm = re.search(
        r'</title>\n    (.*?)\n    <link rel="stylesheet" href="/door.css">', page, re.S
    )
    assert xterm is not None
    return string.Template(ENGLISH_PAGE.read_text(encoding="utf-8")).substitute(
        title=title, xterm=xterm[1], xterm_source="cdn.jsdelivr.net", telnet_port=telnet_port
    )


async def test_a_german_board_s_page_is_german_and_an_english_one_s_is_the_english_it_was(
    tmp_path,
):
    english_config = english_board(tmp_path)
    board = await open_board(english_config)
    try:
        english, english_tag = await fetched(board.url)
        telnet_port = board.ways.telnet.port
        # Byte for byte the page it was, but for door.js's words (and the line breaks
        # within a paragraph, each one sentence of the catalog now).
        assert '<html lang="en">' in english
        assert "<title>The Canfield Door - Canfield</title>" in english
        without_words = WORDS_BLOCK.sub("", english)
        assert spaced(without_words) == spaced(as_it_was(english, "The Canfield Door", telnet_port))
        said = words_of(english)
        assert said["connecting"] == "Connecting ..." and said["connected"] == "Connected."
        assert said["unloaded"] == "Cannot show the terminal: xterm.js did not load."
        assert said["tooBig"] == "Cut off: that paste was more than the door takes at once (16 KB)."
        assert said["ended"] == "Cut off: the call has ended."
        assert said["tab"]["connected"] == "Connected - The Canfield Door - Canfield"
        assert said["keys"] == {"space": "Space", "enter": "Enter"}

        # The sysop's reload turns the board German: the page made for English is not served.
        german_config = german_board(tmp_path)
        board.reload(
            dataclasses.replace(english_config, words=german_config.words, bbs=german_config.bbs)
        )
        german, german_tag = await fetched(board.url)
        assert german_tag != english_tag
        assert '<html lang="de">' in german
        assert "<title>Die Canfield-Mailbox - Canfield</title>" in german
        for text in (
            "Verbinde ...",
            "Neu verbinden",
            "Bestenlisten",
            'aria-label="Tasten, die der Bildschirmtastatur fehlen"',
            "und dein Browser konnte es nicht von cdn.jsdelivr.net laden",
            "Oder ruf die Door per Telnet an",
            "Diese Seite braucht JavaScript, um das Terminal der Door zu zeigen.",
        ):
            assert text in german, text
        said = words_of(german)
        assert said["connecting"] == "Verbinde ..." and said["connected"] == "Verbunden."
        assert said["tab"]["connected"] == "Verbunden - Die Canfield-Mailbox - Canfield"
        assert said["keys"] == {"space": "Leertaste", "enter": "Eingabe"}
        assert said["refused"] == "Abgewiesen: {reason}"
        # No English text of the page is left in it, shown or said by door.js.
        german_texts = " ".join([*shown(german), *flattened(said)])
        # (The board's name is the sysop's, German on a German board: the rest of a text
        # that holds it is the door's.)
        named = "Die Canfield-Mailbox"
        kept = {named, f"{named} - Canfield", f"telnet localhost {telnet_port}"}
        for text in [*shown(english), *flattened(words_of(english))]:
            text = text.replace("The Canfield Door", named)
            if re.search("[A-Za-z]{2}", text) and text not in kept:
                assert text not in german_texts, text
        assert english_left([german_texts], sysops_words(german_config)) == []

        # And back: the English page, as it was served before.
        board.reload(english_config)
        again, again_tag = await fetched(board.url)
        assert (again, again_tag) == (english, english_tag)
    finally:
        await board.close()


async def test_a_german_board_s_page_speaks_german_from_its_start(tmp_path):
    config = german_board(tmp_path)
    board = await open_board(config)
    try:
        page, _tag = await fetched(board.url)
        assert '<html lang="de">' in page and words_of(page)["connected"] == "Verbunden."
    finally:
        await board.close()


async def test_the_busy_web_port_and_a_foreign_page_are_told_in_the_board_s_language(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(web_module, "connection_cap", lambda files, nodes: 1)
    board = await open_board(german_board(tmp_path))
    try:
        assert board.ways.web is not None
        port = board.ways.web.port
        caller = await web_caller(port)  # a call: the one connection, in no way idle
        await caller.wait_for(said("Your alias"))
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        answer = await asyncio.wait_for(reader.read(), 5)
        writer.close()
        head, _blank, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503 ") and b"charset=utf-8" in head
        assert body.decode("utf-8") == (
            "Die Door hat gerade zu viele Web-Verbindungen. "
            "Bitte versuch es in einer Minute noch einmal.\r\n"
        )
        await caller.hang_up()
        await asyncio.sleep(0.2)
        # A page of another site is refused with a reason, which the door's own page shows.
        async with aiohttp.ClientSession() as session:
            foreign = {"Origin": "https://evil.example.com"}
            async with session.ws_connect(board.url + "telnet", headers=foreign) as socket:
                closing = await socket.receive()
        assert closing.type == aiohttp.WSMsgType.CLOSE
        assert closing.data == aiohttp.WSCloseCode.POLICY_VIOLATION
        assert closing.extra == "Der WebSocket dieser Door ist nicht für Seiten dieser Website da."
    finally:
        await board.close()


async def test_a_request_s_head_too_long_is_refused_in_the_board_s_language(tmp_path) -> None:
    padding = b"".join(b"X-Padding-%d: %s\r\n" % (n, b"p" * 1000) for n in range(20))
    told = {
        "de": "Die Kopfzeilen einer Anfrage dürfen höchstens 16 KB groß sein.\r\n",
        "en": "A request's headers are 16 KB at most.\r\n",
    }
    for language, board_of in (("de", german_board), ("en", english_board)):
        folder = tmp_path / language
        folder.mkdir()
        board = await open_board(board_of(folder))
        try:
            assert board.ways.web is not None
            reader, writer = await asyncio.open_connection("127.0.0.1", board.ways.web.port)
            writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n" % padding)
            answer = await asyncio.wait_for(reader.read(), 5)
            writer.close()
            head, _blank, body = answer.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 431 ") and b"charset=utf-8" in head
            assert body.decode("utf-8") == told[language]
        finally:
            await board.close()
