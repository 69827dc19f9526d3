"""What each screen shows, drawn with ``ansi``: the game board, menus, scoreboards, help."""
