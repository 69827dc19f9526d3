"""``serve`` with a front process and two workers: every caller served, by every way in, the
table of nodes one for all of them, a worker killed started again."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
import time
from pathlib import Path

import aiohttp
import asyncssh
import pytest

from door.commands.live import request
from door.net.listening import SHUTDOWN_MESSAGE
from door.net.nodes import TAKEN_OVER_MESSAGE, TOO_MANY_MESSAGE
from door.running.control import control_path
from tests.support.rlogin import ABC, handshake, linked_caller, refusal, send
from tests.support.served_door import ROOT, Serving, serve
from tests.support.solver_processes import is_solver, solver_processes
from tests.support.ssh import sign_up_as_new, ssh_caller
from tests.support.telnet_caller import Caller
from tests.support.visits import log_in, sign_up, sign_up_on, start_deal
from tests.support.web_caller import web_caller

pytestmark = pytest.mark.slow  # a real serve, its workers forked


def config(tmp_path: Path, **server: int) -> Path:
    settings = {"workers": 2, "port": 0, **server}
    lines = "".join(f"{name} = {value}\n" for name, value in settings.items())
    path = tmp_path / "sysop.toml"
    path.write_text(f'[server]\nhost = "127.0.0.1"\n{lines}database = "door.db"\n')
    return path


def every_way_config(tmp_path: Path, board: str = "", **server: int) -> Path:
    """Two workers, with SSH, RLOGIN (board ABC, on the loopback, ``board`` more of its
    settings) and the web on, each on a free port."""
    path = config(tmp_path, **server)
    path.write_text(
        path.read_text()
        + "[ssh]\nport = 0\n[web]\nport = 0\n[rlogin]\nport = 0\n"
        + f'[[rlogin.boards]]\ntag = "{ABC.tag}"\nname = "{ABC.name}"\n'
        + f'addresses = ["127.0.0.0/8"]\nsecret = "{ABC.secret}"\n{board}'
    )
    return path


def way_port(door: Serving, way: str) -> int:
    """The port the front listens on for ``way`` (SSH, RLOGIN or web), as it logged it."""
    found = re.search(rf"listening for {way} on \S+ port (\d+)", door.logged())
    assert found, door.logged()
    return int(found.group(1))


async def first_play(caller: Caller) -> None:
    """From the main menu, a game dealt and one play made on it."""
    await caller.type("P")
    await caller.wait_for("Level:")
    await caller.key("\r")
    await caller.wait_for("Command")
    await caller.type("V")
    await caller.wait_for(r"Moves\s+1\b")


def workers_of(door: Serving) -> dict[int, int]:
    """The process of each worker, as the front logged it (the latest start of each)."""
    started = re.findall(r"worker (\d+) started \(process (\d+)\)", door.logged())
    return {int(index): int(pid) for index, pid in started}


async def stopped(door: Serving) -> None:
    door.process.send_signal(signal.SIGTERM)
    # Waited for in a thread: the callers' clients answer the door's goodbyes meanwhile.
    assert await asyncio.to_thread(door.process.wait, 30) == 0


async def test_callers_are_served_by_every_worker_on_one_table_of_nodes(tmp_path) -> None:
    door = await serve(config(tmp_path, max_nodes=2, reserved_nodes=0))
    try:
        await door.wait_logged(r"worker 0: serving")
        await door.wait_logged(r"worker 1: serving")
        alice = await sign_up(door, "Alice")
        bob = await sign_up(door, "Bobby")
        # One caller on each worker: the front hands a call to the worker with the fewest.
        await door.wait_logged(r"worker 0: node \d: connect from")
        await door.wait_logged(r"worker 1: node \d: connect from")
        await door.wait_logged(r"node 1: connect from")
        await door.wait_logged(r"node 2: connect from")
        # max_nodes counts the callers of both.
        third = await Caller.connect(door.port)
        await third.wait_for("All 2 nodes are busy", in_text=True)
        await alice.hang_up()
        await door.wait_logged(r"node \d \(Alice\): hang-up")
        carol = await sign_up(door, "Carol")  # the node is free again, in the front too
        await stopped(door)
        for caller in (bob, carol):
            await caller.wait_closed(30)
            assert SHUTDOWN_MESSAGE in caller.text
    finally:
        door.process.kill()


async def test_logging_in_again_on_another_worker_takes_the_call_over(tmp_path) -> None:
    door = await serve(config(tmp_path))
    try:
        first = await sign_up(door, "Twice")
        await first.type("P")
        await first.wait_for("Level:")
        await first.key("\r")
        await first.wait_for("Command")
        await first.type("V")
        await first.wait_for(r"Moves\s+1\b")
        second = await Caller.connect(door.port)  # the other worker: it serves nobody yet
        await second.wait_for("Your alias")
        await second.type("twice")
        await second.wait_for("Password")
        await second.type("secret-one1")
        await second.wait_for("You are logged in on node 1 already")
        await second.key("Y")
        await first.wait_closed(30)
        assert TAKEN_OVER_MESSAGE in first.text
        await second.wait_for("Resume your saved game")
        await second.key("R")
        await second.wait_for(r"Moves\s+1\b")  # the play made on the other worker was kept
        text = await door.wait_logged(r"worker \d: node 2: .*took over node 1")
        first_worker = re.search(r"worker (\d): node 1: connect from", text)
        second_worker = re.search(r"worker (\d): node 2: connect from", text)
        assert first_worker and second_worker
        assert first_worker.group(1) != second_worker.group(1)
        await stopped(door)
    finally:
        door.process.kill()


async def test_a_worker_killed_is_started_again_and_its_callers_games_are_kept(
    tmp_path,
) -> None:
    door = await serve(config(tmp_path))
    try:
        await door.wait_logged(r"worker 1: serving")
        caller = await sign_up(door, "Kept")
        await caller.type("P")
        await caller.wait_for("Level:")
        await caller.key("\r")
        await caller.wait_for("Command")
        await caller.type("V")
        await caller.wait_for(r"Moves\s+1\b")  # acknowledged: shown on the board
        text = door.logged()
        worker = int(re.search(r"worker (\d): node 1: connect from", text).group(1))
        os.kill(workers_of(door)[worker], signal.SIGKILL)
        await caller.wait_closed(30)
        await door.wait_logged(rf"worker {worker} \(process \d+\) ended \(signal SIGKILL\)")
        # New callers are served meanwhile, and the worker is started again.
        again = await log_in(door, "Kept")
        await again.wait_for("Resume your saved game")
        await again.key("R")
        await again.wait_for(r"Moves\s+1\b")
        await door.wait_logged(rf"(?s)ended \(signal SIGKILL\).*worker {worker} started")
        await door.wait_logged(rf"(?s)ended \(signal SIGKILL\).*worker {worker}: serving")
        await stopped(door)
    finally:
        door.process.kill()


def children(pid: int) -> list[int]:
    """The processes ``pid`` started, from /proc."""
    tasks = Path(f"/proc/{pid}/task").iterdir()
    return [int(child) for task in tasks for child in (task / "children").read_text().split()]


async def test_the_background_jobs_run_in_one_worker_alone(tmp_path) -> None:
    door = await serve(config(tmp_path))
    try:
        await door.wait_logged(r"worker 0: serving")
        await door.wait_logged(r"worker 1: serving")
        workers = workers_of(door)
        # The solver's background search (the winnable deals' stock) runs in processes of
        # its own as the door starts: worker 0's, and the other worker starts none.
        deadline = time.monotonic() + 30
        while not children(workers[0]):
            assert time.monotonic() < deadline, "worker 0 started no search"
            await asyncio.sleep(0.1)
        assert children(workers[1]) == []
        await stopped(door)
    finally:
        door.process.kill()


def parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[1])


async def test_each_worker_s_callers_are_answered_by_its_own_solver_processes(tmp_path) -> None:
    path = config(tmp_path)
    level = 'name = "Hinted"\ndraw = 1\npasses = 0\nhints = "solver"\n'
    path.write_text(path.read_text() + f"[game]\ndefault_level = 1\n[[levels]]\n{level}")
    door = await serve(path)
    try:
        await door.wait_logged(r"worker 0: serving")
        await door.wait_logged(r"worker 1: serving")
        # One caller on each worker (the fewest callers'), each asking the solver.
        callers = [await sign_up(door, "Alice"), await sign_up(door, "Bobby")]
        await door.wait_logged(r"worker 0: node \d: connect from")
        await door.wait_logged(r"worker 1: node \d: connect from")
        for caller in callers:
            await start_deal(caller, 1)
            await caller.type("HINT")
            await caller.wait_for(r"Hint: \S+(?: \S+)? \(a winning line", timeout=30)
        # The solver's processes are the workers' children (the front, which reaps its own
        # children, never sees them), one at least in each worker.
        workers = set(workers_of(door).values())
        solver = solver_processes(door.process.pid)
        assert {parent(pid) for pid in solver} == workers
        assert "solver process died" not in door.logged()
        await stopped(door)
        assert not any(is_solver(pid) for pid in solver)
    finally:
        door.process.kill()


async def test_the_sysop_reaches_a_caller_on_any_worker(tmp_path) -> None:
    path = config(tmp_path)
    door = await serve(path)
    control = control_path(tmp_path / "door.db")
    try:
        await door.wait_logged(r"control socket")
        alice = await sign_up(door, "Alice")
        bob = await sign_up(door, "Bobby")
        text = await door.wait_logged(r"worker \d: node 2: connect from")
        assert {m for m in re.findall(r"worker (\d): node \d: connect from", text)} == {"0", "1"}
        who = await asyncio.to_thread(request, control, {"command": "who"})
        assert [(c["node"], c["alias"]) for c in who["calls"]] == [(1, "Alice"), (2, "Bobby")]
        sent = await asyncio.to_thread(
            request, control, {"command": "send", "node": "all", "text": "Back in five"}
        )
        assert sent == {"ok": True, "nodes": [1, 2]}
        await alice.wait_for("Sysop: Back in five")
        await bob.wait_for("Sysop: Back in five")
        status = await asyncio.to_thread(request, control, {"command": "status"})
        assert (status["callers"], status["users"], status["workers"]) == (2, 2, 2)

        watching = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "door",
            "sysop",
            "--config",
            str(path),
            "watch",
            "2",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert watching.stdout is not None and watching.stdin is not None
        seen = b""
        await bob.type("M")
        async with asyncio.timeout(30):
            while b"Your statistics" not in seen:
                chunk = await watching.stdout.read(4096)
                assert chunk, seen[-500:]
                seen += chunk
        watching.stdin.write(b"q")
        await watching.stdin.drain()
        async with asyncio.timeout(30):
            _rest, err = await watching.communicate()
        assert b"Watching node 2 (Bobby)" in err

        kicked = await asyncio.to_thread(
            request, control, {"command": "kick", "node": 2, "reason": "Maintenance"}
        )
        assert kicked == {"ok": True, "node": 2}
        await bob.wait_closed(30)
        assert "The sysop has ended your call: Maintenance" in bob.text
        who = await asyncio.to_thread(request, control, {"command": "who"})
        assert [c["node"] for c in who["calls"]] == [1]
        await stopped(door)
        await alice.wait_closed(30)
    finally:
        door.process.kill()


async def test_a_reload_reaches_the_front_and_every_worker_without_a_drop(tmp_path) -> None:
    path = config(tmp_path, max_nodes=4, reserved_nodes=0)
    door = await serve(path)
    control = control_path(tmp_path / "door.db")
    try:
        await door.wait_logged(r"control socket")
        alice = await sign_up(door, "Alice")
        bob = await sign_up(door, "Bobby")
        path.write_text(path.read_text().replace("max_nodes = 4", "max_nodes = 2"))
        reloaded = await asyncio.to_thread(request, control, {"command": "reload"})
        assert reloaded["ok"] and "server.max_nodes: 4 -> 2" in reloaded["changes"]
        await door.wait_logged(r"worker 0: settings reloaded")
        await door.wait_logged(r"worker 1: settings reloaded")
        third = await Caller.connect(door.port)  # the front's table took the new limit
        await third.wait_for("All 2 nodes are busy", in_text=True)
        for caller in (alice, bob):  # nobody was dropped
            await caller.type("M")
            await caller.wait_for("Your statistics")
        await stopped(door)
    finally:
        door.process.kill()


async def test_every_way_in_reaches_every_worker_on_one_table_of_nodes(tmp_path) -> None:
    path = every_way_config(tmp_path, max_nodes=3, reserved_nodes=0)
    door = await serve(path)
    control = control_path(tmp_path / "door.db")
    try:
        await door.wait_logged(r"worker 0: serving")
        await door.wait_logged(r"worker 1: serving")
        async with ssh_caller(way_port(door, "SSH"), "new", "anything") as (by_ssh, _):
            await sign_up_as_new(by_ssh, "Sshley", "secret-one1")
            await first_play(by_ssh)
            by_rlogin = await linked_caller(way_port(door, "RLOGIN"), ABC, "Rolf")
            await by_rlogin.wait_for("Your choice")
            await first_play(by_rlogin)
            by_web = await web_caller(way_port(door, "web"))
            await sign_up_on(by_web, "Webster")
            await first_play(by_web)
            text = door.logged()
            served = {
                way: re.search(rf"worker (\d): node \d: {way}", text)
                for way in ("SSH connect from", "RLOGIN from Another Board", "web connect from")
            }
            assert all(served.values()), text
            # Both workers serve callers: the front hands each to the one with the fewest.
            assert {found.group(1) for found in served.values() if found} == {"0", "1"}
            # max_nodes counts the callers of every way and every worker together.
            fourth = await Caller.connect(door.port)
            await fourth.wait_for("All 3 nodes are busy", in_text=True)
            # Told as the connection arrives, before any password, in SSH's own words.
            with pytest.raises(asyncssh.DisconnectError, match="All 3 nodes are busy"):
                async with ssh_caller(way_port(door, "SSH"), "new", "anything"):
                    pass
            who = await asyncio.to_thread(request, control, {"command": "who"})
            assert sorted((c["alias"], c["way"]) for c in who["calls"]) == [
                ("Rolf", "rlogin"),
                ("Sshley", "ssh"),
                ("Webster", "web"),
            ]
            assert sorted(c["node"] for c in who["calls"]) == [1, 2, 3]
            await by_rlogin.hang_up()
            await door.wait_logged(r"node \d \(Rolf\): hang-up")
            again = await linked_caller(way_port(door, "RLOGIN"), ABC, "Rolf")  # room again
            await again.wait_for("Your choice")
            await stopped(door)
            for caller in (by_ssh, by_web, again):
                await caller.wait_closed(30)
                assert SHUTDOWN_MESSAGE in caller.text
    finally:
        door.process.kill()


async def test_a_worker_killed_drops_only_its_own_ssh_and_web_callers(tmp_path) -> None:
    door = await serve(every_way_config(tmp_path))
    try:
        await door.wait_logged(r"worker 0: serving")
        await door.wait_logged(r"worker 1: serving")
        ssh_port, web_port = way_port(door, "SSH"), way_port(door, "web")
        async with ssh_caller(ssh_port, "new", "anything") as (by_ssh, _):
            await sign_up_as_new(by_ssh, "Sshley", "secret-one1")
            by_web = await web_caller(web_port)
            await sign_up_on(by_web, "Webster")
            text = door.logged()
            ssh_worker = int(re.search(r"worker (\d): node \d: SSH connect", text).group(1))
            web_worker = int(re.search(r"worker (\d): node \d: web connect", text).group(1))
            assert ssh_worker != web_worker
            os.kill(workers_of(door)[ssh_worker], signal.SIGKILL)
            await by_ssh.wait_closed(30)
            await door.wait_logged(rf"worker {ssh_worker} \(process \d+\) ended")
            # The other worker's caller plays on; new callers by SSH and the web are served.
            await first_play(by_web)
            async with ssh_caller(ssh_port, "sshley", "secret-one1") as (again, _):
                await again.wait_for("Your choice")
                await first_play(again)
                newcomer = await web_caller(web_port)
                await sign_up_on(newcomer, "Newton")
                started_again = rf"(?s)ended \(signal SIGKILL\).*worker {ssh_worker}: serving"
                await door.wait_logged(started_again)
                await stopped(door)
                for caller in (by_web, again, newcomer):
                    await caller.wait_closed(30)
                    assert SHUTDOWN_MESSAGE in caller.text
    finally:
        door.process.kill()


async def test_the_web_port_s_pages_and_guards_hold_through_the_workers(tmp_path) -> None:
    door = await serve(every_way_config(tmp_path, max_per_address=2))
    try:
        await door.wait_logged(r"worker 1: serving")
        web_port = way_port(door, "web")
        async with aiohttp.ClientSession() as session:
            pages = (("/", "<html"), ("/scores", "Practice games are never on these lists"))
            for page, shown in pages:
                async with session.get(f"http://127.0.0.1:{web_port}{page}") as response:
                    assert response.status == 200
                    assert shown in await response.text()
        # One address's web connections all go to one worker, whose guard counts them: two
        # in calls, a third is refused there as one process refuses it.
        caller = await web_caller(web_port)
        await caller.wait_for("Your alias")
        async with (
            aiohttp.ClientSession() as second,
            aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
            ) as flood,
        ):
            url = f"http://127.0.0.1:{web_port}/telnet"
            held = await second.ws_connect(url, protocols=("base64",))
            reader, writer = await asyncio.open_connection("127.0.0.1", web_port)
            answer = await asyncio.wait_for(reader.read(), 5)
            assert answer.startswith(b"HTTP/1.1 503 ") and TOO_MANY_MESSAGE.encode() in answer
            writer.close()
            # The worker's guard pays for every WebSocket frame: a flood ends that call.
            socket = await flood.ws_connect(url, protocols=("base64",))
            with contextlib.suppress(ConnectionError, RuntimeError):
                for sent in range(5000):
                    await socket.ping()
                    if sent % 100 == 0:
                        await asyncio.sleep(0)
            await door.wait_logged(r"worker \d: hung up on 127\.0\.0\.2: a flood of input")
            await held.close()
        text = door.logged()
        served = set(re.findall(r"worker (\d): node \d: web connect from", text))
        refused = set(re.findall(r"worker (\d): refused WEB from 127\.0\.0\.1: Too many", text))
        assert len(served) == 1 and refused == served, text
        await caller.type("NEW")  # the call goes on
        await caller.wait_for("alias", timeout=10)
        await stopped(door)
        await caller.wait_closed(30)
    finally:
        door.process.kill()


async def test_a_linked_board_s_lines_and_wrong_secrets_count_on_every_worker(tmp_path) -> None:
    door = await serve(every_way_config(tmp_path, board="max_calls = 1\n"))
    try:
        await door.wait_logged(r"worker 1: serving")
        port = way_port(door, "RLOGIN")
        rolf = await linked_caller(port, ABC, "Rolf")
        await rolf.wait_for("Your choice")
        # The other worker, serving nobody, is asked: the front's table counts the board's
        # calls on both.
        reader, writer = await send(port, handshake(ABC.secret, f"[{ABC.tag}]Rita"))
        assert await refusal(reader) == b"\x01All 1 of Another Board's lines are busy." + (
            b" Please call again later.\r\n"
        )
        writer.close()
        # Wrong secrets, whichever worker reads them, make the address rest at the front.
        for guess in range(4):
            reader, writer = await send(port, handshake(f"guess-{guess}", "[ABC]Mallory"))
            assert (await refusal(reader)).startswith(b"\x01Unknown board tag or wrong secret")
            writer.close()
        reader, writer = await send(port, handshake(ABC.secret, "[ABC]Mallory"))
        assert (await refusal(reader)).startswith(b"\x01Too many wrong secrets lately.")
        writer.close()
        text = door.logged()
        on = re.search(r"worker (\d): node \d: RLOGIN from", text)
        busy = re.search(r"worker (\d): refused RLOGIN from .*lines are busy", text)
        assert on and busy and on.group(1) != busy.group(1), text
        assert "INFO refused RLOGIN from 127.0.0.1: resting after wrong secrets" in text
        await stopped(door)
        await rolf.wait_closed(30)
    finally:
        door.process.kill()


@pytest.mark.slow
async def test_a_refusal_the_front_decides_is_told_in_the_boards_language(tmp_path) -> None:
    """A worker's caller refused a node by the front (a linked board's lines busy, with their
    count) is told in the board's language, as one process tells them; the log is English."""
    path = every_way_config(tmp_path, board="max_calls = 1\n")
    path.write_text(path.read_text() + '[words]\nlanguage = "de"\n')
    door = await serve(path)
    try:
        await door.wait_logged(r"worker 1: serving")
        port = way_port(door, "RLOGIN")
        rolf = await linked_caller(port, ABC, "Rolf")
        await rolf.wait_for("Deine Wahl")
        reader, writer = await send(port, handshake(ABC.secret, f"[{ABC.tag}]Rita"))
        assert await refusal(reader) == (
            b"\x01Die einzige Leitung von Another Board ist belegt. Bitte ruf spater wieder an.\r\n"
        )
        writer.close()
        await door.wait_logged(r"refused RLOGIN from 127\.0\.0\.1: All 1 of Another Board's")
        await stopped(door)
        await rolf.wait_closed(30)
    finally:
        door.process.kill()
