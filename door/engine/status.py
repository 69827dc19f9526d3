"""The four states of a game, as the position JSON writes them."""

PLAYING, WON, STUCK, RESIGNED = "playing", "won", "stuck", "resigned"
STATUSES = (PLAYING, WON, STUCK, RESIGNED)
