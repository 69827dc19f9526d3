"""The ways in a running door listens on, wired to the visits: telnet always, SSH, RLOGIN
and the web when sysop.toml gives them a port. Every way shares one table of nodes
(:class:`~door.net.nodes.Nodes`), so the limits count every caller once, and each hands its
callers to the same visit (:mod:`door.visit.session`). The listeners themselves
(:mod:`door.net`) know nothing of visits: this is where the two meet."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from door import scoreboard_page
from door.app import App
from door.config import Config
from door.net.detection import DETECT_TIMEOUT
from door.net.listening import CLOSE_GRACE, SHUTDOWN_MESSAGE
from door.net.nodes import Nodes, Way
from door.net.rlogin import Arrival, RloginDoor, WrongSecrets
from door.net.telnet import DoorServer, start_server
from door.net.terminal import Terminal
from door.store import Store, User
from door.visit.session import (
    LOGIN_DELAY,
    LOGIN_TRIES,
    PASSWORD_LENGTH,
    linked_visit,
    ssh_visit,
    telnet_visit,
)

if TYPE_CHECKING:
    from aiohttp import web

    # asyncssh and aiohttp are loaded only by a door that opens those ways: every
    # canfield-door command (door mode launched by a BBS for each call included) starts here.
    from door.net.ssh import SshDoor
    from door.net.web import Document, WebDoor


@dataclass
class Ways:
    """The listening ways in; ``ssh``, ``rlogin`` and ``web`` are None when sysop.toml leaves
    them off."""

    nodes: Nodes
    telnet: DoorServer
    ssh: SshDoor | None = None
    rlogin: RloginDoor | None = None
    web: WebDoor | None = None

    def reconfigure(self, config: Config) -> None:
        """Take on reloaded limits and the board's language (the ports and the host key need
        a restart)."""
        self.nodes.limits = config.server
        self.nodes.words = config.words.words(None)
        self.telnet.config = config.server
        for way in (self.ssh, self.rlogin):
            if way is not None:
                way.config = config.server
        if self.web is not None:
            self.web.telnet.config = config.server

    async def close(self, reason: str = SHUTDOWN_MESSAGE, *, grace: float = CLOSE_GRACE) -> None:
        """Tell every caller ``reason``, end their visits and stop listening, every way at once."""
        self.nodes.closing = reason
        closing = [self.telnet.close(reason, grace=grace)]
        for way in (self.ssh, self.rlogin, self.web):
            if way is not None:
                closing.append(way.close(reason, grace=grace))
        await asyncio.gather(*closing)


@dataclass(frozen=True)
class Handed:
    """What a worker of a front process (:mod:`door.running.worker`) serves the ways in by:
    the ports the front listens on, by way, and the wrong RLOGIN secrets, which the front
    counts for every worker."""

    ports: Mapping[Way, int]
    wrong_secrets: WrongSecrets


async def open_ways(
    app: App,
    *,
    detect_timeout: float = DETECT_TIMEOUT,
    login_timeout: float | None = None,
    handshake_timeout: float | None = None,
    handed: Handed | None = None,
) -> Ways:
    """Listen on every way sysop.toml turns on, each handing its callers to a visit on
    ``app``, whose node table they share. ``login_timeout`` (seconds to log in over SSH) and
    ``handshake_timeout`` (seconds for a linked board's RLOGIN handshake) are for tests.
    ``handed``: a worker of a front process, which listens on nothing and serves the
    connections the front hands it, each by its way's ``adopt``."""
    if app.nodes is None:
        raise ValueError("the ways in share the app's table of nodes: it has none")
    nodes, store, config = app.nodes, app.store, app.config
    nodes.words = config.words.words(None)  # for callers the door has not let in yet

    async def telnet(terminal: Terminal, node: int) -> None:
        await telnet_visit(app, terminal, node)

    async def ssh(terminal: Terminal, node: int, who: object | None) -> None:
        await ssh_visit(app, terminal, node, who if isinstance(who, User) else None)

    async def linked(terminal: Terminal, node: int, arrival: Arrival) -> None:
        await linked_visit(app, terminal, node, arrival.alias, arrival.board.name)

    async def check_password(alias: str, password: str, address: str) -> User | None:
        # As at the telnet prompt, which takes no more than PASSWORD_LENGTH characters.
        return await store.authenticate(alias, password[:PASSWORD_LENGTH], address=address)

    async def check_key(alias: str, key: str) -> User | None:
        return await store.user_with_ssh_key(alias, key)

    if handed is None:
        server = await start_server(
            config.server, telnet, detect_timeout=detect_timeout, nodes=nodes
        )
    else:
        server = DoorServer(config.server, telnet, detect_timeout=detect_timeout, nodes=nodes)
    ways = Ways(nodes, server)
    try:
        if config.ssh.port is not None:
            from door.net.ssh import SshDoor

            options = {} if login_timeout is None else {"login_timeout": login_timeout}
            ways.ssh = SshDoor(
                config.server,
                ssh,
                nodes,
                check_password=check_password,
                check_key=check_key,
                login_tries=LOGIN_TRIES,
                login_delay=LOGIN_DELAY,
                detect_timeout=detect_timeout,
                **options,
            )
            if handed is None:
                await ways.ssh.listen(config.server.host, config.ssh.port, config.host_key)
            else:
                ways.ssh.serve_handed(handed.ports[Way.SSH], config.host_key)
        if config.rlogin.port is not None:
            timeouts = {} if handshake_timeout is None else {"handshake_timeout": handshake_timeout}
            ways.rlogin = RloginDoor(
                config.server,
                lambda: app.config.rlogin.boards,
                linked,
                nodes,
                detect_timeout=detect_timeout,
                wrong_secrets=None if handed is None else handed.wrong_secrets,
                **timeouts,
            )
            if handed is None:
                await ways.rlogin.listen(config.server.host, config.rlogin.port)
            else:
                ways.rlogin.serve_handed(handed.ports[Way.RLOGIN])
        if config.web.port is not None:
            from door.net.web import WebDoor

            # Web callers are telnet callers whose stream rides on a WebSocket.
            web_telnet = DoorServer(
                config.server, telnet, detect_timeout=detect_timeout, nodes=nodes, way=Way.WEB
            )
            telnet_port = server.port if handed is None else handed.ports[Way.TELNET]
            ways.web = WebDoor(
                config.web,
                web_telnet,
                lambda: app.config.bbs.name,
                lambda: publish_scoreboards(store, app.config),
                telnet_port,
                league_routes(app),
                words=lambda: app.config.words,
            )
            host = config.web.host or config.server.host
            if handed is None:
                await ways.web.listen(host)
            else:
                await ways.web.serve_handed(host, handed.ports[Way.WEB])
    except BaseException:
        await ways.close()
        raise
    return ways


def league_routes(app: App) -> Callable[[web.Application], None] | None:
    """The league hub's API, on a door whose sysop made it the hub."""
    if not app.config.league.hub:
        return None
    from door.league.hub import LeagueHub
    from door.league.signing import private_key_file

    hub = LeagueHub(app.store, lambda: app.config, private_key_file(app.config.league_key))
    return hub.add_routes


async def publish_scoreboards(store: Store, config: Config) -> dict[str, Document]:
    """The scoreboards' web page and JSON, as the web way serves them."""
    from door.net.web import Document

    bulletin, daily = await scoreboard_page.gather(store, config)
    return {
        "scores.html": Document(
            scoreboard_page.render_html(bulletin, daily).encode("utf-8"), "text/html"
        ),
        "scores.json": Document(
            scoreboard_page.render_json(bulletin, daily).encode("utf-8"), "application/json"
        ),
    }
