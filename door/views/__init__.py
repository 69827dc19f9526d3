"""What each screen shows, drawn with ``ansi`` into a screen buffer:

- :mod:`~door.views.commands`: the game's commands in one table: keys, words, help, reminder
- :mod:`~door.views.board`: the game board, and the painter that draws again only what changed
- :mod:`~door.views.pointer`: where the piles are on the board: the pointer, held cards, clicks
- :mod:`~door.views.terse`: the game in words, a line per play
- :mod:`~door.views.refusals`: a refused play's reason in the caller's language and cards
- :mod:`~door.views.pages`: full-screen pages: the welcome, menus, scoreboards, statistics
- :mod:`~door.views.texts`: the words of the rules pages and the in-game help
- :mod:`~door.views.daily`: the deal of the day's pages
- :mod:`~door.views.contests`: a contest's pages: its deals, the caller's games, its table
- :mod:`~door.views.layout`: every text laid out at its screen's width, and paged
"""
