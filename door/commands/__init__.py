"""The ``canfield-door`` command line: one module per command (:mod:`~door.commands.serve`,
:mod:`~door.commands.door`, :mod:`~door.commands.local`, :mod:`~door.commands.sysop`) and
the entry point in :mod:`door.commands.main`. The sysop's commands are several modules
(:mod:`~door.commands.users`, :mod:`~door.commands.scores`, :mod:`~door.commands.solve`,
:mod:`~door.commands.live`) on what they share, :mod:`door.commands.cli`."""
