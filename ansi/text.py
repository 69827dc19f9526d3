"""Text that came from a user, made safe to show to anyone.

Anything a caller typed (an alias, a BBS name from a drop file) passes through
:func:`sanitize` before it reaches another caller's screen, so that no escape sequence or
control character typed by one caller can act on another's terminal.

>>> sanitize("Bob\\x1b[2J\\x07")
'Bob'
>>> sanitize("  Al\\tice\\r\\n ")
'Al ice'
>>> sanitize("Zoë")
'Zoë'
"""

from __future__ import annotations

import re
import unicodedata

# ESC followed by a CSI, OSC or two-byte sequence; the C1 CSI (0x9B) form too.
_ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"  # CSI ... final byte
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL or ST
    r"|\x1b[ -/]*[0-~]?"  # other ESC sequences
)


def sanitize(text: str, limit: int | None = None) -> str:
    """Drop escape sequences and control characters; fold white space; trim.

    Tabs, line breaks and other white space become single spaces. ``limit`` cuts the result
    to that many characters.
    """
    without_escapes = _ESCAPE_SEQUENCE.sub("", text)
    kept = []
    for char in without_escapes:
        if char.isspace():
            kept.append(" ")
        elif unicodedata.category(char)[0] != "C":
            kept.append(char)
    cleaned = " ".join("".join(kept).split())
    return cleaned[:limit] if limit is not None else cleaned
