"""A caller's visit: the ways in start one in :mod:`door.visit.session`; then logging in
(:mod:`~door.visit.login`) or signing up (:mod:`~door.visit.signup`), the main menu
(:mod:`~door.visit.menu`) and its games (:mod:`~door.visit.games`), the terminal settings
(:mod:`~door.visit.settings`), a game on the caller's screen (:mod:`~door.visit.play`,
:mod:`~door.visit.keys`) and the deal of the day (:mod:`~door.visit.daily`)."""
