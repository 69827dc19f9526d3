"""A small terminal toolkit: escape sequences, colours, CP437, screen buffers, and the keys a
terminal sends back.

It knows nothing of cards or of the door (it imports nothing from :mod:`door`); the door
draws its screens with it and reads its callers' keys through it.

- :mod:`ansi.charset`: ``encode``/``decode`` for the charsets a caller can have (CP437 with
  the BBS suit glyphs, UTF-8, plain ASCII) and an ``InputDecoder`` for input in pieces.
- :mod:`ansi.sequences`: cursor moves, clearing, colours, the cursor position report.
- :mod:`ansi.keys`: the input side: ``KeyParser`` turns a terminal's bytes into keys (Enter,
  the editing keys, arrows, other escape sequences, the Escape key, mouse reports).
- :mod:`ansi.screen`: ``ScreenBuffer``, a grid of styled cells that renders only what
  changed, and its plain-text form for callers without ANSI.
- :mod:`ansi.art`: ANSI art (CP437 ``.ans``, its SAUCE record) read into a screen's cells.
- :mod:`ansi.text`: ``sanitize``, for text one caller typed and another will see.
"""
