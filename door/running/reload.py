"""Reading sysop.toml again in a running door: what changes now, and what needs a restart.

:func:`compare` is pure: given the settings the door runs with and the file as it reads now,
it says what the door will run with and lists, for the log, each change and each setting
that only a restart can change (the address and port listened on, the database file).

>>> import dataclasses
>>> from door.config import Config, ServerConfig
>>> running = Config()
>>> fresh = dataclasses.replace(running, server=ServerConfig(port=2424, max_nodes=8))
>>> reloaded = compare(running, fresh)
>>> reloaded.changes
('server.max_nodes: 32 -> 8',)
>>> reloaded.restart
('server.port: 2323 -> 2424',)
>>> reloaded.config.server.port, reloaded.config.server.max_nodes
(2323, 8)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from typing import Any

from door.config import Config
from door.levels import Level
from door.linked_board import LinkedBoard

# What a running door can't change: its listening socket and its open database.
RESTART_SETTINGS = ("host", "port", "database", "workers")


@dataclass(frozen=True, slots=True)
class Reloaded:
    """The settings to run with, and what the log should say about them."""

    config: Config
    changes: tuple[str, ...]
    restart: tuple[str, ...]


def compare(running: Config, fresh: Config) -> Reloaded:
    """The settings to run with after ``fresh`` was read: ``fresh``, except what needs a
    restart, which keeps its running value (and is named in :attr:`Reloaded.restart`)."""
    restart = tuple(
        f"server.{name}: {_shown(getattr(running.server, name))} -> "
        f"{_shown(getattr(fresh.server, name))}"
        for name in RESTART_SETTINGS
        if getattr(running.server, name) != getattr(fresh.server, name)
    )
    # The SSH, web and RLOGIN listeners too; the linked boards change at once.
    restart += (
        *_section_changes("ssh", running.ssh, fresh.ssh),
        *_section_changes("web", running.web, fresh.web),
        *_value_change("rlogin.port", running.rlogin.port, fresh.rlogin.port),
    )
    kept = {name: getattr(running.server, name) for name in RESTART_SETTINGS}
    config = dataclasses.replace(
        fresh,
        server=dataclasses.replace(fresh.server, **kept),
        ssh=running.ssh,
        web=running.web,
        rlogin=dataclasses.replace(fresh.rlogin, port=running.rlogin.port),
    )
    changes = [
        *_section_changes("bbs", running.bbs, config.bbs),
        *_section_changes("server", running.server, config.server),
        *_section_changes("scoreboard", running.scoreboard, config.scoreboard),
        *_value_change("limits.daily_games", running.daily_games, config.daily_games),
        *_value_change("game.default_level", running.default_level, config.default_level),
        *_section_changes("solver", running.solver, config.solver),
        *_section_changes("bulletin", running.bulletin, config.bulletin),
        *_section_changes("backup", running.backup, config.backup),
        *_board_changes(running.rlogin.boards, config.rlogin.boards),
        *_level_changes(running.levels, config.levels),
    ]
    return Reloaded(config, tuple(changes), restart)


def _section_changes(name: str, old: Any, new: Any) -> list[str]:
    return [
        line
        for field in fields(old)
        for line in _value_change(
            f"{name}.{field.name}", getattr(old, field.name), getattr(new, field.name)
        )
    ]


def _value_change(key: str, old: object, new: object) -> list[str]:
    return [] if old == new else [f"{key}: {_shown(old)} -> {_shown(new)}"]


def _board_changes(old: tuple[LinkedBoard, ...], new: tuple[LinkedBoard, ...]) -> list[str]:
    """The linked boards, by tag (a secret is never logged)."""
    if old == new:
        return []
    tags = [", ".join(board.tag for board in boards) or "none" for boards in (old, new)]
    if tags[0] == tags[1]:
        return [f"rlogin.boards: {tags[1]} (changed)"]
    return [f"rlogin.boards: {tags[0]} -> {tags[1]}"]


def _level_changes(old: tuple[Level, ...], new: tuple[Level, ...]) -> list[str]:
    lines = []
    for number in range(1, max(len(old), len(new)) + 1):
        before = old[number - 1] if number <= len(old) else None
        after = new[number - 1] if number <= len(new) else None
        if before == after:
            continue
        if after is None:
            assert before is not None  # both None are equal, passed over above
            lines.append(f"level {number} ({before.name}) removed")
        elif before is None:
            lines.append(f"level {number} ({after.name}) added")
        elif before.variant != after.variant:
            lines.append(f"level {number} ({after.name}): new rules, for games dealt from now")
        else:
            lines.append(f"level {number} ({after.name}) changed")
    return lines


def _shown(value: object) -> str:
    if isinstance(value, tuple) and not value:
        return "none"
    if isinstance(value, tuple) and len(value) == 2 and all(isinstance(n, int) for n in value):
        return f"{value[0]:02d}:{value[1]:02d}"  # a time of day
    if isinstance(value, tuple) and all(isinstance(item, tuple) for item in value):
        return ", ".join(f"{a} {b}" for a, b in value)
    return str(value) if value is not None else "none"
