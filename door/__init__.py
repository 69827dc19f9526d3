"""The Canfield door: a BBS door server on which callers play Canfield solitaire.

Its rooms (docs/architecture.md walks through them): :mod:`door.engine` (the rules),
:mod:`door.net` (the ways in), :mod:`door.visit` (a caller's visit), :mod:`door.views` (what
each screen shows), :mod:`door.store` (SQLite), :mod:`door.solving` (the solver at work),
:mod:`door.running` (the door as ``serve`` runs it), :mod:`door.league` (the InterBBS
league), :mod:`door.words` (its texts in each caller's language) and :mod:`door.commands`
(the command line); beside them, the modules several rooms share:

- :mod:`door.app`: the door's one application object: its services, handed to every visit
- :mod:`door.config`: sysop.toml, read and checked into frozen dataclasses
- :mod:`door.levels`: the levels of the main menu, and what the door adds to their rules
- :mod:`door.linked_board`: a board whose callers come over RLOGIN, as sysop.toml names it
- :mod:`door.xterm`: the pinned xterm.js the web page draws its terminal with
- :mod:`door.art`: the sysop's ANSI art: its screens, the room each takes, its files read
- :mod:`door.fairness`: secret deal numbers, seals, the deal of the day's secret start
- :mod:`door.contests`: contests opened and closed on time, and a contest's table as data
- :mod:`door.bulletin`: the scoreboards as bulletin files (ANSI, ASCII, JSON)
- :mod:`door.scoreboard_page`: the scoreboards as a web page and as JSON
- :mod:`door.replay`: a stored game replayed and checked through the rules
- :mod:`door.tasks`: background jobs, supervised and closed in order
- :mod:`door.files`: files the door writes for itself: owner-only, replaced whole
- :mod:`door.__main__`: ``python -m door``, the same entry point as ``canfield-door``
"""

__version__ = "0.1.0"
