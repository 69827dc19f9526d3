"""The web way in over real TCP: telnet over WebSocket in each subprotocol, a web caller
counted and shown as any caller, the Origin check, oversized messages, the address behind a
proxy, the page and the scoreboards with their cache headers."""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import hashlib
import ipaddress
import json
import logging
import re
import ssl
from base64 import b64encode
from datetime import datetime, timedelta

import aiohttp
import pytest

from door.engine import Game
from door.net.nodes import TOO_MANY_MESSAGE
from door.net.web import MAX_MESSAGE
from door.xterm import ASSETS as PINNED
from tests.support.visits import sign_up as telnet_sign_up
from tests.support.visits import sign_up_on
from tests.support.web_caller import ASSETS, WebDoor, web_caller, web_config

PASSWORD = "secret-one1"


@pytest.fixture
async def web(tmp_path):
    door = await WebDoor.open(web_config(tmp_path))
    yield door
    await door.close()


async def sign_up(port: int, alias: str = "Alice", protocol: str | None = "binary", **options):
    caller = await web_caller(port, protocol, **options)
    await sign_up_on(caller, alias, PASSWORD)
    return caller


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["binary", "base64", "plain", "telnet.mudstandards.org"])
async def test_each_subprotocol_carries_a_whole_telnet_call(web, protocol, caplog):
    caplog.set_level(logging.INFO, logger="door")
    caller = await sign_up(web.web_port, f"Web-{protocol[:4]}", protocol)
    assert caller.reader.socket.protocol == protocol
    [call] = web.ways.nodes.calls
    assert (call.way, call.address, call.alias) == ("web", "127.0.0.1", f"Web-{protocol[:4]}")
    # The terminal's probe found UTF-8, as a browser's terminal is: the cards show suits.
    await caller.key("#")
    await caller.wait_for("Deal number")
    await caller.type("48213")
    await caller.wait_for("Choose a level")
    await caller.key("\r")
    await caller.wait_for("Command \\(\\? for help\\)")
    assert re.search("[♥♦♣♠]", caller.display())
    await caller.key("V")
    await caller.wait_for(r"Moves\s+1\b")
    assert any("web connect from 127.0.0.1" in r.message for r in caplog.records)
    assert any("the screen draws utf-8" in r.message for r in caplog.records)
    await caller.hang_up()


@pytest.mark.slow
async def test_web_and_telnet_callers_share_the_node_table(tmp_path):
    config = web_config(tmp_path)
    config = dataclasses.replace(
        config, server=dataclasses.replace(config.server, max_nodes=2, max_per_address=2)
    )
    door = await WebDoor.open(config)
    try:
        on_telnet = await telnet_sign_up(door, "Telly")
        on_web = await sign_up(door.web_port, "Webby")
        assert sorted(call.way for call in door.ways.nodes.calls) == ["telnet", "web"]
        third = await web_caller(door.web_port)
        await third.wait_for("Too many connections from your address", in_text=True)
        await third.wait_closed()
        # A shutdown tells the web caller, as any caller, and closes the WebSocket.
        await door.ways.close("The door is closing for the night.", grace=2.0)
        await on_web.wait_for("The door is closing for the night", in_text=True)
        await on_web.wait_closed()
        await on_telnet.wait_closed()
    finally:
        await door.close()


async def test_a_foreign_origin_is_refused_and_the_door_s_own_page_and_listed_sites_are_not(
    tmp_path,
):
    door = await WebDoor.open(web_config(tmp_path, origins=("https://bbs.example.org",)))
    try:
        port = door.web_port
        for foreign in (
            "https://evil.example.com",
            f"http://rebound.example:{port}",  # DNS rebinding: its Host says the same
            f"https://127.0.0.1:{port}",  # the door's host and port, another scheme
            f"chrome-extension://127.0.0.1:{port}",
        ):
            host = foreign.split("://")[1]
            refused = await web_caller(port, headers={"Origin": foreign, "Host": host})
            await refused.wait_closed()
            # Closed at once with a reason the page shows, no call made.
            assert refused.reader.socket.close_code == aiohttp.WSCloseCode.POLICY_VIOLATION
            assert door.ways.nodes.calls == []
        for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}", "https://bbs.example.org"):
            caller = await web_caller(port, headers={"Origin": origin})
            await caller.wait_for("Your alias")
            await caller.hang_up()
    finally:
        await door.close()


