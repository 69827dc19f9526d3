"""The web way in: a page with a terminal on it, telnet over WebSocket, and published pages.

aiohttp serves HTTP and WebSocket on ``[web] port``:

- ``GET /``: the page (the files in ``door/net/page/``), xterm.js drawing the door's screen; a
  WebSocket upgrade on ``/`` (where fTelnet and other web terminals connect) or on
  ``/telnet`` (where the page connects) carries a telnet call (:mod:`door.net.websocket`).
  ``/telnet`` refuses anything but an upgrade.
- ``/assets/...``: the sysop's own copy of xterm.js, when ``[web] assets`` names one (read
  once, as the door starts).
- pages the running door publishes (the scoreboards): rendered by a function it gives,
  at most once every :data:`PUBLISHED_SECONDS`, with ``ETag`` and ``Cache-Control``.

Every file and page is sent gzipped to a client that accepts it, compressed once when it is
made (:class:`Payload`), never once per request: xterm.js alone is almost half a megabyte.

A browser can be made to open a WebSocket to any site, so an upgrade is refused unless its
``Origin`` is the door's own page or one of ``[web] origins``; a client that is not a
browser sends no ``Origin`` and is let in, as on telnet. Messages are limited to
:data:`MAX_MESSAGE` bytes: a bigger one ends that call only, its caller told why. Behind a
reverse proxy, the caller's address is taken from ``X-Forwarded-For`` when the connection
comes from one of ``[web] proxies``, and only then.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import html
import ipaddress
import logging
import ssl
import string
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime
from importlib import resources
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

from aiohttp import hdrs, web

from door.net.listening import CLOSE_GRACE, SHUTDOWN_MESSAGE, AddressLog
from door.net.telnet import DoorServer
from door.net.websocket import SUBPROTOCOLS, carry
from door.xterm import ASSETS, CDN

log = logging.getLogger("door")

MAX_MESSAGE = 16 * 1024  # bytes in one WebSocket message from a caller: far more than a paste
# Bigger messages are read up to this, so that their caller can be told why the call ends;
# past it, the WebSocket is closed at once (as too big, which the page tells its caller).
READ_LIMIT = 16 * MAX_MESSAGE
HEARTBEAT = 30.0  # seconds between pings, so a browser that vanished is noticed
PUBLISHED_SECONDS = 10.0  # a published page is rendered at most this often
PAGE_SECONDS = 300  # how long browsers may keep the page before asking again
ASSET_SECONDS = 86400  # and the sysop's xterm.js files
COMPRESS_FROM = 512  # bytes: a smaller body is sent as it is

IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


class WebSettings(Protocol):
    """The fields of :class:`door.config.WebConfig` the web way reads."""

    @property
    def port(self) -> int | None: ...
    @property
    def origins(self) -> tuple[str, ...]: ...
    @property
    def proxies(self) -> tuple[IpNetwork, ...]: ...
    @property
    def certificate(self) -> Path | None: ...
    @property
    def key(self) -> Path | None: ...
    @property
    def assets(self) -> Path | None: ...


@dataclass(frozen=True, slots=True)
class Document:
    """A page the door publishes: its bytes and their type."""

    body: bytes
    content_type: str


Publisher = Callable[[], Awaitable[Mapping[str, Document]]]


@dataclass(frozen=True, slots=True)
class Payload:
    """A body as it is sent: its type, its ETag, and its gzipped bytes (None when gzip
    would gain nothing), compressed once, by :func:`payload`."""

    body: bytes
    content_type: str
    etag: str
    gzipped: bytes | None

    @property
    def gzipped_etag(self) -> str:
        """The ETag of the gzipped bytes: another representation, another tag."""
        return self.etag[:-1] + '-gzip"'


def payload(body: bytes, content_type: str) -> Payload:
    """``body`` ready to send, gzipped once here if that makes it smaller.

    >>> small = payload(b"tiny", "text/plain")
    >>> small.gzipped is None, small.etag == _etag(b"tiny")
    (True, True)
    >>> big = payload(b"a board of cards " * 100, "text/html")
    >>> gzip.decompress(big.gzipped) == big.body, big.gzipped_etag.endswith('-gzip"')
    (True, True)
    """
    gzipped = None
    if len(body) >= COMPRESS_FROM:
        gzipped = gzip.compress(body, compresslevel=9, mtime=0)
        if len(gzipped) >= len(body):
            gzipped = None
    return Payload(body, content_type, _etag(body), gzipped)


def accepts_gzip(header: str) -> bool:
    """Whether an ``Accept-Encoding`` header lets a response be gzipped.

    >>> accepts_gzip("gzip, deflate, br"), accepts_gzip("br, gzip;q=0"), accepts_gzip("")
    (True, False, False)
    >>> accepts_gzip("*;q=0.5"), accepts_gzip("identity")
    (True, False)
    """
    for entry in header.lower().split(","):
        coding, _, parameters = entry.partition(";")
        if coding.strip() not in ("gzip", "*"):
            continue
        quality = parameters.strip()
        if not quality.startswith("q="):
            return True
        try:
            return float(quality[2:]) > 0
        except ValueError:
            return True
    return False


@dataclass(frozen=True, slots=True)
class _Published:
    payloads: Mapping[str, Payload]
    made: datetime


def forwarded_address(peer: str, header: str | None, proxies: Sequence[IpNetwork]) -> str:
    """The caller's address: ``peer``, or, when ``peer`` is one of the sysop's ``proxies``,
    the last address in ``X-Forwarded-For`` that is not a proxy of theirs.

    >>> proxies = [ipaddress.ip_network("10.0.0.0/8")]
    >>> forwarded_address("10.0.0.2", "203.0.113.9, 10.0.0.7", proxies)
    '203.0.113.9'
    >>> forwarded_address("198.51.100.4", "203.0.113.9", proxies)  # not a proxy: not believed
    '198.51.100.4'
    >>> forwarded_address("10.0.0.2", "nonsense", proxies)
    '10.0.0.2'
    """
    if not header or not _within(peer, proxies):
        return peer
    for entry in reversed(header.split(",")):
        address = entry.strip()
        try:
            ipaddress.ip_address(address)
        except ValueError:
            return peer
        if not _within(address, proxies):
            return address
    return peer


def _within(address: str, networks: Sequence[IpNetwork]) -> bool:
    try:
        parsed = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
        parsed = parsed.ipv4_mapped
    return any(parsed in network for network in networks)


def origin_allowed(origin: str | None, host: str | None, origins: Sequence[str]) -> bool:
    """Whether a WebSocket upgrade with this ``Origin`` may go on: none (not a browser),
    the door's own page (the same host and port as asked for), or one the sysop lists.

    >>> origin_allowed("http://bbs.example:8080", "bbs.example:8080", ())
    True
    >>> origin_allowed("https://evil.example", "bbs.example:8080", ())
    False
    >>> origin_allowed("https://evil.example", "bbs.example", ("https://evil.example",))
    True
    """
    if origin is None:
        return True
    origin = origin.strip().lower().rstrip("/")
    if origin in origins:
        return True
    own = origin.partition("://")[2]
    return bool(host) and own == (host or "").strip().lower()


def page_html(title: str, local_assets: bool, telnet_port: int) -> bytes:
    """The page, naming the pinned xterm.js files: the CDN's with their integrity hashes,
    or the sysop's own copy under /assets/. Should they not load, the page says where they
    were to come from and offers the door's telnet port instead."""
    tags = []
    for asset in ASSETS:
        if local_assets:
            source, checks = f"/assets/{asset.path}?v={asset.version}", ""
        else:
            source = asset.url
            checks = f' integrity="{asset.integrity}" crossorigin="anonymous"'
        if asset.file.endswith(".css"):
            tags.append(f'<link rel="stylesheet" href="{source}"{checks}>')
        else:
            tags.append(f'<script src="{source}"{checks}></script>')
    template = string.Template(_page_file("index.html").decode("utf-8"))
    source = "this board" if local_assets else urlsplit(CDN).hostname or CDN
    text = template.substitute(
        title=html.escape(title),
        xterm="\n    ".join(tags),
        xterm_source=html.escape(source),
        telnet_port=telnet_port,
    )
    return text.encode("utf-8")


