"""The ``canfield-door`` command line, one module per command:

- :mod:`~door.commands.main`: the entry point, one subcommand per job
- :mod:`~door.commands.serve`: ``serve``, the door on sysop.toml's ports and database
- :mod:`~door.commands.door`: ``door``, one visit for a caller a BBS sends with a drop file
- :mod:`~door.commands.local`: ``local``, the sysop plays on their own console
- :mod:`~door.commands.sysop`: ``sysop``, the parser of the sysop's commands, and its
  bulletin, backup and game commands
- :mod:`~door.commands.users`: ``sysop users`` and ``sysop user``: the users
- :mod:`~door.commands.scores`: ``sysop scores``, ``standings`` and ``reset-scores``
- :mod:`~door.commands.solve`: ``sysop solve``, the solver's verdict on a deal
- :mod:`~door.commands.contest`: ``sysop contest``, declaring and showing contests
- :mod:`~door.commands.league`: ``sysop league`` (keys, joining, the hub's boards) and
  ``league sync``, the InterBBS league from the sysop's side
- :mod:`~door.commands.live`: ``sysop who``, ``send``, ``kick``, ``watch``, ``status`` and
  ``reload``, over the running door's control socket
- :mod:`~door.commands.cli`: what the sysop's commands share: errors, settings, tables
"""
