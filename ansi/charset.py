"""The three character sets a caller's terminal can have: CP437, UTF-8 and plain ASCII.

The door writes ``str`` and encodes it once, for the caller in front of it, with
:func:`encode`; what the caller types is read back with :func:`decode` or, when it arrives in
pieces, with an :class:`InputDecoder`.

CP437 here is the BBS convention rather than Python's ``cp437`` codec: BBS terminals draw the
IBM PC glyphs for bytes 0x01-0x1F, so the suits are single bytes there.

>>> encode("7♥ on 8♠", "cp437")
b'7\\x03 on 8\\x06'
>>> encode("7♥ on 8♠", "ascii")
b'7H on 8S'
>>> encode("7♥", "utf-8")
b'7\\xe2\\x99\\xa5'
>>> encode("\\x1b[2J┌─┐", "cp437")
b'\\x1b[2J\\xda\\xc4\\xbf'
>>> decode(b"caf\\x82\\r\\n", "cp437")
'café\\r\\n'

The glyphs of CP437's bytes 0x01-0x1F are sent only to a screen seen drawing them: for any
other, ``encode(..., low_glyphs=False)`` sends each of them as an ASCII stand-in:

>>> encode("► 7♥", "cp437", low_glyphs=False)
b'> 7H'

Encoding never raises: a character with no byte in the caller's charset is drawn as the
closest one it has, or ``?``. In CP437 and ASCII every character that takes one column on the
screen becomes exactly one byte, so a screen laid out in ``str`` stays laid out on the wire.
"""

from __future__ import annotations

import codecs
import unicodedata
from collections.abc import Callable

CHARSETS = ("cp437", "utf-8", "ascii")

# The IBM PC font's glyphs for 0x01-0x1F, in byte order.
_LOW_GLYPHS = "☺☻♥♦♣♠•◘○◙♂♀♪♫☼►◄↕‼¶§▬↨↑↓→←∟↔▲▼"

# Bytes a terminal acts on instead of drawing, so their glyphs are never sent: NUL BEL BS TAB
# LF CR ESC are what the door itself writes, and terminals also act on VT (line down), FF
# (clears an ANSI-BBS screen), SO/SI (switch character sets on VT-family terminals) and CAN/SUB
# (abort an escape sequence). ♣ is ENQ (0x05): a VT-family terminal may answer it, which is one
# reason CP437 is only for terminals that draw these glyphs.
_ACTED_ON = frozenset(
    {0x00, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x18, 0x1A, 0x1B}
)

# byte -> glyph, as a CP437 screen shows it.
CP437_GLYPHS: tuple[str, ...] = (
    "\x00",
    *_LOW_GLYPHS,
    *(chr(byte) for byte in range(0x20, 0x7F)),
    "⌂",
    *bytes(range(0x80, 0x100)).decode("cp437"),
)

_SUITS_ASCII = {"♥": "H", "♡": "H", "♦": "D", "♢": "D", "♣": "C", "♧": "C", "♠": "S", "♤": "S"}

# Characters with no CP437 byte, and what to draw instead (each has a CP437 byte).
_CP437_STAND_INS = {
    "♡": "♥",
    "♢": "♦",
    "♧": "♣",
    "♤": "♠",
    "•": "∙",
    "←": "<",
    "→": ">",
    "↑": "^",
    "▶": "►",
    "◀": "◄",
    "▪": "■",
    "◼": "■",
    "☰": "≡",
}

