"""The line between ``serve``'s front process and one of its workers.

A Unix socket pair of datagrams (``SOCK_SEQPACKET``: each message arrives whole, in order),
each message one JSON object; a connection the front accepted rides along with its message
as a file descriptor (``SCM_RIGHTS``), before any byte of its protocol was read, so that the
worker does the whole protocol itself. What the messages say is
:mod:`door.running.front`'s and :mod:`door.running.worker`'s.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from collections import deque
from collections.abc import Callable
from typing import Any

log = logging.getLogger("door")

Message = dict[str, Any]
#: ``(message, descriptors)``: what the other end sent.
Receiver = Callable[[Message, list[int]], None]
MESSAGE_LIMIT = 65536  # bytes: a message is a few dozen; the sysop's text is cut well before


def channel_pair() -> tuple[socket.socket, socket.socket]:
    """The front's end and the worker's end of a new line."""
    return socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)


class Channel:
    """One end of a line: :meth:`send` a message (with a connection handed over), and hear
    each message the other end sends (``receive``) and that the line has closed
    (``closed``: the other process ended)."""

    def __init__(self, sock: socket.socket, receive: Receiver, closed: Callable[[], None]) -> None:
        sock.setblocking(False)
        self._socket = sock
        self._receive = receive
        self._closed_callback = closed
        self._waiting: deque[tuple[bytes, socket.socket | None]] = deque()
        self._open = False
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        """Hear the other end from now on (in the running event loop)."""
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self._socket.fileno(), self._readable)
        self._open = True

    @property
    def open(self) -> bool:
        return self._open

    def send(self, message: Message, connection: socket.socket | None = None) -> bool:
        """Send ``message``, handing over ``connection`` with it (closed here once sent);
        False if the line has closed (the connection is closed then too)."""
        if not self._open:
            if connection is not None:
                connection.close()
            return False
        data = json.dumps(message, separators=(",", ":")).encode("utf-8")
        self._waiting.append((data, connection))
        if len(self._waiting) == 1:
            self._flush()
        return self._open

    def _flush(self) -> None:
        while self._waiting:
            data, connection = self._waiting[0]
            try:
                if connection is None:
                    self._socket.send(data)
                else:
                    socket.send_fds(self._socket, [data], [connection.fileno()])
            except BlockingIOError:
                assert self._loop is not None
                self._loop.add_writer(self._socket.fileno(), self._writable)
                return
            except OSError:  # the other end has gone
                self._close()
                return
            self._waiting.popleft()
            if connection is not None:
                connection.close()

    def _writable(self) -> None:
        assert self._loop is not None
        self._loop.remove_writer(self._socket.fileno())
        self._flush()

    def _readable(self) -> None:
        while self._open:
            try:
                data, fds, _flags, _address = socket.recv_fds(self._socket, MESSAGE_LIMIT, 4)
            except BlockingIOError:
                return
            except OSError:
                self._close()
                return
            if not data and not fds:
                self._close()
                return
            try:
                message = json.loads(data)
            except ValueError:
                log.error("a message between the door's processes could not be read")
                for fd in fds:
                    socket.socket(fileno=fd).close()
                continue
            self._receive(message, fds)

    def _close(self) -> None:
        if not self._open:
            return
        self._open = False
        assert self._loop is not None
        self._loop.remove_reader(self._socket.fileno())
        self._loop.remove_writer(self._socket.fileno())
        while self._waiting:
            _data, connection = self._waiting.popleft()
            if connection is not None:
                connection.close()
        self._socket.close()
        self._closed_callback()

    def abandon(self) -> None:
        """Close this end's descriptor only, in a process just forked that does not run the
        loop it is heard in (that loop is its parent's)."""
        self._open = False
        self._socket.close()

    def close(self) -> None:
        """Close this end (the other end hears it); ``closed`` is called here too."""
        self._close()


class Requests:
    """Questions sent over a :class:`Channel` and their answers: a message with ``ask`` set
    to a number is answered by one with ``answer`` set to it and the answer in ``value``."""

    def __init__(self) -> None:
        self._asked: dict[int, asyncio.Future[Any]] = {}
        self._next = 0

    async def ask(self, channel: Channel, message: Message) -> Any:
        """Send ``message`` as a question and wait for its answer (None if the line closed)."""
        self._next += 1
        number = self._next
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._asked[number] = future
        try:
            if not channel.send({**message, "ask": number}):
                return None
            return await future
        finally:
            self._asked.pop(number, None)

    def answered(self, message: Message) -> bool:
        """Take ``message`` if it answers a question; whether it did."""
        number = message.get("answer")
        if number is None:
            return False
        future = self._asked.get(number)
        if future is not None and not future.done():
            future.set_result(message.get("value"))
        return True

    def cancel(self) -> None:
        """The line has closed: every question waiting gets None."""
        for future in self._asked.values():
            if not future.done():
                future.set_result(None)
