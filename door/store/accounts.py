"""Aliases and passwords: the rules a caller's choice must meet, and scrypt hashing.

Everything here is pure and synchronous; the store runs the hashing in a thread.

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

ALIAS_MIN = 2
ALIAS_MAX = 20
PASSWORD_MIN = 4  # what the store takes (older accounts); new passwords need more
NEW_PASSWORD_MIN = 8
PASSWORD_MAX = 64

# scrypt's cost: 2**14 rounds, 16 MiB of memory, about 50 ms on a small server.
_LOG2_N, _R, _P, _KEY_BYTES, _SALT_BYTES = 14, 8, 1, 32, 16
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


def check_alias(alias: str) -> str | None:
    """The problem with ``alias`` in words for the caller, or None if it will do.

    An alias has 2 to 20 printable characters (spaces inside are allowed, and runs of them
    count as one), no control characters or escape sequences, and is not only spaces.
    """
    if not alias.strip():
        return "An alias can't be empty or only spaces"
    if not all(char.isprintable() for char in alias):
        return "An alias can't hold control characters or escape sequences"
    length = len(clean_alias(alias))
    if length < ALIAS_MIN:
        return f"An alias needs at least {ALIAS_MIN} characters"
    if length > ALIAS_MAX:
        return f"An alias can have at most {ALIAS_MAX} characters"
    return None


def check_password(password: str) -> str | None:
    """The problem with ``password`` in words for the caller, or None if it will do."""
    if len(password) < PASSWORD_MIN:
        return f"A password needs at least {PASSWORD_MIN} characters"
    if len(password) > PASSWORD_MAX:
        return f"A password can have at most {PASSWORD_MAX} characters"
    if not all(char.isprintable() for char in password):
        return "A password can't hold control characters"
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
    problem = check_password(password)
    if problem:
        return problem
    if len(password) < NEW_PASSWORD_MIN:
        return f"A password needs at least {NEW_PASSWORD_MIN} characters"
    folded = password.casefold()
    if alias and folded.replace(" ", "") == alias_key(alias).replace(" ", ""):
        return "A password can't be your alias"
    if folded in COMMON_PASSWORDS:
        return "That password is among the commonest; choose another"
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

    glibc raises its mmap threshold after the first large block is freed, so the 16 MiB of
    every later hash stays in the hashing thread's heap for good; a fixed threshold returns
    it at once. Elsewhere than glibc this does nothing.
    """
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).mallopt(_M_MMAP_THRESHOLD, _LARGE_BLOCK)


def hash_password(password: str) -> str:
    """``scrypt$log2n$r$p$salt$hash`` (hex) with a fresh random salt; the costs travel along,
    so a later door can raise them without locking anyone out."""
    salt = os.urandom(_SALT_BYTES)
    key = _scrypt(password, salt, _LOG2_N, _R, _P)
    return f"{_SCHEME}${_LOG2_N}${_R}${_P}${salt.hex()}${key.hex()}"


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
