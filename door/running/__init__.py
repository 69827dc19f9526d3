"""The door at work, as ``canfield-door serve`` runs it:

- :mod:`~door.running.service`: the service: its signals, reload, the sysop's live view
- :mod:`~door.running.ways`: every way in opened and wired to the visits
- :mod:`~door.running.front`: ``serve`` on every core: the front process that listens, admits
  and hands each telnet connection to a worker
- :mod:`~door.running.worker`: a worker of the front, serving the connections it is handed
- :mod:`~door.running.handoff`: the line between the front and a worker, connections riding
  along (``SCM_RIGHTS``)
- :mod:`~door.running.control`: the sysop's control socket
- :mod:`~door.running.door_calls`: a door-mode call's own control socket, and the sysop finding them
- :mod:`~door.running.reload`: what reading sysop.toml again changes, and what needs a restart
- :mod:`~door.running.upkeep`: the bulletin files and nightly backups, as supervised jobs
  (on :mod:`door.tasks`)
- :mod:`~door.running.collector`: the garbage collector's passes, watched
"""
