"""The web way in: a page with a terminal on it, telnet over WebSocket, and published pages.

aiohttp serves HTTP and WebSocket on ``[web] port``:

- ``GET /``: the page (the files in ``door/net/page/``), xterm.js drawing the door's screen,
  its words (and door.js's, in a JSON block door.js reads) in the board's language; a
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
``Origin`` is the door's own page, on a name the door knows it is reached by (never the
``Host`` the request names, which a page of a name made to point at the door names too), or
one of ``[web] origins`` (:class:`Origins`); a client that is not a browser sends no
``Origin`` and is let in, as on telnet. The refusal is a WebSocket closed at once with a
reason, which the page shows. Messages are limited to
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
import json
import logging
import socket
import ssl
import string
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime
from gettext import NullTranslations
from importlib import resources
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

from aiohttp import WSCloseCode, hdrs, web

from door.net.listening import CLOSE_GRACE, SHUTDOWN_MESSAGE, AddressLog
from door.net.telnet import DoorServer
from door.net.web_guard import (
    KEEPALIVE_SECONDS,
    AcceptFailures,
    GuardedConnection,
    HttpFaultLog,
    WebConnections,
    asks_to_upgrade,
    connection_cap,
    guarded,
    open_file_limit,
)
from door.net.websocket import SUBPROTOCOLS, carry
from door.words import ENGLISH, N_, Catalogs, _, speaking
from door.words.speaking import ENGLISH_WORDS
from door.words.told import told
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
        coding, _semicolon, parameters = entry.partition(";")
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
    if not header or not within(peer, proxies):
        return peer
    for entry in reversed(header.split(",")):
        address = entry.strip()
        try:
            ipaddress.ip_address(address)
        except ValueError:
            return peer
        if not within(address, proxies):
            return address
    return peer


def within(address: str, networks: Sequence[IpNetwork]) -> bool:
    """Whether ``address`` (an IPv4 one mapped into IPv6 as itself) is in one of ``networks``."""
    try:
        parsed = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
        parsed = parsed.ipv4_mapped
    return any(parsed in network for network in networks)


DEFAULT_PORTS = {"http": 80, "https": 443}
WILDCARDS = frozenset({"", "0.0.0.0", "::", "*"})
REFUSED_ORIGIN = N_("This door's WebSocket is not for pages of that site.")
CLOSE_REASON_MOST = 123  # bytes of a WebSocket's close reason, at most (RFC 6455)


def parsed_origin(origin: str) -> tuple[str, str, int] | None:
    """An ``Origin``'s scheme, host and port (the scheme's own when left out); None for one
    that is not a web page's (``null``, ``chrome-extension://...``).

    >>> parsed_origin("HTTP://BBS.example:8080/"), parsed_origin("https://[::1]")
    (('http', 'bbs.example', 8080), ('https', '::1', 443))
    >>> parsed_origin("chrome-extension://bbs.example:8080"), parsed_origin("null")
    (None, None)
    """
    try:
        parts = urlsplit(origin.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port or DEFAULT_PORTS[parts.scheme]


@dataclass(frozen=True, slots=True)
class Origins:
    """The pages that may open the door's WebSocket: the door's own, on the names it is
    reached by (``names``: its host settings, the addresses it listens on, the machine's
    name, ``localhost``) with its ``scheme`` and ``port``, or on the very address a browser
    connected to; and the sites of ``[web] origins`` (``listed``). Never the ``Host`` a
    request names: a page of a name made to point at the door (DNS rebinding) names its own.

    >>> door = Origins("http", 8080, frozenset({"bbs.example", "127.0.0.1"}),
    ...                frozenset({("https", "fans.example", 443)}))
    >>> door.allow("http://bbs.example:8080", "10.0.0.5"), door.allow(None, "10.0.0.5")
    (True, True)
    >>> door.allow("http://rebound.example:8080", "10.0.0.5")  # its Host says the same
    False
    >>> door.allow("https://bbs.example:8080", "10.0.0.5")  # another scheme
    False
    >>> door.allow("chrome-extension://bbs.example:8080", "10.0.0.5")
    False
    >>> door.allow("http://10.0.0.5:8080", "10.0.0.5"), door.allow("https://fans.example", "")
    (True, True)
    """

    scheme: str
    port: int
    names: frozenset[str]
    listed: frozenset[tuple[str, str, int]]

    def allow(self, origin: str | None, local: str) -> bool:
        """Whether a WebSocket with this ``Origin`` (None: not a browser) may go on, on a
        connection made to the door's address ``local``."""
        if origin is None:
            return True
        parsed = parsed_origin(origin)
        if parsed is None:
            return False
        if parsed in self.listed:
            return True
        scheme, host, port = parsed
        if (scheme, port) != (self.scheme, self.port):
            return False
        return host in self.names or _same_address(host, local)


