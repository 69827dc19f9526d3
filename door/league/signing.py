"""Ed25519 keys and the signed envelope every league message travels in.

Each board has a key pair: the private half in an owner-only file beside its database (as the
SSH host key), the public half given to the other side once (a member's to the hub's sysop,
the hub's pinned by a member when it joins). No password or shared secret travels: a message
is JSON text and its signature, and the receiver checks the signature with the key it
already holds before it reads a word of the text.

>>> key = new_private_key()
>>> sealed = sign({"kind": "hello", "n": 1}, key)
>>> opened = open_signed(sealed, public_text(key))
>>> opened["kind"], opened["n"]
('hello', 1)
>>> open_signed(sealed.replace(b'"n\\\\":1', b'"n\\\\":2'), public_text(key))
Traceback (most recent call last):
door.league.signing.BadSignature: the signature does not match the message
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from door.files import create_once

KEY_NAME = "canfield-league-key"
"""The board's private key file, beside its database unless sysop.toml names another."""

PUBLIC_PREFIX = "ed25519:"


class BadSignature(ValueError):
    """A message that is not signed by the key it should be, or is not a message at all."""


def new_private_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def private_key_file(path: Path) -> Ed25519PrivateKey:
    """The key pair kept in ``path``, made there (owner-only) if the file is not there yet."""
    pem = new_private_key().private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return read_private_key(create_once(path, pem))


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """The key pair in ``path``; OSError if there is none, ValueError if it is not one."""
    return read_private_key(path.read_bytes())


def read_private_key(pem: bytes) -> Ed25519PrivateKey:
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError("not an Ed25519 private key")
    return key


def public_text(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    """A public key as a line of text: ``ed25519:`` and its 32 bytes in base64."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return PUBLIC_PREFIX + base64.b64encode(raw).decode("ascii")


def public_key(text: str) -> Ed25519PublicKey:
    """A public key from :func:`public_text`'s line; ValueError if it is not one."""
    text = text.strip()
    if not text.startswith(PUBLIC_PREFIX):
        raise ValueError(f"a public key starts with {PUBLIC_PREFIX}")
    try:
        raw = base64.b64decode(text[len(PUBLIC_PREFIX) :], validate=True)
    except binascii.Error:
        raise ValueError("a public key is base64 after its prefix") from None
    if len(raw) != 32:
        raise ValueError("an Ed25519 public key is 32 bytes")
    return Ed25519PublicKey.from_public_bytes(raw)


def fingerprint(text: str) -> str:
    """What a sysop reads aloud to check a key: SHA-256 of its bytes, 16 of them in hex pairs.

    >>> fingerprint("ed25519:" + "A" * 43 + "=")
    '6668:7aad:f862:bd77:6c8f:c18b:8e9f:8e20'
    """
    raw = public_key(text).public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    digest = hashlib.sha256(raw).hexdigest()[:32]
    return ":".join(digest[i : i + 4] for i in range(0, 32, 4))


def canonical(payload: dict[str, Any]) -> bytes:
    """The one spelling of a message: JSON with sorted keys and no spaces, UTF-8."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sign(payload: dict[str, Any], key: Ed25519PrivateKey) -> bytes:
    """The message as it travels: ``{"message": TEXT, "signature": BASE64}``, the signature
    over TEXT's bytes."""
    text = canonical(payload)
    signature = base64.b64encode(key.sign(text)).decode("ascii")
    return canonical({"message": text.decode(), "signature": signature})


def unverified(body: bytes) -> dict[str, Any]:
    """The message in ``body`` before its signature is checked: only to learn who claims to
    have sent it (whose key to check it with). BadSignature if it is not an envelope."""
    return _parts(body)[0]


def open_signed(body: bytes, key: str | Ed25519PublicKey) -> dict[str, Any]:
    """The message in ``body`` once its signature is checked with ``key``; BadSignature if it
    does not match or ``body`` is not an envelope."""
    message, text, signature = _parts(body)
    verifier = public_key(key) if isinstance(key, str) else key
    try:
        verifier.verify(signature, text)
    except InvalidSignature:
        raise BadSignature("the signature does not match the message") from None
    return message


def _parts(body: bytes) -> tuple[dict[str, Any], bytes, bytes]:
    try:
        envelope = json.loads(body)
        text = envelope["message"].encode()
        signature = base64.b64decode(envelope["signature"], validate=True)
        message = json.loads(text)
    except (ValueError, KeyError, TypeError, AttributeError, binascii.Error):
        raise BadSignature("not a signed league message") from None
    if not isinstance(message, dict):
        raise BadSignature("not a signed league message")
    return message, text, signature
