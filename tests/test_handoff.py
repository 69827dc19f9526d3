"""The line between ``serve``'s front and a worker: messages in order, a connection handed
over whole, questions answered, and the line's end heard."""

from __future__ import annotations

import asyncio
import socket

from door.running.handoff import Channel, Requests, channel_pair


async def test_a_connection_handed_over_carries_on_where_it_was() -> None:
    front_end, worker_end = channel_pair()
    heard: asyncio.Queue[tuple[dict, list[int]]] = asyncio.Queue()
    closed = asyncio.Event()
    front = Channel(front_end, lambda message, fds: None, lambda: None)
    worker = Channel(worker_end, lambda message, fds: heard.put_nowait((message, fds)), closed.set)
    front.start()
    worker.start()
    caller, accepted = socket.socketpair()
    caller.sendall(b"typed before the hand-over")
    assert front.send({"call": 1, "node": 3}, accepted)
    assert accepted.fileno() == -1  # the front keeps no copy once it is sent
    front.send({"end": 1})
    message, fds = await asyncio.wait_for(heard.get(), 5)
    assert message == {"call": 1, "node": 3} and len(fds) == 1
    with socket.socket(fileno=fds[0]) as handed:
        assert handed.recv(100) == b"typed before the hand-over"
        handed.sendall(b"answered by the worker")
        assert caller.recv(100) == b"answered by the worker"
    assert (await asyncio.wait_for(heard.get(), 5)) == ({"end": 1}, [])
    caller.close()
    front.close()
    await asyncio.wait_for(closed.wait(), 5)
    assert not worker.open


async def test_a_question_waits_for_its_answer_and_gets_none_when_the_line_closes() -> None:
    front_end, worker_end = channel_pair()
    requests = Requests()
    asked: list[dict] = []

    def answer(message: dict, fds: list[int]) -> None:
        asked.append(message)
        if message.get("other_node") == 7:
            front.send({"answer": message["ask"], "value": 2})

    front = Channel(front_end, answer, lambda: None)
    worker = Channel(worker_end, lambda m, f: requests.answered(m), requests.cancel)
    front.start()
    worker.start()
    assert await asyncio.wait_for(requests.ask(worker, {"other_node": 7}), 5) == 2
    waiting = asyncio.ensure_future(requests.ask(worker, {"other_node": 8}))
    while len(asked) < 2:
        await asyncio.sleep(0.01)
    front.close()
    assert await asyncio.wait_for(waiting, 5) is None
