"""The door at work, as ``canfield-door serve`` runs it: the service and its signals, the
sysop's control socket, reloading sysop.toml, and the bulletins and backups it keeps up."""
