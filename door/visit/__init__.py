"""A caller's visit, from the way in to goodbye:

- :mod:`~door.visit.session`: where each way in starts a visit, and the visit of a known user
- :mod:`~door.visit.context`: what a visit knows: terminal, user, look, the door's services
- :mod:`~door.visit.login`: alias and password, and claiming the caller's node
- :mod:`~door.visit.signup`: a new caller's account
- :mod:`~door.visit.menu`: the main menu, scoreboards, statistics and the rules
- :mod:`~door.visit.games`: levels, deals, resuming a saved game
- :mod:`~door.visit.play`: one game on the caller's screen: key, engine, store, screen
- :mod:`~door.visit.keys`: keys on the board (hot keys, lines, the pointer, the mouse) as
  command lines
- :mod:`~door.visit.advice`: the answer to HINT, and whether a stuck deal could have been won
- :mod:`~door.visit.daily`: the deal of the day at the main menu
- :mod:`~door.visit.contests`: the contests' pages and their games
- :mod:`~door.visit.settings`: the terminal settings page, an SSH key
- :mod:`~door.visit.screens`: a page of text and its question
- :mod:`~door.visit.art`: the sysop's ANSI art as one caller sees it
- :mod:`~door.visit.faults`: what a caller is told when the store could not keep a change
"""
