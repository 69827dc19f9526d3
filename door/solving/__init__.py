"""The solver at work for the door:

- :mod:`~door.solving.pool`: the solver in worker processes, so that the event loop never waits
- :mod:`~door.solving.winnable`: deals proved winnable, found for ``winnable_only`` levels
- :mod:`~door.solving.daily`: the deal of the day, one proved winnable deal for every caller
"""