async def test_a_message_of_exactly_16_kb_is_taken_and_one_byte_more_is_not(web):
    caller = await web_caller(web.web_port)
    await caller.wait_for("Your alias")
    caller.writer.write(b"x\x7f" * (MAX_MESSAGE // 2))  # a letter and its rubbing out
    await caller.type("\r")
    await caller.wait_for("alias", timeout=10)
    await asyncio.sleep(0.5)
    assert not caller.reader.socket.closed
    await caller.hang_up()
    over = await web_caller(web.web_port)
    await over.wait_for("Your alias")
    over.writer.write(b"x" * (MAX_MESSAGE + 1))
    await over.wait_closed()
    assert over.reader.socket.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG


async def test_a_frame_the_client_did_not_mask_ends_the_call(web, caplog):
    caplog.set_level(logging.INFO, logger="door")
    reader, writer = await asyncio.open_connection("127.0.0.1", web.web_port)
    writer.write(
        b"GET /telnet HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101 ")
    writer.write(b"\x82\x01a")  # a binary frame of one byte, not masked
    async with asyncio.timeout(5):
        while await reader.read(4096):
            pass
    writer.close()
    assert any("did not mask" in r.getMessage() for r in caplog.records)
    await asyncio.sleep(0.2)
    assert web.ways.nodes.calls == []


async def test_an_oversized_message_closes_that_connection_only(web):
    flooder = await web_caller(web.web_port)
    other = await web_caller(web.web_port)
    huge = await web_caller(web.web_port)
    for caller in (flooder, other, huge):
        await caller.wait_for("Your alias")
    flooder.writer.write(b"x" * 100_000)
    await flooder.wait_closed()
    assert flooder.reader.socket.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
    assert "more than the door takes at once (16 KB at most)" in flooder.text  # told why
    huge.writer.write(b"x" * 1_000_000)  # not even read: closed as too big at once
    await huge.wait_closed()
    assert huge.reader.socket.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
    await other.type("NEW")
    await other.wait_for("alias would you like|Choose an alias|Sign up|new alias", timeout=10)
    assert [call.way for call in web.ways.nodes.calls] == ["web"]
    await other.hang_up()


async def test_the_telnet_path_refuses_anything_but_an_upgrade_and_fTelnet_s_root_upgrades(web):
    url = f"http://127.0.0.1:{web.web_port}/telnet"
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        assert response.status == 426
    # fTelnet connects to ws://host:port/ with its subprotocols in its order of preference.
    caller = await web_caller(web.web_port, None, path="/")
    await caller.wait_for("Your alias")
    await caller.hang_up()
    session = aiohttp.ClientSession()
    socket = await session.ws_connect(
        f"http://127.0.0.1:{web.web_port}/", protocols=("binary", "base64", "plain")
    )
    assert socket.protocol == "binary"
    await socket.close()
    await session.close()


async def test_the_caller_s_address_comes_from_a_listed_proxy_only(tmp_path):
    config = web_config(tmp_path, proxies=(ipaddress.ip_network("127.0.0.1/32"),))
    server = dataclasses.replace(config.server, max_per_address=1)
    config = dataclasses.replace(config, server=server)
    door = await WebDoor.open(config)
    try:
        forwarded = {"X-Forwarded-For": "203.0.113.7, 127.0.0.1"}
        first = await web_caller(door.web_port, headers=forwarded)
        await first.wait_for("Your alias")
        second = await web_caller(door.web_port, headers={"X-Forwarded-For": "198.51.100.9"})
        await second.wait_for("Your alias")
        assert sorted(call.address for call in door.ways.nodes.calls) == [
            "198.51.100.9",
            "203.0.113.7",
        ]
        # The same browser again is over its address's limit of one.
        third = await web_caller(door.web_port, headers=forwarded)
        await third.wait_for(TOO_MANY_MESSAGE, in_text=True)
        for caller in (first, second):
            await caller.hang_up()
    finally:
        await door.close()


async def test_x_forwarded_for_is_not_believed_from_anyone_else(web):
    caller = await web_caller(web.web_port, headers={"X-Forwarded-For": "203.0.113.7"})
    await caller.wait_for("Your alias")
    assert [call.address for call in web.ways.nodes.calls] == ["127.0.0.1"]
    await caller.hang_up()


async def test_the_page_names_the_pinned_xterm_with_its_integrity_hashes(web):
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{web.web_port}/") as response:
            assert response.status == 200
            page = await response.text()
            etag = response.headers["ETag"]
            assert "max-age" in response.headers["Cache-Control"]
        async with session.get(
            f"http://127.0.0.1:{web.web_port}/", headers={"If-None-Match": etag}
        ) as response:
            assert response.status == 304
    for asset in PINNED:
        assert f'"{asset.url}" integrity="{asset.integrity}" crossorigin="anonymous"' in page
    assert "<title>The Canfield Door - Canfield</title>" in page
    assert '<link rel="icon" href="/favicon.svg" type="image/svg+xml">' in page
    icon = f"http://127.0.0.1:{web.web_port}/favicon.svg"
    async with aiohttp.ClientSession() as session, session.get(icon) as response:
        assert response.status == 200 and response.content_type == "image/svg+xml"
        assert (await response.text()).startswith("<svg ")
    # The scoreboards open beside the call: following the link never hangs it up.
    assert '<a href="/scores" target="_blank" rel="noopener">' in page


async def test_the_page_its_files_and_the_scores_go_gzipped_to_clients_that_accept_it(web):
    base = f"http://127.0.0.1:{web.web_port}"
    async with aiohttp.ClientSession(auto_decompress=False) as session:
        for path in ("/", "/door.js", "/door.css", "/scores", "/scores.json"):
            async with session.get(base + path, headers={"Accept-Encoding": "gzip"}) as zipped:
                assert zipped.headers["Content-Encoding"] == "gzip", path
                assert zipped.headers["Vary"] == "Accept-Encoding"
                body = gzip.decompress(await zipped.read())
            async with session.get(base + path, headers={"Accept-Encoding": "identity"}) as plain:
                assert "Content-Encoding" not in plain.headers
                assert await plain.read() == body
                assert plain.headers["ETag"] != zipped.headers["ETag"]  # another representation
            tag = {"Accept-Encoding": "gzip", "If-None-Match": zipped.headers["ETag"]}
            async with session.get(base + path, headers=tag) as again:
                assert again.status == 304


async def test_the_page_offers_the_telnet_port_should_xterm_not_load(web):
    url = f"http://127.0.0.1:{web.web_port}/"
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        page = await response.text()
    assert f'data-telnet-port="{web.port}"' in page
    assert '<section id="unloaded" hidden>' in page and "from cdn.jsdelivr.net:" in page


@pytest.mark.skipif(not ASSETS.is_dir(), reason="needs the pinned xterm.js: .ci/run fetches it")
def test_the_pinned_integrity_hashes_are_those_of_the_npm_files():
    for asset in PINNED:
        digest = hashlib.sha384((ASSETS / asset.path).read_bytes()).digest()
        assert asset.integrity == "sha384-" + b64encode(digest).decode()
        package = json.loads((ASSETS / asset.package / "package.json").read_text())
        assert package["version"] == asset.version


@pytest.mark.skipif(not ASSETS.is_dir(), reason="needs the pinned xterm.js: .ci/run fetches it")
async def test_a_local_copy_of_xterm_is_served_instead_of_the_cdn(tmp_path, monkeypatch):
    door = await WebDoor.open(web_config(tmp_path, assets=ASSETS))
    try:
        async with aiohttp.ClientSession() as session:
            base = f"http://127.0.0.1:{door.web_port}"
            async with session.get(f"{base}/") as response:
                page = await response.text()
            assert "cdn.jsdelivr.net" not in page and "/assets/xterm/lib/xterm.js" in page
            assert "could not load it from this board:" in page
            async with session.get(f"{base}/assets/xterm/lib/xterm.js") as response:
                assert response.status == 200
                assert await response.read() == (ASSETS / "xterm/lib/xterm.js").read_bytes()
            async with session.get(f"{base}/assets/xterm/package.json") as response:
                assert response.status == 404  # only the page's files, nothing else there
            # Sent gzipped, compressed once as the door started: never again per request.
            compressed = []
            monkeypatch.setattr(gzip, "compress", lambda *a, **k: compressed.append(a))
            for _ in range(2):
                async with session.get(f"{base}/assets/xterm/lib/xterm.js") as response:
                    assert response.headers["Content-Encoding"] == "gzip"
                    assert int(response.headers["Content-Length"]) < 200_000
                    assert await response.read() == (ASSETS / "xterm/lib/xterm.js").read_bytes()
            assert compressed == []
    finally:
        await door.close()


async def won_game(web: WebDoor, alias: str, assisted: bool = False) -> None:
    """A won game of ``alias`` on level 2's board, through the store as the visit keeps it."""
    from tests.support.winning import WON_DEAL, WON_LEVEL, winning_line

    level = web.config.level(WON_LEVEL)
    user = await web.store.find_user(alias) or await web.store.create_user(alias, PASSWORD)
    game = Game.deal(level.variant, WON_DEAL)
    game_id = await web.store.start_game(user.id, level, game)
    for command in winning_line(web):
        game.play(command)
        if game.status == "won":
            break
    await web.store.finish_game(game_id, game)
    if assisted:
        await web.store.mark_assisted(game_id)


@pytest.mark.slow
async def test_scores_show_every_board_escaped_with_hint_marks_and_cache_headers(web):
    hostile = "<b>Eve</b>&amp;"
    await won_game(web, hostile)
    await won_game(web, "Bob", assisted=True)
    playing = await sign_up(web.web_port, "Carol")  # a scored game under way: not shown
    level = web.config.level(2)
    carol = await web.store.find_user("Carol")
    await web.store.start_game(carol.id, level, Game.deal(level.variant, 777))
    async with aiohttp.ClientSession() as session:
        base = f"http://127.0.0.1:{web.web_port}"
        async with session.get(f"{base}/scores") as response:
            assert response.status == 200
            assert response.content_type == "text/html"
            page = await response.text()
            etag, modified = response.headers["ETag"], response.headers["Last-Modified"]
            assert response.headers["Cache-Control"].startswith("public, max-age=")
        async with session.get(f"{base}/scores", headers={"If-None-Match": etag}) as response:
            assert response.status == 304 and response.headers["Last-Modified"] == modified
        async with session.get(f"{base}/scores.json") as response:
            document = await response.json()
    assert hostile not in page
    assert '<link rel="icon" href="/favicon.svg"' in page
    assert "&lt;b&gt;Eve&lt;/b&gt;&amp;amp;" in page
    for level_entry in web.config.levels:
        assert level_entry.name in page
    assert "Standings" in page and "Deal of the day" in page and "hint" in page
    [level_two] = [entry for entry in document["levels"] if entry["number"] == 2]
    aliases = [row["alias"] for row in level_two["high_scores"]]
    assert aliases[0] in (hostile, "Bob") and set(aliases) == {hostile, "Bob"}
    assert [row["assisted"] for row in level_two["high_scores"] if row["alias"] == "Bob"] == [True]
    assert "Carol" not in json.dumps(level_two) and "777" not in page
    # Carol's game to resume is marked in a column of its own, not on her alias.
    carol_row = re.search(r'<td data-label="Alias">Carol</td>.*?</tr>', page)
    assert carol_row and '<td data-label="Saved">*</td>' in carol_row.group()
    assert "Carol *" not in page and "Saved *: has a game to resume" in page
    # Times carry their zone: callers may be anywhere.
    zone = datetime.now().astimezone().strftime("%Z")
    assert re.search(rf"Updated \d{{4}}-\d\d-\d\d \d\d:\d\d {re.escape(zone)}<", page)
    assert {row["alias"] for row in document["standings"]} >= {hostile, "Bob"}
    await playing.hang_up()


async def test_scores_are_read_again_only_after_a_while(web):
    async with aiohttp.ClientSession() as session:
        url = f"http://127.0.0.1:{web.web_port}/scores.json"
        async with session.get(url) as response:
            first = await response.json()
        await won_game(web, "Dave")
        async with session.get(url) as response:
            assert await response.json() == first  # within the few seconds a copy is kept
    await asyncio.sleep(0)


def test_the_readme_and_ci_fetch_the_pinned_xterm():
    root = ASSETS.parent.parent.parent
    wanted = " ".join(f"@xterm/{a.package}@{a.version}" for a in (PINNED[0], PINNED[2]))
    readme = (root / "README.md").read_text(encoding="utf-8")
    tests_section = readme.split("## Run the tests", 1)[1].split("\n## ", 1)[0]
    assert wanted in tests_section
    ci = (root / ".ci/run").read_text(encoding="utf-8")
    assert "README.md" in ci and "## Run the tests" in ci  # CI runs the README's command


async def test_tls_from_the_sysop_s_certificate_serves_https_and_wss(tmp_path):
    certificate, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    made = await asyncio.create_subprocess_exec(
        "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
        "-nodes", "-subj", "/CN=localhost", "-days", "1",
        "-keyout", str(key), "-out", str(certificate),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    assert await made.wait() == 0
    door = await WebDoor.open(web_config(tmp_path, certificate=certificate, key=key))
    try:
        context = ssl.create_default_context(cafile=str(certificate))
        context.check_hostname = False
        async with aiohttp.ClientSession() as session:
            url = f"https://127.0.0.1:{door.web_port}"
            async with session.get(f"{url}/scores.json", ssl=context) as response:
                assert response.status == 200
            socket = await session.ws_connect(f"{url}/telnet", ssl=context, protocols=("binary",))
            received = await socket.receive_bytes(timeout=5)
            assert received.startswith(b"\xff")  # the telnet negotiation, over TLS
            await socket.close()
    finally:
        await door.close()


@pytest.mark.slow
async def test_a_web_caller_is_listed_messaged_and_kicked_like_any_other(tmp_path):
    from tests.support.live_door import start_live, sysop
    from tests.support.visits import start_deal

    door = await start_live(tmp_path)
    try:
        web = door.service.ways.web
        assert web is not None
        caller = await sign_up(web.port, "Webby")
        await start_deal(caller, 48213)
        status, out, err = await sysop(door, "who")
        assert status == 0, err
        assert out.splitlines()[1].split()[:4] == ["1", "Webby", "web", "127.0.0.1"]
        status, _, err = await sysop(door, "send", "1", "Hello on the web")
        assert status == 0, err
        await caller.wait_for("Sysop: Hello on the web")
        status, _, err = await sysop(door, "kick", "1", "Closing early")
        assert status == 0, err
        await caller.wait_for("The sysop has ended your call: Closing early", in_text=True)
        await caller.wait_closed()
    finally:
        await door.service.stop()
        await door.task


@pytest.mark.slow
async def test_a_quiet_web_caller_is_warned_then_hung_up_as_on_telnet(tmp_path):
    config = web_config(tmp_path)
    server = dataclasses.replace(config.server, idle_timeout=2, idle_warning=1)
    door = await WebDoor.open(dataclasses.replace(config, server=server))
    try:
        caller = await web_caller(door.web_port)
        await caller.wait_for("Your alias")
        await caller.wait_for("Are you still there?", in_text=True)
        await caller.wait_for("No input for 2 seconds. Goodbye.", in_text=True)
        await caller.wait_closed()
        assert door.ways.nodes.calls == []
    finally:
        await door.close()


@pytest.mark.slow
async def test_scores_show_the_contest_s_table_and_seals_then_its_deals_once_closed(tmp_path):
    """A contest with deals played: /scores and /scores.json show its table (aliases escaped,
    a linked board's caller with the board) and its seals, never a deal number while it is
    open; after the close (the door started again on the same file), its deals and salts."""
    from door.contests import keep_contests_on_time
    from tests.support.contests import Clock

    config, clock = web_config(tmp_path), Clock()
    door = await WebDoor.open(config, clock)
    store, level = door.store, config.level(1)
    opens = clock.now + timedelta(hours=1)
    contest = await store.declare_contest("Winter Cup", level, 3, opens, opens + timedelta(days=7))
    deals = await store.contest_deals(contest.id)
    secrets = [rf"\b{deal.deal}\b|{deal.salt}" for deal in deals]
    clock.now = opens + timedelta(minutes=1)
    await keep_contests_on_time(store)
    contest = await store.contest("Winter Cup")
    hostile = "<b>Eve</b>&amp;"
    eve = await store.create_user(hostile, PASSWORD)
    bob = await store.drop_file_user("Bob", "Another Board")
    for user, number, plays, finish in ((eve, 1, 6, True), (bob, 1, 2, True), (bob, 2, 1, False)):
        game_id, game = await store.start_contest_game(user.id, contest, number, level)
        for _ in range(plays):
            legal = game.legal()
            game.play(next((play for play in legal if play != "V"), legal[0]))
            await store.record_play(game_id, game)
        if finish:
            game.resign()
            await store.finish_game(game_id, game)
    table = await store.contest_table(contest.id)

    async def scores(port: int) -> tuple[str, dict]:
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/scores") as response:
                page = await response.text()
            async with session.get(f"http://127.0.0.1:{port}/scores.json") as response:
                return page, await response.json()

    try:
        page, document = await scores(door.web_port)
    finally:
        await door.close()
    assert "Contest: Winter Cup" in page and "3 deals, level 1" in page
    assert f"opened {opens.astimezone():%Y-%m-%d %H:%M}" in page and "open until" in page
    assert hostile not in page and "&lt;b&gt;Eve&lt;/b&gt;&amp;amp;" in page
    bob = '<td data-label="Alias">Bob</td><td data-label="Board">Another Board</td>'
    assert bob + '<td data-label="Deals">1 +1</td>' in page  # one deal begun
    for deal in deals:
        assert deal.seal in page
    sent = page + json.dumps(document)
    assert not any(re.search(secret, sent) for secret in secrets)
    shown = document["contest"]
    assert (shown["name"], shown["state"], shown["revealed"]) == ("Winter Cup", "open", [])
    assert [(row["alias"], row["bbs"]) for row in shown["table"]] == [
        (row.alias, row.bbs) for row in table
    ]
    assert {row["alias"] for row in shown["table"]} == {hostile, "Bob"}
    assert shown["seals"] == [deal.seal for deal in deals]

    clock.now = contest.closes + timedelta(seconds=1)
    door = await WebDoor.open(config, clock)
    try:
        await keep_contests_on_time(door.store)
        page, document = await scores(door.web_port)
    finally:
        await door.close()
    assert "closed" in page and "open until" not in page
    for deal in deals:
        assert f"<li>{deal.deal}, salt <code>{deal.salt}</code>, seal" in page
    shown = document["contest"]
    assert shown["state"] == "closed"
    assert [(item["deal"], item["salt"], item["seal"]) for item in shown["revealed"]] == [
        (deal.deal, deal.salt, deal.seal) for deal in deals
    ]
    # Bob's unfinished deal counted as resigned at the close: two deals finished, none begun.
    bob = '<td data-label="Alias">Bob</td><td data-label="Board">Another Board</td>'
    assert bob + '<td data-label="Deals">2</td>' in page


async def test_scores_json_says_no_contest_before_one_opens(web):
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{web.web_port}/scores.json") as response:
            assert (await response.json())["contest"] is None
        async with session.get(f"http://127.0.0.1:{web.web_port}/scores") as response:
            assert "Contest" not in await response.text()


@pytest.mark.slow
async def test_a_web_goodbye_logs_no_error_and_closes_the_websocket(web, caplog, monkeypatch):
    """The protocol's connection is lost twice on the web: once as the door hangs up (which
    telnetlib3 reports to the protocol itself), once as the WebSocket's transport ends; the
    second must find the protocol's state let go of, and pass quietly."""
    from door.net import websocket

    carried: list[websocket.WebSocketTransport] = []
    finished: list[websocket.WebSocketTransport] = []

    class Watched(websocket.WebSocketTransport):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            carried.append(self)

        async def closed(self) -> None:
            await super().closed()
            finished.append(self)

    monkeypatch.setattr(websocket, "WebSocketTransport", Watched)
    caplog.set_level(logging.DEBUG)
    caller = await sign_up(web.web_port, "Leaving")
    await caller.key("G")
    await caller.wait_closed()
    [transport] = carried
    async with asyncio.timeout(5):
        while not finished:
            await asyncio.sleep(0.05)
    assert finished == [transport] and transport.is_closing()
    await asyncio.sleep(0.1)  # the connection's state let go of, after its shell ended
    faults = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert faults == [], [r.getMessage() for r in faults]
