"""A solver process of the door: ``python -m door.solving.child``.

:class:`door.solving.pool.SolverPool` starts one for each lane that has a search to do. It
reads questions from its stdin, one JSON line each (a position and a budget in seconds, see
:func:`question_line`), and answers each with a JSON line on its stdout (the verdict, see
:func:`verdict_line`), one question at a time. It ends when its stdin closes: the door let it
go, or the door is gone (even killed with SIGKILL, its end of the pipe closes), at once even
in the middle of a search. It ignores Ctrl-C and the hang-up signal, which a terminal sends
its whole process group: the door decides when its solver ends.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import sys
import threading
from collections.abc import Mapping
from typing import Any, BinaryIO

from door.engine.solver import Result, Verdict, solve


def question_line(position: Mapping[str, Any], seconds: float) -> bytes:
    """The line that asks for the verdict on ``position`` (its JSON dict) within ``seconds``."""
    return json.dumps({"position": position, "seconds": seconds}).encode() + b"\n"


def read_question(line: bytes) -> tuple[dict[str, Any], float]:
    """The position and the budget a :func:`question_line` asks about.

    >>> read_question(question_line({"deal": 7}, 2.5))
    ({'deal': 7}, 2.5)
    """
    question = json.loads(line)
    return question["position"], float(question["seconds"])


def verdict_line(verdict: Verdict) -> bytes:
    """``verdict`` as one line of JSON."""
    fields = [verdict.result.value, list(verdict.line), verdict.nodes, verdict.seconds]
    return json.dumps(fields).encode() + b"\n"


def read_verdict(line: bytes) -> Verdict:
    """The verdict a :func:`verdict_line` tells; ValueError if the line is not one.

    >>> verdict = Verdict(Result.WON, ("D", "T3"), 1234, 0.25)
    >>> verdict_line(verdict)
    b'["won", ["D", "T3"], 1234, 0.25]\\n'
    >>> read_verdict(verdict_line(verdict)) == verdict
    True
    >>> read_verdict(b"Traceback (most recent call last):\\n")
    Traceback (most recent call last):
    ...
    json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)
    """
    result, commands, nodes, seconds = json.loads(line)
    return Verdict(Result(result), tuple(str(command) for command in commands), int(nodes), seconds)


def _read_questions(stdin: BinaryIO, questions: queue.SimpleQueue[bytes]) -> None:
    """Hand each line of ``stdin`` on; at its end, end the process, a search under way too."""
    for line in stdin:
        questions.put(line)
    os._exit(0)


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    # Questions are read in a thread of their own, so that the end of stdin is seen at once.
    questions: queue.SimpleQueue[bytes] = queue.SimpleQueue()
    reader = threading.Thread(
        target=_read_questions, args=(sys.stdin.buffer, questions), name="questions", daemon=True
    )
    reader.start()
    answers = sys.stdout.buffer
    while True:
        position, seconds = read_question(questions.get())
        verdict = verdict_line(solve(position, max_seconds=seconds))
        try:
            answers.write(verdict)
            answers.flush()
        except BrokenPipeError:
            # The door is gone (killed, say) before the end of stdin was seen: end quietly,
            # as then, not with a traceback on the door's log.
            os._exit(0)


if __name__ == "__main__":
    main()
