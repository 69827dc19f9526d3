"""A caller's visit: log in, the main menu, the game on their screen, the deal of the day."""