# Close ASCII stand-ins, used by both fallbacks, for characters NFKD does not decompose.
_ASCII_STAND_INS = {
    **dict.fromkeys("‐‑‒–—―−⁃¬▬↔", "-"),
    **dict.fromkeys("‘’‚‛′`", "'"),
    **dict.fromkeys("“”„‟″«»", '"'),
    **dict.fromkeys("•∙·…", "."),
    **dict.fromkeys("►▶→›≥", ">"),
    **dict.fromkeys("◄◀←‹≤", "<"),
    **dict.fromkeys("▲↑", "^"),
    **dict.fromkeys("▼↓√", "v"),
    **dict.fromkeys("↕↨¦", "|"),
    **dict.fromkeys("■▪◼◘◙", "#"),
    **dict.fromkeys("○°☺☻☼", "o"),
    "×": "x",
    "÷": "/",
    "±": "+",
    "≈": "~",
    "≡": "=",
    "∞": "8",
    "¢": "c",
    "£": "L",
    "¥": "Y",
    "€": "E",
    "¿": "?",
    "¡": "!",
    "§": "S",
    "¶": "P",
    "ƒ": "f",
    "ß": "s",
    "æ": "a",
    "Æ": "A",
    "ø": "o",
    "Ø": "O",
    "đ": "d",
    "Đ": "D",
    "ł": "l",
    "Ł": "L",
    "œ": "o",
    "Œ": "O",
    "‼": "!",
    "∟": "L",
    **dict.fromkeys("♂♀♪♫", "*"),
}

_DIRECTIONS = {
    "UP": "U",
    "DOWN": "D",
    "LEFT": "L",
    "RIGHT": "R",
    "VERTICAL": "UD",
    "HORIZONTAL": "LR",
}

# Light single-line box glyph for each set of arms (all are in CP437).
_BOX_BY_ARMS = {
    frozenset("L"): "─",
    frozenset("R"): "─",
    frozenset("LR"): "─",
    frozenset("U"): "│",
    frozenset("D"): "│",
    frozenset("UD"): "│",
    frozenset("DR"): "┌",
    frozenset("DL"): "┐",
    frozenset("UR"): "└",
    frozenset("UL"): "┘",
    frozenset("UDR"): "├",
    frozenset("UDL"): "┤",
    frozenset("DLR"): "┬",
    frozenset("ULR"): "┴",
    frozenset("UDLR"): "┼",
}

_DIAGONALS = {"╱": "/", "╲": "\\", "╳": "X"}


def _check(charset: str) -> None:
    if charset not in CHARSETS:
        raise ValueError(f"unknown charset {charset!r}; expected one of {', '.join(CHARSETS)}")


def _takes_no_column(char: str) -> bool:
    """Combining marks, format characters and C1 controls: nothing a terminal draws."""
    category = unicodedata.category(char)
    return category in ("Mn", "Me", "Cf") or (category == "Cc" and ord(char) >= 0x80)


def _box_arms(char: str) -> frozenset[str]:
    """The directions a box-drawing character's lines go, read from its Unicode name."""
    arms: set[str] = set()
    for word in unicodedata.name(char, "").split()[2:]:
        arms.update(_DIRECTIONS.get(word, ""))
    return frozenset(arms)


def _block_glyph(char: str) -> str:
    """The CP437 block (░▒▓█▀▄▌▐) closest to a Unicode block element."""
    name = unicodedata.name(char, "")
    if "SHADE" in name:
        return "▒"
    for prefix, glyph in (("UPPER", "▀"), ("LOWER", "▄"), ("LEFT", "▌"), ("RIGHT", "▐")):
        if name.startswith(prefix):
            return glyph
    return "█"


def _nfkd_first(char: str, accept: str | dict[str, int]) -> str | None:
    """The first character of the compatibility decomposition, if ``accept`` holds it."""
    decomposed = unicodedata.normalize("NFKD", char)
    if decomposed != char and decomposed[0] in accept:
        return decomposed[0]
    return None


_PRINTABLE_ASCII = "".join(chr(code) for code in range(0x20, 0x7F))


def _ascii_fallback(char: str) -> str:
    """One printable ASCII character for ``char`` (at or above U+0080), or '' if invisible."""
    if _takes_no_column(char):
        return ""
    if char in _SUITS_ASCII:
        return _SUITS_ASCII[char]
    if char in _ASCII_STAND_INS:
        return _ASCII_STAND_INS[char]
    if char in _DIAGONALS:
        return _DIAGONALS[char]
    if "\u2500" <= char <= "\u257f":
        arms = _box_arms(char)
        if arms <= frozenset("LR"):
            return "-"
        return "|" if arms <= frozenset("UD") else "+"
    if "\u2580" <= char <= "\u259f":
        return "#"
    return _nfkd_first(char, _PRINTABLE_ASCII) or "?"