def _page_file(name: str) -> bytes:
    return resources.files("door.net").joinpath("page", name).read_bytes()


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


class WebDoor:
    """The web listener: made by :func:`start_web`, ended by :meth:`close`."""

    def __init__(
        self,
        settings: WebSettings,
        telnet: DoorServer,
        title: Callable[[], str],
        publisher: Publisher | None = None,
        telnet_port: int = 23,
        routes: Callable[[web.Application], None] | None = None,
    ) -> None:
        self.settings = settings
        self._routes = routes  # more of the door's own (the league hub's API)
        self.telnet = telnet
        self._title = title
        self._telnet_port = telnet_port
        self._publisher = publisher
        self._published: _Published | None = None
        self._publishing = asyncio.Lock()
        self._page: tuple[str, Payload] | None = None  # (title, page)
        self._assets: dict[str, Payload] = {}  # the sysop's xterm.js files, by path
        self._runner: web.AppRunner | None = None
        self._port = 0
        self._refusals = AddressLog()  # a line per address a minute: no flood fills the log

    @property
    def port(self) -> int:
        """The port listened on (the real one when the settings said 0)."""
        return self._port

    @property
    def scheme(self) -> str:
        return "https" if self.settings.certificate is not None else "http"

    def application(self) -> web.Application:
        app = web.Application(client_max_size=4096, handler_args={"max_field_size": 8190})
        app.router.add_get("/", self._root)
        app.router.add_get("/telnet", self._telnet_only)
        app.router.add_get("/door.js", self._static("door.js", "text/javascript"))
        app.router.add_get("/door.css", self._static("door.css", "text/css"))
        app.router.add_get("/favicon.svg", self._static("favicon.svg", "image/svg+xml"))
        app.router.add_get("/scores", self._scores("scores.html"))
        app.router.add_get("/scores.json", self._scores("scores.json"))
        if self.settings.assets is not None:
            for asset in ASSETS:
                app.router.add_get(f"/assets/{asset.path}", self._asset(asset.path))
        if self._routes is not None:
            self._routes(app)
        return app

    def _read_assets(self) -> None:
        """Read and compress the sysop's xterm.js files, once (in a thread: it takes a while)."""
        assert self.settings.assets is not None
        for asset in ASSETS:
            kind = "text/css" if asset.file.endswith(".css") else "text/javascript"
            body = (self.settings.assets / asset.path).read_bytes()
            self._assets[asset.path] = payload(body, kind)

    async def listen(self, host: str) -> None:
        context = None
        if self.settings.certificate is not None and self.settings.key is not None:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(self.settings.certificate, self.settings.key)
        # By the time the runner stops, every visit has ended (close() ends them first):
        # what is left are connections still negotiating, cut after a moment.
        self._runner = web.AppRunner(
            self.application(), access_log=None, handle_signals=False, shutdown_timeout=2.0
        )
        if self.settings.assets is not None:
            await asyncio.to_thread(self._read_assets)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, self.settings.port or 0, ssl_context=context)
        await site.start()
        self._port = int(self._runner.addresses[0][1])
        log.info("listening for web on %s port %d (%s)", host, self._port, self.scheme)

    async def close(self, reason: str = SHUTDOWN_MESSAGE, *, grace: float = CLOSE_GRACE) -> None:
        """End every web caller's visit as a telnet caller's, then stop listening."""
        await self.telnet.close(reason, grace=grace)
        if self._runner is not None:
            await self._runner.cleanup()

    # --- the page and its files -----------------------------------------------------------

    async def _root(self, request: web.Request) -> web.StreamResponse:
        if _is_upgrade(request):
            return await self._websocket(request)
        title = self._title()
        if self._page is None or self._page[0] != title:
            local = self.settings.assets is not None
            page = page_html(title, local, self._telnet_port)
            self._page = (title, payload(page, "text/html"))
        return _cached(request, self._page[1], PAGE_SECONDS)

    def _static(self, name: str, content_type: str) -> Callable[..., Awaitable[web.Response]]:
        ready = payload(_page_file(name), content_type)

        async def handler(request: web.Request) -> web.Response:
            return _cached(request, ready, PAGE_SECONDS)

        return handler

    def _asset(self, path: str) -> Callable[..., Awaitable[web.Response]]:
        async def handler(request: web.Request) -> web.Response:
            return _cached(request, self._assets[path], ASSET_SECONDS)

        return handler

    # --- published pages ------------------------------------------------------------------

    def _scores(self, name: str) -> Callable[..., Awaitable[web.Response]]:
        async def handler(request: web.Request) -> web.Response:
            if self._publisher is None:
                raise web.HTTPNotFound()
            published = await self._publish()
            return _cached(
                request, published.payloads[name], int(PUBLISHED_SECONDS), modified=published.made
            )

        return handler

    async def _publish(self) -> _Published:
        """The published pages, rendered again once they are older than PUBLISHED_SECONDS;
        callers asking meanwhile share one rendering."""
        async with self._publishing:
            now = datetime.now(UTC)
            old = self._published
            if old is None or (now - old.made).total_seconds() >= PUBLISHED_SECONDS:
                assert self._publisher is not None
                documents = await self._publisher()
                payloads = {
                    name: payload(document.body, document.content_type)
                    for name, document in documents.items()
                }
                self._published = _Published(payloads, now.replace(microsecond=0))
            assert self._published is not None
            return self._published

    # --- the telnet calls -----------------------------------------------------------------

    async def _telnet_only(self, request: web.Request) -> web.StreamResponse:
        if not _is_upgrade(request):
            return web.Response(
                status=426,
                text="This address takes a WebSocket carrying telnet; the page is at /.\n",
                headers={hdrs.UPGRADE: "websocket", hdrs.CONNECTION: "Upgrade"},
            )
        return await self._websocket(request)

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        peer = request.transport.get_extra_info("peername") if request.transport else None
        direct = str(peer[0]) if peer else "unknown"
        address = forwarded_address(
            direct, request.headers.get("X-Forwarded-For"), self.settings.proxies
        )
        origin = request.headers.get(hdrs.ORIGIN)
        if not origin_allowed(origin, request.host, self.settings.origins):
            self._refusals.note(
                address, f"refused WEB from {address}: a WebSocket from a page of {_clean(origin)}"
            )
            return web.Response(status=403, text="This door's WebSocket is not for that site.\n")
        socket = web.WebSocketResponse(
            protocols=SUBPROTOCOLS,
            max_msg_size=READ_LIMIT,
            heartbeat=HEARTBEAT,
            compress=False,  # nothing to gain on a terminal's few bytes, and no inflating
        )
        await socket.prepare(request)
        local = request.transport.get_extra_info("sockname") if request.transport else None
        where = (address, peer[1] if peer else 0)
        await carry(
            socket,
            socket.ws_protocol,
            self.telnet.connection(),
            where,
            local,
            max_message=MAX_MESSAGE,
        )
        return socket


