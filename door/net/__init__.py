"""The ways a caller reaches the door, and what their line can do: telnet, a BBS's drop file
and standard streams or socket, and the :class:`~door.net.terminal.Terminal` they all end in."""
