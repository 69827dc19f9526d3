"""Aliases and passwords: the rules a caller's choice must meet, and scrypt hashing.

Everything here is pure and synchronous; the store runs the hashing in a thread. A check
says what is wrong in the language spoken where it is called (:mod:`door.words`): the
caller's, in a visit; English on the sysop's command line.

>>> check_alias("Bob") is None
True
>>> check_alias("B")
'An alias needs at least 2 characters'
>>> check_alias("Bob\\x1b[2J")
"An alias can't hold control characters or escape sequences"
>>> clean_alias("  Lady   Luck ")
'Lady Luck'
>>> alias_key("ZOË") == alias_key("zoë")
True
>>> verify_password("hunter22", hash_password("hunter22")), verify_password("x", hash_password("y"))
(True, False)
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import hmac
import os
import unicodedata

from door.store.common_passwords import COMMON_PASSWORDS
from door.words import _, ngettext

ALIAS_MIN = 2
ALIAS_MAX = 20
PASSWORD_MIN = 4  # what the store takes (older accounts); new passwords need more
NEW_PASSWORD_MIN = 8
PASSWORD_MAX = 64

# scrypt's cost: N = 2**16, r = 8, p = 1: 64 MiB of memory and about four times the CPU of
# the 2**14 (16 MiB) that RFC 7914 gave for log-ins in 2009, which is what older hashes
# hold; OWASP's 2**17 (128 MiB) would take that much per hashing thread, too much for the
# small machine a board runs on. benchmarks/guessing.py measures one hash. An older hash is
# made again at these costs when its owner next logs in (needs_rehash).
_LOG2_N, _R, _P, _KEY_BYTES, _SALT_BYTES = 16, 8, 1, 32, 16
_SCHEME = "scrypt"
_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
_LARGE_BLOCK = 1 << 20


def clean_alias(alias: str) -> str:
    """The alias as it is stored and shown: composed, with runs of spaces made one, trimmed."""
    return " ".join(part for part in unicodedata.normalize("NFC", alias).split(" ") if part)


def alias_key(alias: str) -> str:
    """What two aliases are compared by: ``Bob``, ``BOB`` and ``bob`` are one alias."""
    return unicodedata.normalize("NFKC", clean_alias(alias)).casefold()


def bbs_key(bbs: str | None) -> str:
    """What BBS names are compared by; '' stands for callers over telnet."""
    return "" if bbs is None else alias_key(bbs)


def shown_everywhere(char: str) -> bool:
    """Can every caller see ``char``, and is it no control byte on any caller's line?

    The door shows aliases in CP437 (and folds CP437 to ASCII for plain callers), so an
    alias character must be in CP437, and not one of its glyphs whose byte is a control
    character on the wire (☺ is Ctrl-A, ‼ XOFF, § NAK) nor 0xFF (telnet's IAC, and an
    invisible space). CP437 has no wide, zero-width or invisible characters but the space.
    A letter with accents CP437 lacks (Ë) will do when its plain letter does: that is what
    a CP437 caller is shown.

    >>> all(shown_everywhere(c) for c in "aZ9 é£ñ"), any(shown_everywhere(c) for c in "☺‼§\xa0ㅤ⠀Ѕ漢")
    (True, False)
    """
    try:
        byte = char.encode("cp437")
    except UnicodeEncodeError:
        decomposed = unicodedata.normalize("NFD", char)
        base, marks = decomposed[0], decomposed[1:]
        accented = bool(marks) and all(unicodedata.category(m) == "Mn" for m in marks)
        return accented and shown_everywhere(base)
    return len(byte) == 1 and (0x20 <= byte[0] < 0x7F or 0x80 <= byte[0] < 0xFF)


# Characters that pass for others in an alias: "Sysop", "SYS0P" and "Sÿsop" are one alias.
_LOOK_ALIKES = str.maketrans(
    {
        "0": "o", "1": "l", "i": "l", "|": "l", "!": "l", "¡": "l", "3": "e", "4": "a",
        "5": "s", "$": "s", "7": "t", "@": "a", "α": "a", "ß": "b", "µ": "u", "μ": "u",
        "σ": "o", "τ": "t", "ε": "e", "θ": "o", "φ": "o", "δ": "o", "ω": "w", "π": "n",
        "γ": "r", "€": "e", "¢": "c", "ƒ": "f", "æ": "ae", "ø": "o",
    }
)  # fmt: skip
RESERVED_ALIASES = ("sysop", "admin", "administrator", "root", "guest", "new", "moderator")


def alias_skeleton(alias: str) -> str:
    """What aliases are told apart by, look-alikes folded: case, accents, spaces and signs
    between letters, and characters that pass for others.

    >>> alias_skeleton("Sys Op") == alias_skeleton("SYS0P") == alias_skeleton("Sÿs_op")
    True
    """
    folded = unicodedata.normalize("NFKD", alias).casefold()
    bare = "".join(c for c in folded if unicodedata.category(c) != "Mn")
    return "".join(c for c in bare.translate(_LOOK_ALIKES) if c not in " _-.'`^~")


def check_alias(alias: str) -> str | None:
    """The problem with ``alias`` in words for the caller, or None if it will do.

    An alias has 2 to 20 characters (spaces inside are allowed, and runs of them count as
    one), each one every caller's terminal can show (:func:`shown_everywhere`): no control
    characters or escape sequences, nothing invisible, wide or outside CP437; and it is not
    only spaces.
    """
    if not alias.strip():
        return _("An alias can't be empty or only spaces")
    if not all(char.isprintable() for char in alias):
        return _("An alias can't hold control characters or escape sequences")
    if not all(shown_everywhere(char) for char in unicodedata.normalize("NFC", alias)):
        return _("Some of its characters can't be shown on every screen")
    length = len(clean_alias(alias))
    if length < ALIAS_MIN:
        return ngettext(
            "An alias needs at least {count} character",
            "An alias needs at least {count} characters",
            ALIAS_MIN,
        ).format(count=ALIAS_MIN)
    if length > ALIAS_MAX:
        return ngettext(
            "An alias can have at most {count} character",
            "An alias can have at most {count} characters",
            ALIAS_MAX,
        ).format(count=ALIAS_MAX)
    return None


def board_alias(alias: str) -> str:
    """An alias a BBS (its drop file) or a linked board gives, as the door keeps it: composed,
    runs of spaces made one, and combining marks that compose with no letter before them
    taken off (they would be drawn over the next column on some screens, shifting the rest
    of the line on others).

    >>> board_alias("Zoe\u0308"), board_alias("B\u0336o\u0336b\u0336"), board_alias(" Lady  Luck")
    ('Zoë', 'Bob', 'Lady Luck')
    """
    composed = unicodedata.normalize("NFC", alias)
    return clean_alias("".join(c for c in composed if not unicodedata.combining(c)))


def check_board_alias(alias: str) -> str | None:
    """The problem with an alias a BBS or linked board gives (as :func:`board_alias` leaves
    it), or None: every character shown on every screen (:func:`shown_everywhere`), as a
    caller's own alias must be. Its length is the board's business.

    >>> check_board_alias("Zoë"), check_board_alias("漢字")
    (None, "Some of its characters can't be shown on every screen")
    """
    if not alias.strip():
        # TRANSLATORS: no full stop; also shown after a colon, its first letter made small
        return _("An alias can't be empty or only spaces")
    if not all(shown_everywhere(char) for char in alias):
        # TRANSLATORS: no full stop; also shown after a colon, its first letter made small
        return _("Some of its characters can't be shown on every screen")
    return None


def check_password(password: str) -> str | None:
    """The problem with ``password`` in words for the caller, or None if it will do."""
    if len(password) < PASSWORD_MIN:
        return _too_short(PASSWORD_MIN)
    if len(password) > PASSWORD_MAX:
        return ngettext(
            "A password can have at most {count} character",
            "A password can have at most {count} characters",
            PASSWORD_MAX,
        ).format(count=PASSWORD_MAX)
    if not all(char.isprintable() for char in password):
        return _("A password can't hold control characters")
    return None


def _too_short(least: int) -> str:
    return ngettext(
        "A password needs at least {count} character",
        "A password needs at least {count} characters",
        least,
    ).format(count=least)


def check_reserved(alias: str, sysop: str) -> str | None:
    """The problem with a caller taking ``alias`` when the sysop is called ``sysop``: the
    sysop's name and the door's own words (:data:`RESERVED_ALIASES`) are kept, look-alikes
    too.

    >>> check_reserved("Sys0p", "Bob"), check_reserved("B0B", "Bob"), check_reserved("Ann", "Bob")
    ('That alias is kept for the door', 'That alias is kept for the sysop', None)
    """
    skeleton = alias_skeleton(alias)
    if skeleton == alias_skeleton(sysop):
        # TRANSLATORS: no full stop; also shown after a colon, its first letter made small
        return _("That alias is kept for the sysop")
    if skeleton in {alias_skeleton(word) for word in RESERVED_ALIASES}:
        # TRANSLATORS: no full stop; also shown after a colon, its first letter made small
        return _("That alias is kept for the door")
    return None


def check_new_password(password: str, alias: str) -> str | None:
    """The problem with ``password`` as a new password for ``alias``, or None if it will do.

    Beyond :func:`check_password`: at least :data:`NEW_PASSWORD_MIN` characters, not the
    alias (in any case, or with spaces left out), not one of the commonest passwords.

    >>> check_new_password("1234", "Bob")
    'A password needs at least 8 characters'
    >>> check_new_password("Lady Luck", "lady luck"), check_new_password("Password1", "Bob")
    ("A password can't be your alias", 'That password is among the commonest; choose another')
    >>> check_new_password("seven green apples", "Bob") is None
    True
    """
    if len(password) < NEW_PASSWORD_MIN:
        return _too_short(NEW_PASSWORD_MIN)
    problem = check_password(password)
    if problem:
        return problem
    folded = password.casefold()
    if alias and folded.replace(" ", "") == alias_key(alias).replace(" ", ""):
        return _("A password can't be your alias")
    if folded in COMMON_PASSWORDS:
        return _("That password is among the commonest; choose another")
    return None


def _scrypt(password: str, salt: bytes, log2_n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8"),
        salt=salt,
        n=1 << log2_n,
        r=r,
        p=p,
        maxmem=2 * 128 * r * (1 << log2_n),
        dklen=_KEY_BYTES,
    )


def return_large_blocks() -> None:
    """Have malloc give each block of a megabyte or more back to the system when freed.

    glibc raises its mmap threshold after the first large block is freed, so the 64 MiB of
    every later hash stays in the hashing thread's heap for good; a fixed threshold returns
    it at once. Elsewhere than glibc this does nothing.
    """
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).mallopt(_M_MMAP_THRESHOLD, _LARGE_BLOCK)


def hash_password(password: str, *, log2_n: int = _LOG2_N) -> str:
    """``scrypt$log2n$r$p$salt$hash`` (hex) with a fresh random salt; the costs travel along,
    so a later door can raise them without locking anyone out. ``log2_n`` is for making a
    hash as an older door did."""
    salt = os.urandom(_SALT_BYTES)
    key = _scrypt(password, salt, log2_n, _R, _P)
    return f"{_SCHEME}${log2_n}${_R}${_P}${salt.hex()}${key.hex()}"


def needs_rehash(stored: str | None) -> bool:
    """Was ``stored`` hashed at other costs than today's (so: made again at the next log-in)?

    >>> needs_rehash(hash_password("x", log2_n=10)), needs_rehash(hash_password("x"))
    (True, False)
    """
    if stored is None:
        return False
    return stored.split("$")[:4] != [_SCHEME, str(_LOG2_N), str(_R), str(_P)]


def verify_password(password: str, stored: str | None) -> bool:
    """Does ``password`` match ``stored``? Compares in constant time.

    With nothing stored (a drop-file user) the hashing still runs, so that the time taken
    does not tell a caller whether an alias exists.
    """
    if stored is None:
        _scrypt(password, b"\0" * _SALT_BYTES, _LOG2_N, _R, _P)
        return False
    try:
        scheme, log2_n, r, p, salt, key = stored.split("$")
        if scheme != _SCHEME:
            return False
        expected = bytes.fromhex(key)
        actual = _scrypt(password, bytes.fromhex(salt), int(log2_n), int(r), int(p))
    except ValueError:
        return False
    return hmac.compare_digest(actual, expected)
