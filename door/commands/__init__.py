"""The ``canfield-door`` command line: one module per command, and the entry point in
:mod:`door.commands.main`."""
