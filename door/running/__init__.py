"""The door at work, as ``canfield-door serve`` runs it:

- :mod:`~door.running.service`: the service: its signals, reload, the sysop's live view
- :mod:`~door.running.ways`: every way in opened and wired to the visits
- :mod:`~door.running.control`: the sysop's control socket
- :mod:`~door.running.door_calls`: a door-mode call's own control socket, and the sysop finding them
- :mod:`~door.running.reload`: what reading sysop.toml again changes, and what needs a restart
- :mod:`~door.running.upkeep`: the bulletin files and nightly backups, as supervised jobs
  (on :mod:`door.tasks`)
- :mod:`~door.running.collector`: the garbage collector's passes, watched
"""