# glyph -> byte; the control characters the door writes map to themselves.
_CP437_BYTES: dict[str, int] = {chr(byte): byte for byte in range(0x80)}
_CP437_BYTES.update(
    (glyph, byte)
    for byte, glyph in enumerate(CP437_GLYPHS)
    if byte >= 0x7F or (byte >= 0x01 and byte < 0x20 and byte not in _ACTED_ON)
)


def _cp437_fallback(char: str) -> str:
    """The CP437 glyph to draw for ``char``, which has no byte of its own, or '' if invisible."""
    if _takes_no_column(char):
        return ""
    if char in _CP437_STAND_INS:
        return _CP437_STAND_INS[char]
    if char in _DIAGONALS:
        return _DIAGONALS[char]
    if "\u2500" <= char <= "\u257f":
        return _BOX_BY_ARMS.get(_box_arms(char), "+")
    if "\u2580" <= char <= "\u259f":
        return _block_glyph(char)
    return _nfkd_first(char, _CP437_BYTES) or _ascii_fallback(char)


class _Table(dict[int, str]):
    """A ``str.translate`` table from code point to one latin-1 character (a byte) or ''.

    Characters outside the charset are worked out on first sight and remembered.
    """

    _LIMIT = 8192  # keep memory bounded whatever callers throw at it

    def __init__(self, known: dict[str, int], fallback: Callable[[str], str]) -> None:
        super().__init__((ord(char), chr(byte)) for char, byte in known.items())
        self._known = known
        self._fallback = fallback

    def __missing__(self, code: int) -> str:
        stand_in = self._fallback(chr(code))
        byte = chr(self._known[stand_in]) if stand_in else ""
        if len(self) < self._LIMIT:
            self[code] = byte
        return byte


_CP437_TABLE = _Table(_CP437_BYTES, _cp437_fallback)
_ASCII_TABLE = _Table({chr(byte): byte for byte in range(0x80)}, _ascii_fallback)


def _is_low(glyph: str) -> bool:
    """Whether CP437 draws ``glyph`` with a byte from 0x01-0x1F (a control byte elsewhere)."""
    byte = _CP437_BYTES.get(glyph)
    return byte is not None and 0x01 <= byte <= 0x1F and glyph != chr(byte)


def _cp437_plain_fallback(char: str) -> str:
    """As :func:`_cp437_fallback`, but never a glyph of CP437's control range."""
    glyph = char if char in _CP437_BYTES else _cp437_fallback(char)
    return _ascii_fallback(char) if _is_low(glyph) else glyph


# The glyphs of CP437's control range, and those drawn with one of them in CP437 (♡ as ♥, ▶ as
# ►): what a screen that has not been seen drawing that range gets as ASCII stand-ins.
LOW_GLYPHS = frozenset(_LOW_GLYPHS) | frozenset(
    char for char, glyph in _CP437_STAND_INS.items() if glyph in _LOW_GLYPHS
)
_CP437_PLAIN_TABLE = _Table(
    {char: byte for char, byte in _CP437_BYTES.items() if not _is_low(char)},
    _cp437_plain_fallback,
)
_UTF8_PLAIN_TABLE = {ord(glyph): _ascii_fallback(glyph) for glyph in LOW_GLYPHS}


def plain_glyph(glyph: str) -> str:
    """The ASCII stand-in for one of :data:`LOW_GLYPHS`; any other character as it is.

    >>> plain_glyph("♥"), plain_glyph("►"), plain_glyph("▼"), plain_glyph("♪"), plain_glyph("é")
    ('H', '>', 'v', '*', 'é')
    """
    return _UTF8_PLAIN_TABLE.get(ord(glyph), glyph) if len(glyph) == 1 else glyph


