"""The ways a caller reaches the door, and what their line can do; nothing here knows a visit.

- Listeners: :mod:`~door.net.telnet`, :mod:`~door.net.ssh`, :mod:`~door.net.rlogin`, on one
  base, :mod:`~door.net.listening` (a call's terminal, its guarded visit, closing in order),
  sharing one table of nodes, :mod:`~door.net.nodes`. Which visit each hands its callers to
  is wired by the running door (:mod:`door.running.ways`).
- Door mode: :mod:`~door.net.dropfile` and :mod:`~door.net.doorio` (a BBS's drop file, and
  standard streams or an inherited socket).
- The line: :class:`~door.net.terminal.Terminal` (reading and writing), which they all end in,
  with :mod:`~door.net.detection` (ANSI, charset, size, the suits probe) and
  :mod:`~door.net.clocks` (the idle and time-left clocks); keys are parsed by :mod:`ansi.keys`.
"""
