"""A small terminal-drawing toolkit: escape sequences, colours, CP437, screen buffers.

It knows nothing of cards or of the door; the door draws its screens with it.
"""
