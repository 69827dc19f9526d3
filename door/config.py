"""sysop.toml: the sysop's settings, read with tomllib and checked into frozen dataclasses.

Every section is optional and every setting has the default the shipped ``sysop.toml`` shows.
A bad file is refused as a whole with a :class:`ConfigError` that names the file, the key,
the value given and what would be accepted, so the sysop can fix it without reading code.

Why one module, however long: it is sysop.toml's one reader, a section after another in
the file's order, each a frozen dataclass and the checks of its keys, all sharing the few
helpers that word a refusal the same way. A sysop's question ("what does [rlogin] accept?")
is answered by reading one section here, top to bottom.

>>> config = Config()
>>> [level.name for level in config.levels]
['Level 1 - Draw one', 'Level 2 - Draw three', 'Level 3 - One pass']
>>> config.level(config.default_level).variant.multiplier
2
>>> config.level(3).variant.passes
1
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import ipaddress
import json
import math
import os
import re
import ssl
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from pathlib import Path
from typing import Any

from ansi.text import sanitize
from door.art import ScreenArt, read_screens
from door.engine.variant import Variant, VariantError
from door.levels import SHIPPED_LEVELS, Hints, Level
from door.linked_board import IpNetwork, LinkedBoard
from door.words.catalogs import ENGLISH, CatalogError, Catalogs
from door.xterm import ASSETS, PACKAGES

DEFAULT_CONFIG_PATH = Path("sysop.toml")

# Longest texts the screens are laid out for.
NAME_LIMIT = 60
SYSOP_LIMIT = 40
LEVEL_NAME_LIMIT = 40


class ConfigError(ValueError):
    """sysop.toml can't be used; the message says where, what was given and what would do.

    ``path`` is the file as it was named; ``key`` the dotted key at fault (``server.port``,
    ``levels[2].draw``), or None when the file as a whole is at fault (missing, not TOML).
    """

    def __init__(self, path: Path, message: str, key: str | None = None) -> None:
        self.path = path
        self.key = key
        super().__init__(f"{path}: {message}")


@dataclass(frozen=True, slots=True)
class BbsConfig:
    """What the welcome screen says about the board."""

    name: str = "The Canfield Door"
    sysop: str = "Sysop"


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """The telnet listener and its limits; times in seconds except ``time_limit`` (minutes)."""

    host: str = "0.0.0.0"
    port: int = 2323
    max_nodes: int = 32
    max_per_address: int = 4
    reserved_nodes: int = 4
    connections_per_minute: int = 20
    login_timeout: int = 90
    signups_per_hour: int = 3
    idle_timeout: int = 300
    idle_warning: int = 60
    time_limit: int = 60
    database: Path = Path("canfield.db")
    #: Processes serving callers (``serve`` only): 1 is one process, as door mode is; more
    #: run a front process that admits calls and hands each to one of that many workers.
    workers: int = 1


@dataclass(frozen=True, slots=True)
class ScoreboardConfig:
    """How many rows each scoreboard shows."""

    high_scores: int = 10
    standings: int = 20


@dataclass(frozen=True, slots=True)
class SshConfig:
    """The SSH listener: ``port`` None keeps it off. ``host_key`` None: the key file
    :data:`HOST_KEY_NAME` beside the database, made on first start."""

    port: int | None = None
    host_key: Path | None = None


HOST_KEY_NAME = "canfield-ssh-host-key"


@dataclass(frozen=True, slots=True)
class WebConfig:
    """The web page and its WebSocket: ``port`` None keeps them off. ``host`` None listens
    where telnet does. ``origins``: other sites whose pages may open the WebSocket (the
    door's own page always may); ``proxies``: the addresses whose X-Forwarded-For is believed;
    ``certificate`` and ``key``: TLS (https and wss); ``assets``: a folder of the sysop's own
    copy of xterm.js (None: the pinned files from a public CDN)."""

    port: int | None = None
    host: str | None = None
    origins: tuple[str, ...] = ()
    proxies: tuple[IpNetwork, ...] = ()
    certificate: Path | None = None
    key: Path | None = None
    assets: Path | None = None


@dataclass(frozen=True, slots=True)
class RloginConfig:
    """The RLOGIN listener for linked boards: ``port`` None keeps it off."""

    port: int | None = None
    boards: tuple[LinkedBoard, ...] = ()

    def board(self, tag: str) -> LinkedBoard | None:
        """The linked board with this tag (any letter case), or None."""
        return next((b for b in self.boards if b.tag.casefold() == tag.casefold()), None)


class DoorCharset(StrEnum):
    """How door mode chooses the caller's charset: by asking their screen, or as the sysop
    says."""

    AUTO = "auto"
    CP437 = "cp437"
    UTF_8 = "utf-8"
    ASCII = "ascii"


@dataclass(frozen=True, slots=True)
class SolverConfig:
    """How the door uses the solver. ``daily_level`` None: the default level."""

    seconds: float = 10.0
    tell_winnable: bool = True
    daily_level: int | None = None
    ready: int = 5


BULLETIN_FORMATS = ("ansi", "ascii", "json")


@dataclass(frozen=True, slots=True)
class BulletinConfig:
    """The bulletin files the door keeps up to date itself: ``(format, path)`` pairs."""

    files: tuple[tuple[str, Path], ...] = ()


@dataclass(frozen=True, slots=True)
class BackupConfig:
    """Nightly backups: into ``folder`` (None: none) at ``time`` (hour, minute), local
    time; the newest ``keep`` are kept."""

    folder: Path | None = None
    time: tuple[int, int] = (3, 30)
    keep: int = 7


LEAGUE_KEY_NAME = "canfield-league-key"


@dataclass(frozen=True, slots=True)
class LeagueConfig:
    """The InterBBS league: ``hub`` true makes this door the league's hub (its API on the
    web port); ``hub_url`` makes it a member of the hub there. ``tag`` and ``name`` are the
    board as the league's table shows it; ``key`` the board's private key file (None: one
    beside the database); ``hub_key`` the hub's public key, pinned here rather than by
    ``sysop league join``."""

    hub: bool = False
    hub_url: str | None = None
    tag: str | None = None
    name: str | None = None
    key: Path | None = None
    hub_key: str | None = None

    @property
    def on(self) -> bool:
        return self.hub or self.hub_url is not None


@dataclass(frozen=True, slots=True)
class ArtConfig:
    """The sysop's own ANSI art: the ``folder`` it is in (None: the door's own screens) and
    the ``screens`` art found there, read when sysop.toml is (so a reload reads it again)."""

    folder: Path | None = None
    screens: tuple[ScreenArt, ...] = ()

    def screen(self, name: str) -> ScreenArt | None:
        """The art for the screen called ``name`` (``welcome``, ``menu`` ...), if any."""
        return next((art for art in self.screens if art.screen.name == name), None)


@dataclass(frozen=True, slots=True)
class Config:
    """Everything sysop.toml says, checked; ``path`` is the file it was read from."""

    bbs: BbsConfig = field(default_factory=BbsConfig)
    server: ServerConfig = field(default_factory=ServerConfig)
    scoreboard: ScoreboardConfig = field(default_factory=ScoreboardConfig)
    daily_games: int = 0
    default_level: int = 2
    levels: tuple[Level, ...] = SHIPPED_LEVELS
    solver: SolverConfig = field(default_factory=SolverConfig)
    bulletin: BulletinConfig = field(default_factory=BulletinConfig)
    backup: BackupConfig = field(default_factory=BackupConfig)
    ssh: SshConfig = field(default_factory=SshConfig)
    rlogin: RloginConfig = field(default_factory=RloginConfig)
    web: WebConfig = field(default_factory=WebConfig)
    path: Path = DEFAULT_CONFIG_PATH
    door_charset: DoorCharset = DoorCharset.AUTO
    league: LeagueConfig = field(default_factory=LeagueConfig)
    art: ArtConfig = field(default_factory=ArtConfig)
    #: The languages the door speaks: its own catalogs and the sysop's, and the board's.
    words: Catalogs = field(default_factory=Catalogs.read)

    @property
    def league_key(self) -> Path:
        """The board's league key file: ``[league] key``, or one beside the database."""
        return self.league.key or self.server.database.parent / LEAGUE_KEY_NAME

    @property
    def host_key(self) -> Path:
        """The SSH host key file: sysop.toml's ``[ssh] host_key``, or one beside the database."""
        return self.ssh.host_key or self.server.database.parent / HOST_KEY_NAME

    def __post_init__(self) -> None:
        # The menu numbers levels 1, 2, ... in order; anything else would mislabel it.
        if [level.number for level in self.levels] != list(range(1, len(self.levels) + 1)):
            raise ValueError("levels must be numbered 1, 2, ... in order")
        if not 1 <= self.default_level <= len(self.levels):
            raise ValueError(f"default_level {self.default_level} is not among the levels")
        if not 1 <= self.daily_level <= len(self.levels):
            raise ValueError(f"solver.daily_level {self.daily_level} is not among the levels")

    @property
    def daily_level(self) -> int:
        """The level the deal of the day is played at."""
        return self.solver.daily_level or self.default_level

    def level(self, number: int) -> Level:
        """The level with this menu number; KeyError if there is none."""
        if isinstance(number, int) and 1 <= number <= len(self.levels):
            return self.levels[number - 1]
        raise KeyError(number)