def encode(text: str, charset: str, *, low_glyphs: bool = True) -> bytes:
    """Encode ``text`` for a terminal using ``charset``; never raises on any text.

    Control characters (ESC, CR, LF, BS, BEL, NUL...) pass through unchanged, so escape
    sequences can be encoded along with the text they colour.

    ``low_glyphs`` says whether the screen has been seen drawing the glyphs whose CP437 bytes
    are control bytes (0x01-0x1F: the suits, ►, ◄, ▲, ▼, ♪ ...). Without it, each of them
    (:data:`LOW_GLYPHS`) becomes a plain ASCII stand-in, in every charset, so that a screen
    that would draw nothing there (or a BBS that would pass on a control byte) still shows
    a letter in the cell, and every column stays where it was laid out:

    >>> encode("7♥ ►", "cp437", low_glyphs=False), encode("7♥ ►", "utf-8", low_glyphs=False)
    (b'7H >', b'7H >')

    >>> encode("♥♦♣♠", "cp437")
    b'\\x03\\x04\\x05\\x06'
    >>> encode("“Zoë” — é", "cp437")
    b'"Zo\\x89" - \\x82'
    >>> encode("╔═╗ ░▓ naïve", "ascii")
    b'+-+ ## naive'
    >>> encode("snow ☃", "cp437")
    b'snow ?'
    """
    _check(charset)
    if text.isascii():
        return text.encode("ascii")
    if charset == "utf-8":
        if not low_glyphs:
            text = text.translate(_UTF8_PLAIN_TABLE)
        return text.encode("utf-8", errors="replace")
    if charset == "cp437":
        table = _CP437_TABLE if low_glyphs else _CP437_PLAIN_TABLE
    else:
        table = _ASCII_TABLE
    # NFC first, so that 'e' + COMBINING ACUTE becomes the single byte for 'é'.
    return unicodedata.normalize("NFC", text).translate(table).encode("latin-1")


_GLYPH_TABLE = {
    byte: glyph
    for byte, glyph in enumerate(CP437_GLYPHS[:0x80])
    if _CP437_BYTES.get(glyph) == byte and byte not in range(0x20, 0x7F)
}


def decode(data: bytes, charset: str, *, glyphs: bool = False) -> str:
    """Decode bytes a caller typed; never raises.

    Control bytes stay control characters, so a line editor still sees CR, BS and DEL.
    With ``glyphs=True`` CP437 bytes read as a CP437 screen shows them instead (0x03 is ♥),
    which is how to read back what :func:`encode` sent.

    >>> decode(b"a\\x08\\x03\\x9c", "cp437"), decode(b"\\x03\\x9c", "cp437", glyphs=True)
    ('a\\x08\\x03£', '♥£')
    >>> decode(b"caf\\xc3\\xa9 \\xff", "utf-8")
    'café �'
    >>> decode(b"caf\\xc3\\xa9\\r", "ascii")
    'caf\\r'
    """
    _check(charset)
    if charset == "utf-8":
        return data.decode("utf-8", errors="replace")
    if charset == "ascii":
        return bytes(byte for byte in data if byte < 0x80).decode("ascii")
    text = data.decode("cp437")  # 0x00-0x7F are themselves; 0x80-0xFF the IBM glyphs
    return text.translate(_GLYPH_TABLE) if glyphs else text


class InputDecoder:
    """Decodes a caller's input as it arrives, keeping a character split across packets.

    >>> decoder = InputDecoder("utf-8")
    >>> decoder.feed(b"caf\\xc3"), decoder.feed(b"\\xa9\\r\\n")
    ('caf', 'é\\r\\n')
    """

    def __init__(self, charset: str) -> None:
        _check(charset)
        self._charset = charset
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")

    @property
    def charset(self) -> str:
        return self._charset

    def feed(self, data: bytes) -> str:
        """The text completed by ``data``; an unfinished UTF-8 sequence waits for more."""
        if self._charset == "utf-8":
            return self._utf8.decode(data)
        return decode(data, self._charset)

    def flush(self) -> str:
        """End of input: an unfinished UTF-8 sequence becomes U+FFFD.

        >>> decoder = InputDecoder("utf-8")
        >>> decoder.feed(b"ok\\xe2\\x99"), decoder.flush(), decoder.flush()
        ('ok', '�', '')
        """
        if self._charset == "utf-8":
            return self._utf8.decode(b"", final=True)
        return ""
