"""The Canfield door: a BBS door server on which callers play Canfield solitaire."""

__version__ = "0.1.0"