def load_config(path: str | Path = DEFAULT_CONFIG_PATH) -> Config:
    """Read and check sysop.toml; ConfigError (the first fault found) if it can't be used."""
    path = Path(path)
    document = _read_toml(path)
    return _Reader(path).config(document)


# --- reading the file -----------------------------------------------------------------------


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(path, f"no such file (looked for {_absolute(path)})") from None
    except OSError as error:
        raise ConfigError(path, f"can't be read: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        byte = data[error.start]
        raise ConfigError(
            path, f"line {line}: byte 0x{byte:02x} is not UTF-8; save the file as UTF-8"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        # tomllib's message ends with "(at line N, column M)".
        raise ConfigError(path, f"not valid TOML: {error}") from None
    except (ValueError, RecursionError) as error:
        # Numbers of over 4300 digits, arrays nested thousands deep: tomllib gives no line.
        raise ConfigError(path, f"not valid TOML: {error}") from None


def _absolute(path: Path) -> Path:
    """The path made absolute and tidied, without resolving symlinks."""
    return Path(os.path.normpath(path.expanduser().absolute()))


# --- checks for single values ---------------------------------------------------------------


class _Refused(Exception):
    """A value a check does not take; carries the words for what it would take."""

    def __init__(self, accepted: str) -> None:
        super().__init__(accepted)
        self.accepted = accepted


Check = Callable[[object], Any]


def _whole(low: int, high: int | None = None, note: str = "") -> Check:
    """A whole number from low (to high); TOML's true and false are not numbers."""
    if high is None:
        words = f"a whole number of at least {low}"
    else:
        words = f"a whole number from {low} to {high}"

    def check(value: object) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise _Refused(words + _type_hint(value, int) + note)
        if value < low or (high is not None and value > high):
            raise _Refused(words + note)
        return value

    return check


def _flag(value: object) -> bool:
    """true or false, written without quotes."""
    if not isinstance(value, bool):
        raise _Refused("true or false" + _type_hint(value, bool))
    return value


def _choice(choices: type[StrEnum]) -> Check:
    """One of a few words, in quotes: the setting of that name."""
    words = " or ".join(json.dumps(choice) for choice in choices)

    def check(value: object) -> StrEnum:
        if not isinstance(value, str) or value not in tuple(choices):
            raise _Refused(words + _type_hint(value, str))
        return choices(value)

    return check


def _seconds(low: float, high: float) -> Check:
    """A number of seconds (whole or not) from low to high."""
    words = f"a number of seconds from {low:g} to {high:g}"

    def check(value: object) -> float:
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise _Refused(words + _type_hint(value, float))
        if not (math.isfinite(value) and low <= value <= high):
            raise _Refused(words)
        return float(value)

    return check


def _text(limit: int, what: str = "text", spaces: bool = True) -> Check:
    """A string, cleaned of control characters, non-empty, at most ``limit`` characters."""
    words = f"{what} of 1 to {limit} characters"
    if not spaces:
        words += ", without spaces"

    def check(value: object) -> str:
        if not isinstance(value, str):
            raise _Refused(words + _type_hint(value, str))
        cleaned = sanitize(value)
        if not cleaned or len(cleaned) > limit or (not spaces and " " in cleaned):
            raise _Refused(words)
        return cleaned

    return check


def _plain(what: str, spaces: bool = True) -> Check:
    """A string used as given (an address, a file name): refused, not cleaned, if odd."""
    words = f"{what} in quotes" + ("" if spaces else ", without spaces")

    def check(value: object) -> str:
        if not isinstance(value, str):
            raise _Refused(words)
        if not value.strip() or not value.isprintable() or (not spaces and " " in value):
            raise _Refused(words)
        return value

    return check


def _time_of_day(value: object) -> tuple[int, int]:
    """A time of day, "HH:MM" in quotes or a TOML time: (hour, minute)."""
    words = 'a time of day from "00:00" to "23:59", in quotes'
    if isinstance(value, dt.time):
        return value.hour, value.minute
    if not isinstance(value, str):
        raise _Refused(words)
    found = re.fullmatch(r"([01]?[0-9]|2[0-3]):([0-5][0-9])", value.strip())
    if found is None:
        raise _Refused(words)
    return int(found.group(1)), int(found.group(2))


def _type_hint(value: object, wanted: type) -> str:
    """A word on the commonest slips: quotes round a number, true/false as a number."""
    if wanted is str:
        return ", in quotes" if not isinstance(value, str) else ""
    if wanted is bool:
        return ", without quotes" if isinstance(value, str) else ""
    if isinstance(value, bool):
        return ", not true or false"
    if isinstance(value, str):
        return ", without quotes"
    return ""


def _shown(value: object) -> str:
    """A value as it would be written in TOML, cut short if long."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, float) and not math.isfinite(value):
        text = str(value)
    elif isinstance(value, list):
        text = "[" + ", ".join(_shown(item) for item in value) + "]"
    elif isinstance(value, dict):
        text = "{" + ", ".join(f"{_key(k)} = {_shown(v)}" for k, v in value.items()) + "}"
    elif hasattr(value, "isoformat"):
        text = value.isoformat()
    else:
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _key(name: str) -> str:
    """A key as TOML would need it written: bare if it can be, else quoted."""
    bare = name and all(c.isascii() and (c.isalnum() or c in "-_") for c in name)
    return name if bare else json.dumps(name, ensure_ascii=False)


# --- what each section takes ----------------------------------------------------------------

_BBS: dict[str, Check] = {
    "name": _text(NAME_LIMIT),
    "sysop": _text(SYSOP_LIMIT),
}
_SERVER: dict[str, Check] = {
    "host": _plain("an address or host name", spaces=False),
    "port": _whole(0, 65535, " (0 lets the system pick a free port)"),
    "max_nodes": _whole(1),
    "max_per_address": _whole(1),
    "reserved_nodes": _whole(0, note=" (at most server.max_nodes - 1 are kept)"),
    "connections_per_minute": _whole(1),
    "login_timeout": _whole(0, note=" (0 for no limit)"),
    "signups_per_hour": _whole(0, note=" (0 for no limit)"),
    "idle_timeout": _whole(1),
    "idle_warning": _whole(0),
    "time_limit": _whole(0, note=" (0 for no limit)"),
    "database": _plain("a file name"),
    "workers": _whole(1, note=" (processes serving callers; 1 for one process)"),
}
_SCOREBOARD: dict[str, Check] = {
    "high_scores": _whole(1),
    "standings": _whole(1),
}
_LIMITS: dict[str, Check] = {"daily_games": _whole(0, note=" (0 for no limit)")}
_GAME: dict[str, Check] = {"default_level": _whole(1)}
_SOLVER: dict[str, Check] = {
    "seconds": _seconds(0.1, 600),
    "tell_winnable": _flag,
    "daily_level": _whole(1),
    "ready": _whole(0, 100, " (0 keeps none ready: each caller waits for a search)"),
}
_BULLETIN: dict[str, Check] = {name: _plain("a file name") for name in BULLETIN_FORMATS}
_BACKUP: dict[str, Check] = {
    "folder": _plain("a folder name"),
    "time": _time_of_day,
    "keep": _whole(1, 1000),
}
_DOOR: dict[str, Check] = {"charset": _choice(DoorCharset)}
_SECTIONS = (
    "bbs",
    "server",
    "scoreboard",
    "limits",
    "game",
    "solver",
    "bulletin",
    "backup",
    "ssh",
    "rlogin",
    "web",
    "door",
    "league",
    "art",
    "words",
    "levels",
)
_SSH: dict[str, Check] = {
    "port": _whole(0, 65535, " (0 lets the system pick a free port)"),
    "host_key": _plain("a file name"),
}
_RLOGIN: dict[str, Check] = {
    "port": _whole(0, 65535, " (0 lets the system pick a free port)"),
}
_WEB: dict[str, Check] = {
    "port": _whole(0, 65535, " (0 lets the system pick a free port)"),
    "host": _plain("an address or host name", spaces=False),
    "origins": lambda value: value,  # checked by _Reader.web, which knows the whole list
    "proxies": lambda value: value,
    "certificate": _plain("a file name"),
    "key": _plain("a file name"),
    "assets": _plain("a folder name"),
}
_LEAGUE: dict[str, Check] = {
    "hub": lambda value: value,  # checked by _Reader.league: true, or the hub's address
    "tag": lambda value: value,
    "name": _text(NAME_LIMIT),
    "key": _plain("a file name"),
    "hub_key": _plain("a public key (ed25519:...)", spaces=False),
}
_ART: dict[str, Check] = {"folder": _plain("a folder name")}
_WORDS: dict[str, Check] = {
    "language": _plain("a language's code, such as \"en\" or \"de\"", spaces=False),
    "folder": _plain("a folder name"),
}
ORIGIN_PATTERN = re.compile(r"(https?)://([a-z0-9.-]+|\[[0-9a-f:.]+\])(:[0-9]{1,5})?")
TAG_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,16}")
SECRET_MIN, SECRET_MAX = 8, 64
_BOARD_KEYS = ("tag", "name", "addresses", "secret")
_BOARD_OPTIONS: dict[str, Check] = {"max_calls": _whole(1)}
# What the door adds to a level, beside the engine's knobs.
_DOOR_LEVEL_KEYS: dict[str, Check] = {"hints": _choice(Hints), "winnable_only": _flag}
_LEVEL_KEYS = ("name", *Variant.knob_names(), *_DOOR_LEVEL_KEYS)


class _Reader:
    """Checks one parsed document against what each section takes; stops at the first fault."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def refuse(self, key: str, value: object, accepted: str) -> ConfigError:
        return ConfigError(self.path, f"{key} = {_shown(value)} is not accepted: {accepted}", key)

    def config(self, document: Mapping[str, Any]) -> Config:
        for name, value in document.items():
            if name not in _SECTIONS:
                sections = ", ".join(f"[{s}]" for s in _SECTIONS[:-1]) + " and [[levels]]"
                raise ConfigError(
                    self.path,
                    f"{_key(name)} = {_shown(value)} is not a setting; "
                    f"the file takes the sections {sections}",
                    _key(name),
                )
        bbs = BbsConfig(**self.section(document, "bbs", _BBS))
        server = self.server(self.section(document, "server", _SERVER))
        scoreboard = ScoreboardConfig(**self.section(document, "scoreboard", _SCOREBOARD))
        limits = self.section(document, "limits", _LIMITS)
        levels = self.levels(document)
        game = self.section(document, "game", _GAME)
        default_level = game.get("default_level", _DEFAULTS.default_level)
        if default_level > len(levels):
            raise self.refuse(
                "game.default_level",
                default_level,
                f"the number of one of the levels, 1 to {len(levels)}",
            )
        solver = SolverConfig(**self.section(document, "solver", _SOLVER))
        if solver.daily_level is not None and solver.daily_level > len(levels):
            raise self.refuse(
                "solver.daily_level",
                solver.daily_level,
                f"the number of one of the levels, 1 to {len(levels)}",
            )
        bulletin = self.bulletin(self.section(document, "bulletin", _BULLETIN))
        backup = self.backup(self.section(document, "backup", _BACKUP))
        config = Config(
            bulletin=bulletin,
            backup=backup,
            bbs=bbs,
            server=server,
            scoreboard=scoreboard,
            daily_games=limits.get("daily_games", _DEFAULTS.daily_games),
            default_level=default_level,
            levels=levels,
            solver=solver,
            ssh=self.ssh(self.section(document, "ssh", _SSH)),
            rlogin=self.rlogin(document),
            web=self.web(self.section(document, "web", _WEB)),
            path=self.path,
            door_charset=self.section(document, "door", _DOOR).get("charset", DoorCharset.AUTO),
            league=self.league(self.section(document, "league", _LEAGUE), bbs.name),
            art=self.art(self.section(document, "art", _ART)),
            words=self.words(self.section(document, "words", _WORDS)),
        )
        if config.league.hub and config.web.port is None:
            raise self.refuse(
                "league.hub", True, "true only with the web port on: [web] port serves the hub"
            )
        return config

    def league(self, settings: dict[str, Any], bbs_name: str) -> LeagueConfig:
        if not settings:
            return LeagueConfig()
        hub = settings.get("hub", False)
        hub_url: str | None = None
        if isinstance(hub, str):
            found = re.fullmatch(r"(https?)://([^/\s:]+|\[[0-9a-fA-F:.]+\])(:[0-9]{1,5})?/?", hub)
            if found is None or (
                found.group(1) == "http"
                and found.group(2) not in ("127.0.0.1", "localhost", "[::1]")
            ):
                raise self.refuse(
                    "league.hub",
                    hub,
                    'true (this door is the hub), or the hub\'s address, "https://host[:port]" '
                    "(http only on this machine, 127.0.0.1)",
                )
            hub_url, hub = hub.rstrip("/"), False
        elif not isinstance(hub, bool):
            raise self.refuse("league.hub", hub, "true, or the hub's address in quotes")
        tag = settings.get("tag")
        if not isinstance(tag, str) or not TAG_PATTERN.fullmatch(tag):
            raise self.refuse(
                "league.tag", tag, "the board's tag: 1 to 16 letters, digits, - or _, in quotes"
            )
        hub_key = settings.get("hub_key")
        if hub_key is not None and not _public_key_text(hub_key):
            raise self.refuse("league.hub_key", hub_key, "a public key: ed25519: and 44 base64")
        key = self.beside(settings["key"]) if "key" in settings else None
        name = settings.get("name", bbs_name)
        return LeagueConfig(hub, hub_url, tag, name, key, hub_key)

    def art(self, settings: dict[str, Any]) -> ArtConfig:
        if "folder" not in settings:
            return ArtConfig()
        folder = self.beside(settings["folder"])
        if not folder.is_dir():
            raise ConfigError(
                self.path,
                f"art.folder = {_shown(settings['folder'])} is not a folder (looked for "
                f"{folder}): name the folder that holds the art, such as welcome.ans",
                "art.folder",
            )
        try:
            screens = read_screens(folder)
        except OSError as error:
            raise ConfigError(
                self.path,
                f"art.folder = {_shown(settings['folder'])}: {error.filename} can't be read: "
                f"{error.strerror or error}",
                "art.folder",
            ) from None
        return ArtConfig(folder, screens)

    def words(self, settings: dict[str, Any]) -> Catalogs:
        folder = self.beside(settings["folder"]) if "folder" in settings else None
        if folder is not None and not folder.is_dir():
            raise ConfigError(
                self.path,
                f"words.folder = {_shown(settings['folder'])} is not a folder (looked for "
                f"{folder}): name the folder that holds your catalogs, such as de.po",
                "words.folder",
            )
        language = settings.get("language", ENGLISH)
        try:
            return Catalogs.read(language, folder)
        except CatalogError as error:
            raise ConfigError(self.path, f"words.folder: {error}", "words.folder") from None
        except OSError as error:
            raise ConfigError(
                self.path,
                f"words.folder = {_shown(settings['folder'])}: {error.filename} can't be "
                f"read: {error.strerror or error}",
                "words.folder",
            ) from None
        except LookupError:
            offered = ", ".join(f'"{code}"' for code in Catalogs.read(ENGLISH, folder).languages)
            raise self.refuse(
                "words.language", language, f"a language the door has a catalog of: {offered}"
            ) from None

    def ssh(self, settings: dict[str, Any]) -> SshConfig:
        if "host_key" in settings:  # relative to sysop.toml's folder, as the database is
            key = Path(settings["host_key"]).expanduser()
            settings["host_key"] = _absolute(_absolute(self.path).parent / key)
        return SshConfig(**settings)

    def web(self, settings: dict[str, Any]) -> WebConfig:
        origins = settings.get("origins", [])
        accepted = 'a list of sites, each a scheme and host, such as ["https://bbs.example.com"]'
        if not isinstance(origins, list):
            raise self.refuse("web.origins", origins, accepted)
        for origin in origins:
            if not isinstance(origin, str) or not ORIGIN_PATTERN.fullmatch(origin.lower()):
                raise self.refuse("web.origins", origin, accepted)
        settings["origins"] = tuple(origin.lower() for origin in origins)
        settings["proxies"] = self.networks(
            "web.proxies", settings.get("proxies", []), allow_empty=True
        )
        for name in ("certificate", "key", "assets"):
            if name in settings:
                settings[name] = self.beside(settings[name])
        if ("certificate" in settings) != ("key" in settings):
            given, missing = (
                ("certificate", "key") if "certificate" in settings else ("key", "certificate")
            )
            raise ConfigError(
                self.path,
                f"web.{given} is set but web.{missing} is missing: TLS needs both files",
                f"web.{missing}",
            )
        if "certificate" in settings:
            try:
                ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(
                    settings["certificate"], settings["key"]
                )
            except (OSError, ssl.SSLError) as error:
                reason = getattr(error, "strerror", None) or getattr(error, "reason", None)
                raise ConfigError(
                    self.path,
                    f"web.certificate and web.key can't be used for TLS: {reason or error} "
                    "(a PEM certificate chain, and its PEM private key without a passphrase)",
                    "web.certificate",
                ) from None
        if "assets" in settings:
            folder: Path = settings["assets"]
            missing_files = [a.path for a in ASSETS if not (folder / a.path).is_file()]
            if missing_files:
                raise ConfigError(
                    self.path,
                    f"web.assets = {_shown(str(folder))} has no {missing_files[0]}: the folder "
                    f"is node_modules/@xterm after `npm install --prefix FOLDER "
                    f"{' '.join(PACKAGES)}`",
                    "web.assets",
                )
        return WebConfig(**settings)

    def networks(
        self, key: str, addresses: object, *, allow_empty: bool = False
    ) -> tuple[IpNetwork, ...]:
        """A list of IP addresses or networks, checked."""
        accepted = 'a list of IP addresses or networks, such as ["192.0.2.7", "2001:db8::/64"]'
        if not isinstance(addresses, list) or not (addresses or allow_empty):
            raise self.refuse(key, addresses, accepted)
        networks: list[IpNetwork] = []
        for address in addresses:
            try:
                networks.append(ipaddress.ip_network(address, strict=False))
            except (TypeError, ValueError):
                raise self.refuse(key, address, accepted) from None
        return tuple(networks)

    def rlogin(self, document: Mapping[str, Any]) -> RloginConfig:
        table = document.get("rlogin", {})
        if not isinstance(table, dict):
            raise self.refuse("rlogin", table, "an [rlogin] section")
        settings = {key: value for key, value in table.items() if key != "boards"}
        port = self.section({"rlogin": settings}, "rlogin", _RLOGIN).get("port")
        tables = table.get("boards", [])
        if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
            raise self.refuse("rlogin.boards", tables, "[[rlogin.boards]] tables, one a board")
        boards: list[LinkedBoard] = []
        for number, board_table in enumerate(tables, start=1):
            board = self.board(number, board_table)
            for earlier in boards:
                for what in ("tag", "name"):
                    if getattr(earlier, what).casefold() == getattr(board, what).casefold():
                        raise self.refuse(
                            f"rlogin.boards[{number}].{what}",
                            board_table[what],
                            f"a {what} no other linked board has",
                        )
            boards.append(board)
        return RloginConfig(port=port, boards=tuple(boards))

    def board(self, number: int, table: Mapping[str, Any]) -> LinkedBoard:
        where = f"rlogin.boards[{number}]"
        for key, value in table.items():
            if key not in _BOARD_KEYS and key not in _BOARD_OPTIONS:
                raise ConfigError(
                    self.path,
                    f"{where}.{_key(key)} = {_shown(value)} is not a setting; "
                    f"a linked board takes {', '.join((*_BOARD_KEYS, *_BOARD_OPTIONS))}",
                    f"{where}.{_key(key)}",
                )
        for key in _BOARD_KEYS:
            if key not in table:
                raise ConfigError(
                    self.path,
                    f"{where}.{key} is missing: every linked board needs {', '.join(_BOARD_KEYS)}",
                    f"{where}.{key}",
                )
        tag, secret, addresses = table["tag"], table["secret"], table["addresses"]
        if not isinstance(tag, str) or not TAG_PATTERN.fullmatch(tag):
            raise self.refuse(f"{where}.tag", tag, "1 to 16 letters, digits, - or _, in quotes")
        try:
            name = _text(NAME_LIMIT)(table["name"])
        except _Refused as refused:
            raise self.refuse(f"{where}.name", table["name"], refused.accepted) from None
        if (
            not isinstance(secret, str)
            or not SECRET_MIN <= len(secret) <= SECRET_MAX
            or not all(char.isascii() and char.isprintable() and char != " " for char in secret)
        ):
            raise self.refuse(
                f"{where}.secret",
                "..." if isinstance(secret, str) else secret,  # a secret is not echoed
                f"{SECRET_MIN} to {SECRET_MAX} ASCII letters, digits or signs, without "
                "spaces, in quotes",
            )
        networks = self.networks(f"{where}.addresses", addresses)
        max_calls = table.get("max_calls")
        if max_calls is not None:
            try:
                max_calls = _BOARD_OPTIONS["max_calls"](max_calls)
            except _Refused as refused:
                raise self.refuse(f"{where}.max_calls", max_calls, refused.accepted) from None
        return LinkedBoard(tag, name, networks, secret, max_calls)

    def section(
        self, document: Mapping[str, Any], name: str, checks: Mapping[str, Check]
    ) -> dict[str, Any]:
        """The checked settings of one [section]; those not given are left out."""
        table = document.get(name, {})
        if not isinstance(table, dict):
            raise self.refuse(name, table, f"a [{name}] section")
        checked: dict[str, Any] = {}
        for key, value in table.items():
            dotted = f"{name}.{_key(key)}"
            if key not in checks:
                raise ConfigError(
                    self.path,
                    f"{dotted} = {_shown(value)} is not a setting; "
                    f"[{name}] takes {', '.join(checks)}",
                    dotted,
                )
            try:
                checked[key] = checks[key](value)
            except _Refused as refused:
                raise self.refuse(dotted, value, refused.accepted) from None
        return checked

    def server(self, settings: dict[str, Any]) -> ServerConfig:
        timeout = settings.get("idle_timeout", _DEFAULTS.server.idle_timeout)
        warning = settings.get("idle_warning", _DEFAULTS.server.idle_warning)
        if warning >= timeout:
            raise self.refuse(
                "server.idle_warning",
                warning,
                f"fewer seconds than server.idle_timeout ({timeout}); 0 for no warning",
            )
        # Callers must be able to log in: past max_nodes - 1, reserved nodes are that many.
        nodes = settings.get("max_nodes", _DEFAULTS.server.max_nodes)
        reserved = min(settings.get("reserved_nodes", _DEFAULTS.server.reserved_nodes), nodes - 1)
        settings["reserved_nodes"] = reserved
        # A relative database lives beside sysop.toml, wherever the server is started from.
        database = Path(settings.get("database", _DEFAULTS.server.database)).expanduser()
        settings["database"] = _absolute(_absolute(self.path).parent / database)
        return ServerConfig(**settings)

    def beside(self, name: str) -> Path:
        """A file named in sysop.toml: a relative name is taken from the file's folder."""
        return _absolute(_absolute(self.path).parent / Path(name).expanduser())

    def bulletin(self, settings: dict[str, Any]) -> BulletinConfig:
        files = tuple(
            (fmt, self.beside(settings[fmt])) for fmt in BULLETIN_FORMATS if fmt in settings
        )
        return BulletinConfig(files)

    def backup(self, settings: dict[str, Any]) -> BackupConfig:
        if "folder" in settings:
            settings["folder"] = self.beside(settings["folder"])
        return BackupConfig(**settings)

    def levels(self, document: Mapping[str, Any]) -> tuple[Level, ...]:
        if "levels" not in document:
            return SHIPPED_LEVELS
        tables = document["levels"]
        if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
            raise self.refuse("levels", tables, "[[levels]] tables, one for each level")
        if not tables:
            raise self.refuse("levels", tables, "at least one [[levels]] table")
        levels: list[Level] = []
        for number, table in enumerate(tables, start=1):
            level = self.level(number, table)
            for earlier in levels:
                if earlier.name.casefold() == level.name.casefold():
                    raise self.refuse(
                        f"levels[{number}].name",
                        table["name"],
                        f"a name no other level has (level {earlier.number} is called that)",
                    )
            levels.append(level)
        return tuple(levels)

    def level(self, number: int, table: Mapping[str, Any]) -> Level:
        where = f"levels[{number}]"
        for key, value in table.items():
            if key not in _LEVEL_KEYS:
                raise ConfigError(
                    self.path,
                    f"{where}.{_key(key)} = {_shown(value)} is not a setting; "
                    f"a level takes {', '.join(_LEVEL_KEYS)}",
                    f"{where}.{_key(key)}",
                )
        if "name" not in table:
            raise ConfigError(
                self.path,
                f'{where}.name is missing: every level needs a name, such as "Level {number}"',
                f"{where}.name",
            )
        try:
            name = _text(LEVEL_NAME_LIMIT)(table["name"])
        except _Refused as refused:
            raise self.refuse(f"{where}.name", table["name"], refused.accepted) from None
        extras: dict[str, Any] = {}
        for key, check in _DOOR_LEVEL_KEYS.items():
            if key in table:
                try:
                    extras[key] = check(table[key])
                except _Refused as refused:
                    raise self.refuse(f"{where}.{key}", table[key], refused.accepted) from None
        knobs = {
            key: value
            for key, value in table.items()
            if key != "name" and key not in _DOOR_LEVEL_KEYS
        }
        try:
            variant = Variant.from_dict(knobs)
        except VariantError as error:
            accepted = error.accepted + _type_hint(error.value, _KNOB_TYPES[error.knob])
            raise self.refuse(f"{where}.{error.knob}", error.value, accepted) from None
        return Level(number, name, variant, **extras)


def _public_key_text(text: str) -> bool:
    """Whether ``text`` is an Ed25519 public key as ``sysop league key`` prints it."""
    body = text.strip().removeprefix("ed25519:")
    if body == text.strip():
        return False
    try:
        return len(base64.b64decode(body, validate=True)) == 32
    except binascii.Error:
        return False


# Slotted dataclasses keep no class-level defaults, so read them off an instance.
_DEFAULTS = Config()

# The TOML type of each knob (a setting is written as its word), read off the defaults, for
# the hint after a type slip.
_KNOB_TYPES: dict[str, type] = {
    f.name: str if isinstance(f.default, str) else type(f.default) for f in fields(Variant)
}
