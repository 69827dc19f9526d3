"""The solver at work for the door:

- :mod:`~door.solving.pool`: the solver in processes of its own, so that the event loop never
  waits; they are there only while there is solving to do
- :mod:`~door.solving.child`: one such process, answering positions sent to it as JSON lines
- :mod:`~door.solving.winnable`: deals proved winnable, found for ``winnable_only`` levels
- :mod:`~door.solving.daily`: the deal of the day, one proved winnable deal for every caller
"""