def _is_upgrade(request: web.Request) -> bool:
    connection = request.headers.get(hdrs.CONNECTION, "").lower()
    return (
        request.headers.get(hdrs.UPGRADE, "").lower() == "websocket" and "upgrade" in connection
    )


def _clean(text: str | None) -> str:
    return "".join(char for char in (text or "")[:80] if char.isprintable())


def _cached(
    request: web.Request, ready: Payload, seconds: int, *, modified: datetime | None = None
) -> web.Response:
    """``ready`` with cache headers, gzipped when the client accepts it, or 304 Not Modified
    when the browser has it already."""
    accepted = accepts_gzip(request.headers.get(hdrs.ACCEPT_ENCODING, ""))
    gzipped = ready.gzipped if accepted else None
    etag = ready.etag if gzipped is None else ready.gzipped_etag
    headers = {hdrs.CACHE_CONTROL: f"public, max-age={seconds}", hdrs.ETAG: etag}
    if ready.gzipped is not None:
        headers[hdrs.VARY] = hdrs.ACCEPT_ENCODING
    if modified is not None:
        headers[hdrs.LAST_MODIFIED] = format_datetime(modified, usegmt=True)
    if etag in request.headers.get(hdrs.IF_NONE_MATCH, ""):
        return web.Response(status=304, headers=headers)
    if gzipped is not None:
        headers[hdrs.CONTENT_ENCODING] = "gzip"
    body = ready.body if gzipped is None else gzipped
    textual = ready.content_type.startswith(("text/", "application/json", "image/svg"))
    charset = "utf-8" if textual else None
    return web.Response(
        body=body, content_type=ready.content_type, charset=charset, headers=headers
    )


async def start_web(
    settings: WebSettings,
    host: str,
    telnet: DoorServer,
    title: Callable[[], str],
    publisher: Publisher | None = None,
    telnet_port: int = 23,
    routes: Callable[[web.Application], None] | None = None,
) -> WebDoor:
    """Listen for the page and telnet over WebSocket on ``host`` and ``settings.port``;
    ``telnet`` is a :class:`DoorServer` made with way ``web`` on the door's node table,
    ``title`` gives the board's name for the page, ``publisher`` the scoreboards' pages,
    ``telnet_port`` the door's telnet port, offered when the page cannot show its terminal,
    ``routes`` adds more of the door's own (the league hub's API)."""
    door = WebDoor(settings, telnet, title, publisher, telnet_port, routes)
    await door.listen(host)
    return door