def _same_address(host: str, local: str) -> bool:
    try:
        one = ipaddress.ip_address(host)
        other = ipaddress.ip_address(local.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(other, "ipv4_mapped", None)
    return one == (mapped or other)


def door_names(hosts: Sequence[str], listening: Sequence[str]) -> frozenset[str]:
    """The names a browser may reach the door by: ``hosts`` (its host settings, but the
    wildcards), the addresses it listens on, the machine's own name, and the loopback's."""
    names = {"localhost", "127.0.0.1", "::1", socket.gethostname(), socket.getfqdn()}
    names.update(hosts)
    names.update(listening)
    return frozenset(name.lower() for name in names if name.lower() not in WILDCARDS)


# The command to call the door by telnet, which door.js rewrites for the page's own host.
TELNET_LINK = (
    '<a id="telnet" href="telnet://localhost:{port}"><code>telnet localhost {port}</code></a>'
)


def page_html(title: str, local_assets: bool, telnet_port: int, words: PageWords) -> bytes:
    """The page, in the board's language (``words``), naming the pinned xterm.js files: the
    CDN's with their integrity hashes, or the sysop's own copy under /assets/. Should they
    not load, the page says where they were to come from and offers the door's telnet port
    instead. What door.js says as the call goes is in the page too, in a JSON block.

    >>> english = page_html("Door", False, 23, PageWords()).decode()
    >>> '<html lang="en">' in english, "<title>Door - Canfield</title>" in english
    (True, True)
    >>> german = PageWords("de_AT", Catalogs.read("de").words("de"))
    >>> page = page_html("Door", False, 23, german).decode()
    >>> '<html lang="de-AT">' in page, '"connected": "Verbunden."' in page
    (True, True)
    """
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
    with speaking(words.words):
        if local_assets:
            unloaded = _text(
                _(
                    "This page draws the door's screen with xterm.js, and your browser could "
                    "not load it from this board: a content blocker, a firewall or a network "
                    "that reaches nothing beyond this board may be stopping it. Allow it and "
                    "reload the page."
                )
            )
        else:
            unloaded = _text(
                _(
                    "This page draws the door's screen with xterm.js, and your browser could "
                    "not load it from {site}: a content blocker, a firewall or a network that "
                    "reaches nothing beyond this board may be stopping it. Allow it and reload "
                    "the page."
                )
            ).format(site=html.escape(urlsplit(CDN).hostname or CDN))
        command = TELNET_LINK.format(port=telnet_port)
        by_telnet = _text(
            _(
                "Or call the door by telnet, with SyncTERM, NetRunner, PuTTY or any telnet "
                "program: {command}."
            )
        ).format(command=command)
        text = template.substitute(
            language=html.escape(words.language.replace("_", "-")),
            # TRANSLATORS: the browser tab's title: the board's name, then the game's
            tab_title=html.escape(_("{board} - Canfield").format(board=title)),
            title=html.escape(title),
            xterm="\n    ".join(tags),
            telnet_port=telnet_port,
            connecting=_text(_("Connecting ...")),
            connect_again=_text(_("Connect again")),
            # TRANSLATORS: the link to the scoreboards' page, above the terminal
            scoreboards=_text(_("Scoreboards")),
            # TRANSLATORS: for a screen reader: the row of keys under the terminal
            keys_label=_attribute(_("Keys a touch screen's keyboard lacks")),
            unloaded=unloaded,
            by_telnet=by_telnet,
            noscript=_text(_("This page needs JavaScript to show the door's terminal.")),
            words=_script_json(_said_by_the_page(title)),
        )
    return text.encode("utf-8")


def _text(text: str) -> str:
    """``text`` escaped for the page's HTML, its apostrophes as they are."""
    return html.escape(text, quote=False)


def _attribute(text: str) -> str:
    """``text`` escaped for an attribute of the page's in double quotes."""
    return _text(text).replace('"', "&quot;")


@dataclass(frozen=True, slots=True)
class PageWords:
    """The language the page speaks: its code (as ``[words] language`` gives it) and its
    catalog."""

    language: str = ENGLISH
    words: NullTranslations = ENGLISH_WORDS


def _said_by_the_page(title: str) -> dict[str, object]:
    """What door.js says, in the language spoken now: the status line as the call goes
    (``{reason}``, which door.js fills: why the door refused the call, as the door said
    it), the tab's title in each state, and the labels of the touch keys that are words."""
    tab_title = _("{board} - Canfield").format(board=title)
    return {
        "connecting": _("Connecting ..."),
        "connected": _("Connected."),
        "unloaded": _("Cannot show the terminal: xterm.js did not load."),
        "tooBig": _(
            "Cut off: that paste was more than the door takes at once ({size} KB)."
        ).format(size=MAX_MESSAGE // 1024),
        "refused": _("Refused: {reason}"),
        "refusedUnsaid": _("Refused: the door takes no calls from this page."),
        "ended": _("Cut off: the call has ended."),
        "unanswered": _("Cut off: the door did not answer."),
        "tab": {
            # TRANSLATORS: the browser tab's title while the page connects to the door
            "connecting": _("Connecting - {title}").format(title=tab_title),
            # TRANSLATORS: the browser tab's title while the call goes on
            "connected": _("Connected - {title}").format(title=tab_title),
            # TRANSLATORS: the browser tab's title once the call has ended
            "closed": _("Cut off - {title}").format(title=tab_title),
            # TRANSLATORS: the browser tab's title when xterm.js did not load
            "unloaded": _("No terminal - {title}").format(title=tab_title),
        },
        "keys": {
            # TRANSLATORS: at most 9 characters (a key on a touch screen's row of keys)
            "space": _("Space"),
            # TRANSLATORS: at most 9 characters (a key on a touch screen's row of keys)
            "enter": _("Enter"),
        },
    }


def _script_json(value: object) -> str:
    """``value`` as JSON to stand in a ``<script>`` element: no ``<``, ``>`` or ``&`` that
    could end it, whatever a sysop's catalog says.

    >>> print(_script_json({"a": "</script> & ü"}))
    {"a": "\\u003c/script\\u003e \\u0026 ü"}
    """
    text = json.dumps(value, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _page_file(name: str) -> bytes:
    return resources.files("door.net").joinpath("page", name).read_bytes()


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


class WebDoor:
    """The web way in: listens (:meth:`listen`), or serves connections another process accepted
    (:meth:`adopt`); ended by :meth:`close`."""

    def __init__(
        self,
        settings: WebSettings,
        telnet: DoorServer,
        title: Callable[[], str],
        publisher: Publisher | None = None,
        telnet_port: int = 23,
        routes: Callable[[web.Application], None] | None = None,
        *,
        words: Callable[[], Catalogs],
    ) -> None:
        self.settings = settings
        self._words = words  # the board's language, which the page speaks
        self._routes = routes  # more of the door's own (the league hub's API)
        self.telnet = telnet
        self._title = title
        self._telnet_port = telnet_port
        self._publisher = publisher
        self._published: _Published | None = None
        self._publishing = asyncio.Lock()
        # The page made for a title in a language (its catalog, as the door holds it): a
        # reload that changes either makes it again.
        self._page: tuple[tuple[str, PageWords], Payload] | None = None
        self._assets: dict[str, Payload] = {}  # the sysop's xterm.js files, by path
        self._runner: web.AppRunner | None = None
        self._port = 0
        self._refusals = AddressLog()  # a line per address a minute: no flood fills the log
        limits = telnet.nodes.limits
        self.connections = WebConnections(
            lambda: limits.max_per_address,
            lambda: connection_cap(open_file_limit(), limits.max_nodes),
            lambda peer: within(peer, self.settings.proxies),
            lambda: self.telnet.nodes.words,
        )
        self._accept_failures: AcceptFailures | None = None
        self._context: ssl.SSLContext | None = None
        self.origins = Origins(self.scheme, 0, frozenset(), frozenset())

    @property
    def port(self) -> int:
        """The port listened on (the real one when the settings said 0)."""
        return self._port

    @property
    def scheme(self) -> str:
        return "https" if self.settings.certificate is not None else "http"

    def application(self) -> web.Application:
        app = web.Application(
            client_max_size=4096,
            handler_args={"max_field_size": 8190},
            middlewares=[_counted_in(self.connections)],
        )
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

    async def _set_up(self) -> web.AppRunner:
        """aiohttp's runner of the application, ready to serve connections."""
        if self.settings.certificate is not None and self.settings.key is not None:
            self._context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            self._context.load_cert_chain(self.settings.certificate, self.settings.key)
        # By the time the runner stops, every visit has ended (close() ends them first):
        # what is left are connections still negotiating, cut after a moment.
        self._runner = web.AppRunner(
            self.application(),
            access_log=None,
            handle_signals=False,
            shutdown_timeout=2.0,
            keepalive_timeout=KEEPALIVE_SECONDS,
            logger=HttpFaultLog(self.connections.refusals),
        )
        if self.settings.assets is not None:
            await asyncio.to_thread(self._read_assets)
        await self._runner.setup()
        return self._runner

    def _reached_on(self, host: str, port: int, addresses: Sequence[str]) -> None:
        self._port = port
        listed = (parsed_origin(origin) for origin in self.settings.origins)
        self.origins = Origins(
            self.scheme,
            port,
            door_names([host], addresses),
            frozenset(origin for origin in listed if origin is not None),
        )

    async def listen(self, host: str) -> None:
        runner = await self._set_up()
        site = GuardedSite(runner, host, self.settings.port or 0, self._context, self.connections)
        await site.start()
        self._reached_on(host, site.port, site.addresses)
        self._accept_failures = AcceptFailures(asyncio.get_running_loop())
        log.info("listening for web on %s port %d (%s)", host, self._port, self.scheme)

    async def serve_handed(self, host: str, port: int) -> None:
        """Listen on nothing and serve the connections another process accepts on ``host``
        and ``port`` and hands over (:meth:`adopt`)."""
        await self._set_up()
        self._reached_on(host, port, [])

    async def adopt(self, sock: socket.socket, gone: Callable[[], None]) -> None:
        """Serve a connection another process accepted (:meth:`serve_handed`), guarded as
        one accepted here is (its TLS handshake, if any, done here); ``gone()`` once it has
        ended."""
        assert self._runner is not None and self._runner.server is not None
        server = self._runner.server

        def guarded_connection() -> GuardedConnection:
            return GuardedConnection(server(), self.connections, gone)

        try:
            await asyncio.get_running_loop().connect_accepted_socket(
                guarded_connection, sock, ssl=self._context
            )
        except (OSError, ssl.SSLError, TimeoutError):  # gone, or no TLS handshake
            sock.close()
            gone()

    async def close(self, reason: str = SHUTDOWN_MESSAGE, *, grace: float = CLOSE_GRACE) -> None:
        """End every web caller's visit as a telnet caller's, then stop listening."""
        await self.telnet.close(reason, grace=grace)
        if self._runner is not None:
            await self._runner.cleanup()
        if self._accept_failures is not None:
            self._accept_failures.remove()

    # --- the page and its files -----------------------------------------------------------

    async def _root(self, request: web.Request) -> web.StreamResponse:
        if _is_upgrade(request):
            return await self._websocket(request)
        catalogs = self._words()
        title, words = self._title(), PageWords(catalogs.language, catalogs.words(None))
        if self._page is None or self._page[0] != (title, words):
            local = self.settings.assets is not None
            page = page_html(title, local, self._telnet_port, words)
            self._page = ((title, words), payload(page, "text/html"))
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
        # Every X-Forwarded-For header, as one list: a proxy may add its own header rather
        # than append to the caller's, which must not be the one believed.
        forwarded = ",".join(request.headers.getall("X-Forwarded-For", [])) or None
        address = forwarded_address(direct, forwarded, self.settings.proxies)
        connection = self.connections.of(request.transport)
        if connection is not None:
            connection.address = address
            if not connection.upgrade():  # its first frames, sent at once, were a flood
                return web.Response(status=429)
        origin = request.headers.get(hdrs.ORIGIN)
        local = request.transport.get_extra_info("sockname") if request.transport else None
        if not self.origins.allow(origin, str(local[0]) if local else ""):
            self._refusals.note(
                address,
                f"refused WEB from {address}: a WebSocket from a page of {_clean(origin)} "
                "(not the door's own, nor in [web] origins)",
            )
            return await _refuse_websocket(request, told(REFUSED_ORIGIN, self.telnet.nodes.words))
        socket = web.WebSocketResponse(
            protocols=SUBPROTOCOLS,
            max_msg_size=READ_LIMIT,
            heartbeat=HEARTBEAT,
            compress=False,  # nothing to gain on a terminal's few bytes, and no inflating
        )
        await socket.prepare(request)
        where = (address, peer[1] if peer else 0)
        await carry(
            socket,
            socket.ws_protocol,
            self.telnet.connection(),
            where,
            local,
            max_message=MAX_MESSAGE,
            words=self.telnet.nodes.words,
        )
        return socket


class GuardedSite(web.BaseSite):
    """aiohttp's TCP site, each connection guarded (:mod:`door.net.web_guard`) before
    aiohttp's handler sees it."""

    def __init__(
        self,
        runner: web.AppRunner,
        host: str,
        port: int,
        ssl_context: ssl.SSLContext | None,
        table: WebConnections,
    ) -> None:
        super().__init__(runner, ssl_context=ssl_context)
        self._web_runner = runner
        self._host, self._wanted_port, self._context = host, port, ssl_context
        self._table = table
        self._listening: asyncio.Server | None = None

    @property
    def port(self) -> int:
        """The port listened on (the real one when 0 was asked for)."""
        assert self._listening is not None and self._listening.sockets
        return int(self._listening.sockets[0].getsockname()[1])

    @property
    def addresses(self) -> list[str]:
        """The addresses listened on."""
        assert self._listening is not None
        return [str(sock.getsockname()[0]) for sock in self._listening.sockets]

    @property
    def name(self) -> str:
        scheme = "https" if self._context is not None else "http"
        return f"{scheme}://{self._host}:{self._wanted_port}"

    async def start(self) -> None:
        await super().start()
        server = self._web_runner.server
        assert server is not None
        self._listening = await asyncio.get_running_loop().create_server(
            guarded(server, self._table),
            self._host,
            self._wanted_port,
            ssl=self._context,
            reuse_address=True,
        )

    async def stop(self) -> None:
        if self._listening is not None:
            self._listening.close()
        await super().stop()


async def _refuse_websocket(request: web.Request, reason: str) -> web.StreamResponse:
    """Take the WebSocket only to close it at once, as a policy violation, saying why
    (``reason``, cut to what a close frame holds): a browser's page sees the close code and
    its reason, where a refused handshake would look to it like a door that never answered.
    Nothing of it is read."""
    refused = web.WebSocketResponse(protocols=SUBPROTOCOLS, compress=False)
    await refused.prepare(request)
    said = reason.encode("utf-8")[:CLOSE_REASON_MOST].decode("utf-8", "ignore").encode("utf-8")
    await refused.close(code=WSCloseCode.POLICY_VIOLATION, message=said)
    return refused


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _counted_in(connections: WebConnections) -> Callable[..., Awaitable[web.StreamResponse]]:
    """A middleware counting each request on its connection, which is not ended to make
    room for another meanwhile. A request that asked to upgrade and was not taken as a
    WebSocket ends its connection once answered: aiohttp would read what follows as more
    requests, which the guard, having taken it for the WebSocket's, neither timed nor
    measured."""

    @web.middleware
    async def counted(request: web.Request, handler: Handler) -> web.StreamResponse:
        connection = connections.of(request.transport)
        if connection is not None:
            connection.requests += 1
        try:
            response = await handler(request)
        except web.HTTPException as refusal:
            if _declined_upgrade(request, connection):
                refusal.force_close()
            raise
        finally:
            if connection is not None:
                connection.requests -= 1
        if _declined_upgrade(request, connection):
            response.force_close()
        return response

    return counted


def _declined_upgrade(request: web.Request, connection: GuardedConnection | None) -> bool:
    asked = asks_to_upgrade(
        request.method,
        ",".join(request.headers.getall(hdrs.CONNECTION, [])),
        ",".join(request.headers.getall(hdrs.UPGRADE, [])),
    )
    return asked and not (connection is not None and connection.upgraded)


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
