"""Files the door writes for itself: owner-only, replaced whole, never through a symlink.

>>> import tempfile, pathlib, stat
>>> with tempfile.TemporaryDirectory() as folder:
...     path = replace_file(pathlib.Path(folder) / "board.txt", b"scores")
...     path.read_bytes(), oct(stat.S_IMODE(path.stat().st_mode))
(b'scores', '0o600')
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700


def replace_file(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` in one step: a reader sees the old file or the new one.

    The new file is made owner-only beside ``path`` under a name nobody can guess, created
    exclusively (so an existing file or symlink there is never written through), flushed to
    disk, then renamed over ``path`` (a symlink at ``path`` is replaced, not followed).
    OSError if the folder can't be written.
    """
    partial = _written_beside(path, data)
    try:
        os.replace(partial, path)
        sync_folder(path.parent)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return path


def _written_beside(path: Path, data: bytes) -> Path:
    """A new owner-only file beside ``path`` under a name nobody can guess, holding
    ``data`` flushed to disk; the caller renames or removes it."""
    descriptor, partial = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    return Path(partial)


def sync_folder(folder: Path) -> None:
    """Flush ``folder``'s own entries to disk: a file renamed into it stays renamed after a
    power cut (the rename is in the folder, not in the file)."""
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def create_once(path: Path, data: bytes) -> bytes:
    """Make ``path`` owner-only holding ``data``, unless it is there already; what it holds.

    The file appears whole (written beside it, flushed, then linked in place), and if two
    processes make it at once, one wins and both read its ``data``.
    """
    partial = _written_beside(path, data)
    try:
        os.link(partial, path)  # never replaces: FileExistsError if one was made first
        sync_folder(path.parent)
    except FileExistsError:
        pass
    finally:
        partial.unlink(missing_ok=True)
    return path.read_bytes()


def private_temp(path: Path) -> Path:
    """A new empty owner-only file beside ``path``, for a copy to be renamed over it later.

    Its name can't be guessed and it is created exclusively, so nothing planted there (a
    symlink to another file) is ever written through. The caller removes it if it is not
    renamed.
    """
    descriptor, partial = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(descriptor)
    return Path(partial)


def create_private(path: Path) -> bool:
    """Create ``path`` empty and owner-only if it does not exist; True if it was made.

    A symlink there is not followed: FileExistsError is not raised for it either, it is
    left to whatever opens the path next to refuse.
    """
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return False
    os.close(descriptor)
    return True


def make_private(path: Path) -> None:
    """Make an existing file owner-only (group and others lose every right); a missing
    file, or a symlink, is left alone."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return
    try:
        mode = os.fstat(descriptor).st_mode
        if mode & 0o077:
            os.fchmod(descriptor, mode & 0o700)
    finally:
        os.close(descriptor)


def not_private(path: Path) -> str | None:
    """Why the folder ``path`` can't be trusted with what the door keeps private (a link,
    another user's, open to others), or None if it is this user's own, closed to others."""
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode):
        return f"{path} is not a folder"
    if info.st_uid != os.geteuid():
        return f"{path} belongs to another user"
    if info.st_mode & 0o077:
        return f"{path} is open to other users (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def private_folder(path: Path) -> Path:
    """Make the folder (and any missing parents) if it is missing; one made is owner-only."""
    path.mkdir(mode=PRIVATE_FOLDER, parents=True, exist_ok=True)
    return path
