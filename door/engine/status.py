"""The four states of a game, as the position JSON and the store write them.

>>> Status("won") is Status.WON, Status.WON == "won", f"{Status.STUCK}"
(True, True, 'stuck')
"""

from enum import StrEnum


class Status(StrEnum):
    PLAYING = "playing"
    WON = "won"
    STUCK = "stuck"
    RESIGNED = "resigned"
