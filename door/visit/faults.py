"""What a caller is told when the store could not keep a change, by the fault's name, and
the line the sysop's log gets for it.

>>> from door.store import DiskFault, StoreBusy
>>> fault_words(DiskFault("disk I/O error"))
'a disk fault'
>>> fault_words(StoreBusy("database is locked"))
'the database is busy with another program'
"""

from __future__ import annotations

import logging

from ansi.text import sanitize
from door.store import SchemaMoved, StoreBusy, StoreFault, WriterFailed
from door.visit.context import Visit
from door.words import _

log = logging.getLogger("door")


def fault_words(fault: StoreFault) -> str:
    """Why a change was not stored, in the caller's words (a few, to fit in a sentence)."""
    if isinstance(fault, StoreBusy):
        return _("the database is busy with another program")
    if isinstance(fault, WriterFailed):
        return _("the door's database writer failed and restarts")
    if isinstance(fault, SchemaMoved):
        return _("the door is being upgraded")
    return _("a disk fault")


def log_fault(visit: Visit, what: str, fault: StoreFault) -> None:
    """``what`` (``"a play in game 12"``) was not stored: the sysop's log says so, and why."""
    log.warning(
        "node %d (%s): %s was not stored: %s: %s",
        visit.node,
        sanitize(visit.presence.alias or "?"),
        what,
        type(fault).__name__,
        fault,
    )
