"""Keys from a caller's terminal: the input side of the escape sequences :mod:`ansi` writes.

:class:`KeyParser` turns the bytes a terminal sends into keys: printable characters, Enter and
the editing keys, arrows, other escape sequences as one key, the Escape key on its own, and
mouse reports (SGR and the old X10 form), whatever the packets they arrive in.

>>> KeyParser("utf-8").feed(b"x\\x1b[B\\r") == ["x", DOWN, ENTER]
True
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from ansi.charset import InputDecoder

# Keys as KeyParser reports them, besides printable characters.
ENTER = "\r"
ERASE = "\b"
KILL = "\x15"  # Ctrl-U
ESCAPE = "\x1b"  # the Escape key on its own
SEQUENCE = "\x1b["  # any other whole escape sequence (function keys, Home, End, keypad)

# Arrow keys as KeyParser reports them (CSI and SS3 forms alike).
UP, DOWN, RIGHT, LEFT = "\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D"
_ARROWS = {"A": UP, "B": DOWN, "C": RIGHT, "D": LEFT}

# Asking a terminal for mouse reports (xterm's press and release, SGR coordinates), and
# stopping them.
MOUSE_ON = "\x1b[?1000h\x1b[?1006h"
MOUSE_OFF = "\x1b[?1006l\x1b[?1000l"


def printable(char: str) -> bool:
    """Whether a typed character may go into a line: letters, digits, marks of punctuation,
    symbols and spaces; not controls, combining marks or the decoder's replacement mark."""
    if char == "\ufffd":
        return False
    category = unicodedata.category(char)
    return category[0] in "LNPS" or category == "Zs"


_TEXT, _ESC, _CSI, _SS3, _X10 = range(5)


@dataclass(frozen=True, slots=True)
class Mouse:
    """A mouse report: a button pressed or released at screen ``row``, ``col`` (1-based).

    ``button`` is 0, 1 or 2 (left, middle, right); a release in the old X10 form does not
    say which button, and has ``button`` -1.
    """

    row: int
    col: int
    pressed: bool
    button: int = 0


Key = str | Mouse
"""What :class:`KeyParser` reports: a one-character key (see :data:`ENTER` and the others),
an arrow (:data:`UP` ...), :data:`SEQUENCE`, :data:`ESCAPE` or a :class:`Mouse` report."""


