"""The ways a caller reaches the door, and what their line can do; nothing here knows a visit.
Which visit each way hands its callers to is wired by the running door (:mod:`door.running.ways`).

- :mod:`~door.net.telnet`: the telnet server, on telnetlib3
- :mod:`~door.net.telnet_guard`: guards between a telnet client and telnetlib3 (checked
  sub-negotiations, a budget for telnet commands)
- :mod:`~door.net.ssh`: the SSH server, on asyncssh
- :mod:`~door.net.rlogin`: the RLOGIN server, for linked boards' callers
- :mod:`~door.net.web`: the web page, the WebSocket and published pages, on aiohttp (the
  page's HTML, CSS and script are in ``page/``; the xterm.js it loads is :mod:`door.xterm`)
- :mod:`~door.net.websocket`: a telnet connection carried in WebSocket messages
- :mod:`~door.net.web_guard`: the web port held as telnet is: every connection counted and
  timed, every WebSocket frame paid for, refusals logged without flooding the log
- :mod:`~door.net.library_internals`: every reach into telnetlib3's or asyncio's private
  state, one function each, each checked by ``tests/test_library_internals.py``
- :mod:`~door.net.listening`: what every listener shares: admission, a call's terminal, its
  guarded visit, closing in order
- :mod:`~door.net.nodes`: the one table of nodes for every way in, and its limits
- :mod:`~door.net.presence`: what the sysop sees of a call (alias, activity, its screen for
  watchers), kept on the node table's record of it
- :mod:`~door.net.dropfile`: door mode's drop files (DOOR32.SYS, DOOR.SYS, DORINFOx.DEF)
- :mod:`~door.net.doorio`: door mode's line: standard streams, an inherited or a connected socket
- :mod:`~door.net.terminal`: the :class:`~door.net.terminal.Terminal` every way ends in:
  keys in (parsed by :mod:`ansi.keys`), text out in the caller's charset
- :mod:`~door.net.detection`: ANSI, charset, size, and the suits probe
- :mod:`~door.net.clocks`: the idle and time-left clocks
- :mod:`~door.net.alarm`: one timer a caller for those clocks' waits, kept from wait to wait
- :mod:`~door.net.pace`: how fast the door acts on a caller's commands
"""
