"""The door at work, as ``canfield-door serve`` runs it: the service and its signals
(:mod:`~door.running.service`), every way in opened and wired to the visits
(:mod:`~door.running.ways`), the sysop's control socket (:mod:`~door.running.control`),
reloading sysop.toml (:mod:`~door.running.reload`), and the bulletins and backups it keeps up
as supervised jobs (:mod:`~door.running.upkeep`, :mod:`door.tasks`)."""