class KeyParser:
    """Turns the caller's bytes into keys, keeping its state across packets.

    A key is a printable character, :data:`ENTER`, :data:`ERASE` (BS or DEL), :data:`KILL`
    (Ctrl-U), an arrow (:data:`UP`, :data:`DOWN`, :data:`LEFT`, :data:`RIGHT`, as ``ESC [``
    or ``ESC O``), :data:`SEQUENCE` (any other escape sequence: Home, End, the keypad in
    application mode, function keys), :data:`ESCAPE` or a :class:`Mouse` report (SGR
    ``ESC [ < b ; x ; y M``/``m``, or the old ``ESC [ M b x y`` whose coordinates may be
    bytes over 127). Escape sequences are read as bytes, before the text is decoded in the
    caller's charset. Enter is CR LF, CR NUL, a lone CR or a lone LF; the LF or NUL after a
    CR is swallowed even when it arrives in the next packet. Other control characters are
    dropped.

    >>> parser = KeyParser("utf-8")
    >>> parser.feed(b"ab\\x1b[Ac\\x1bOB\\x1b[15~\\r") == ["a", "b", UP, "c", DOWN, SEQUENCE, "\\r"]
    True
    >>> parser.feed(b"\\nd\\x00\\x07\\x7f\\n")
    ['d', '\\x08', '\\r']
    >>> parser.feed(b"\\x1b[<0;12;4M\\x1b[M#\\xe1%")
    [Mouse(row=4, col=12, pressed=True, button=0), Mouse(row=5, col=193, pressed=False, button=-1)]

    An ESC with nothing after it is held: :meth:`expire` makes it the key :data:`ESCAPE` once
    the caller's terminal has had time to send the rest of a sequence. An ESC followed by
    anything but ``[`` or ``O`` is :data:`ESCAPE`, then that key. A sequence begun and not
    finished in that time is the keys it was typed as (Escape, then ``O``, ...): a caller who
    presses Escape and then a letter quickly never loses either key.

    >>> parser = KeyParser("utf-8")
    >>> parser.feed(b"\\x1bO"), parser.holding_escape, parser.expire(), parser.feed(b"2")
    ([], True, ['\\x1b', 'O'], ['2'])
    """

    _LONGEST = 32  # a "sequence" longer than this is garbage, not a key

    def __init__(self, charset: str = "ascii") -> None:
        self._decoder = InputDecoder(charset)
        self._state = _TEXT
        self._after_cr = False
        self._sequence_bytes = bytearray()
        self._unfinished = bytearray()  # the bytes of the sequence under way, after its ESC

    @property
    def charset(self) -> str:
        return self._decoder.charset

    @charset.setter
    def charset(self, charset: str) -> None:
        if charset != self._decoder.charset:
            self._decoder = InputDecoder(charset)

    @property
    def holding_escape(self) -> bool:
        """Whether an ESC, or an escape sequence not yet finished, came last: what
        :meth:`expire` would make keys."""
        return self._state != _TEXT

    def expire(self) -> list[Key]:
        """No more bytes came in time: a held ESC is the Escape key, and a sequence not
        finished is the keys it was typed as."""
        if self._state == _TEXT:
            return []
        self._state = _TEXT
        self._sequence_bytes.clear()
        keys: list[Key] = [ESCAPE]
        self._text(self._unfinished, keys)  # read as typed (and cleared)
        return keys

    def feed(self, data: bytes) -> list[Key]:
        """The keys completed by ``data``."""
        keys: list[Key] = []
        text = bytearray()
        for byte in data:
            if self._state == _TEXT:
                if byte == 0x1B:
                    self._text(text, keys)
                    self._escape()
                else:
                    text.append(byte)
                continue
            belongs, key = self._sequence(byte)
            if key is not None:
                keys.append(key)
            if belongs:
                self._unfinished.append(byte)
            elif byte == 0x1B:
                self._escape()
            else:
                text.append(byte)
        self._text(text, keys)
        return keys

    def _escape(self) -> None:
        self._state = _ESC
        self._sequence_bytes.clear()
        self._unfinished.clear()

    def _text(self, data: bytearray, keys: list[Key]) -> None:
        if not data:
            return
        for char in self._decoder.feed(bytes(data)):
            key = self._char(char)
            if key is not None:
                keys.append(key)
        data.clear()

    def _char(self, char: str) -> str | None:
        after_cr, self._after_cr = self._after_cr, char == "\r"
        if char == "\r":
            return ENTER
        if char == "\n":
            return None if after_cr else ENTER
        if char in ("\b", "\x7f"):
            return ERASE
        if char == KILL:
            return KILL
        return char if printable(char) else None

    def _sequence(self, byte: int) -> tuple[bool, Key | None]:
        """Whether ``byte`` belongs to the escape sequence under way, and the key it ends."""
        self._after_cr = False
        if self._state == _ESC:
            if byte in b"[O":
                self._state = _CSI if byte == ord("[") else _SS3
                return True, None
            self._state = _TEXT
            return False, ESCAPE  # a lone ESC, then a key of its own
        held = self._sequence_bytes
        if self._state == _X10:
            held.append(byte)
            if len(held) < 3:
                return True, None
            self._state = _TEXT
            return True, _x10_mouse(held)
        if self._state == _CSI and not held and byte == ord("["):
            self._state = _SS3  # Linux console F1-F5: ESC [ [ A, one more byte ends it
            return True, None
        if self._state == _CSI and not held and byte == ord("M"):
            self._state = _X10  # an old-style mouse report: three bytes follow
            return True, None
        if 0x40 <= byte <= 0x7E:  # the final byte
            kind, self._state = self._state, _TEXT
            return True, _sequence_key(kind == _SS3, bytes(held), chr(byte))
        if 0x20 <= byte <= 0x3F and len(held) < self._LONGEST:  # parameters
            held.append(byte)
            return True, None
        # Not a sequence after all (a control character, or garbage): read it as typed, so
        # that ESC [ followed by Enter is still Enter.
        self._state = _TEXT
        return False, None


def _sequence_key(ss3: bool, params: bytes, final: str) -> Key:
    """The key a whole escape sequence stands for."""
    if final in _ARROWS and (ss3 or not params or params.startswith(b"1;")):
        return _ARROWS[final]
    if not ss3 and final in "Mm" and params.startswith(b"<"):
        fields = params[1:].split(b";")
        if len(fields) == 3 and all(field.isdigit() for field in fields):
            code, col, row = (int(field) for field in fields)
            if code < 32 and col >= 1 and row >= 1:  # no motion, no wheel
                return Mouse(row, col, final == "M", code & 3)
    return SEQUENCE


def _x10_mouse(data: bytearray) -> Key:
    """An old-style report: button, column and row, each plus 32, one byte each."""
    code, col, row = (byte - 32 for byte in data)
    if code < 0 or code & 96 or col < 1 or row < 1:  # motion, wheel or nonsense
        return SEQUENCE
    button = code & 3
    return Mouse(row, col, button != 3, -1 if button == 3 else button)
