"""The README's nginx lines and its Caddyfile, as written, in front of the door: a real nginx
and a real Caddy from Debian on a free port of their own, the page's WebSocket through
them, the caller's address from X-Forwarded-For, a forged one not believed, and a refused
page told why."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

import aiohttp
import pytest

from tests.support.telnet_caller import Caller
from tests.support.web_caller import ROOT, WebDoor, WebSocketLine, web_config

pytestmark = pytest.mark.slow


def readme_block(kind: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(rf"```{kind}\n(.*?)```", text, re.S)
    assert found, f"README.md has no {kind} block"
    return re.sub(r"^  ", "", found.group(1), flags=re.M)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def nginx_in_front(folder: Path, door_port: int, port: int):
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    location = readme_block("nginx").replace("127.0.0.1:8080", f"127.0.0.1:{door_port}")
    temp = folder / "nginx-temp"
    temp.mkdir()
    config = folder / "nginx.conf"
    config.write_text(
        f"daemon off;\nmaster_process off;\npid {folder}/nginx.pid;\n"
        f"error_log {folder}/nginx-error.log;\nevents {{}}\nhttp {{\n  access_log off;\n"
        + "".join(
            f"  {kind}_temp_path {temp}/{kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        + f"  server {{\n    listen 127.0.0.1:{port};\n{location}  }}\n}}\n"
    )
    process = subprocess.Popen(
        [nginx, "-c", str(config), "-p", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.1):
                break
            if process.poll() is not None:
                raise RuntimeError((folder / "nginx-error.log").read_text())
            time.sleep(0.05)
        yield
    finally:
        process.terminate()
        process.wait(5)


@contextlib.contextmanager
def caddy_in_front(folder: Path, door_port: int, port: int):
    """The README's Caddyfile with the door on ``door_port`` and, for a test on one machine,
    plain http on ``port`` of 127.0.0.1 (no certificate to get) and no admin endpoint."""
    caddy = shutil.which("caddy")
    assert caddy, "needs Debian's caddy (the README's test command installs it)"
    site = readme_block("caddy").replace("127.0.0.1:8080", f"127.0.0.1:{door_port}")
    site = site.replace("bbs.example.org {", f"http://127.0.0.1:{port} {{\n\tbind 127.0.0.1")
    config = folder / "Caddyfile"
    config.write_text("{\n\tadmin off\n}\n" + site)
    log = (folder / "caddy.log").open("w")
    process = subprocess.Popen(
        [caddy, "run", "--config", str(config), "--adapter", "caddyfile"],
        stdout=log,
        stderr=log,
        env={"HOME": str(folder), "PATH": "/usr/bin:/bin"},
    )
    try:
        for _ in range(200):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.1):
                break
            if process.poll() is not None:
                raise RuntimeError((folder / "caddy.log").read_text())
            time.sleep(0.05)
        yield
    finally:
        process.terminate()
        process.wait(5)


async def caller_through(port: int, origin: str, forged: str | None = None) -> Caller:
    connector = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
    session = aiohttp.ClientSession(connector=connector)
    headers = {"Origin": origin}
    if forged is not None:
        headers["X-Forwarded-For"] = forged
    socket_ = await session.ws_connect(
        f"http://127.0.0.1:{port}/telnet", protocols=("binary",), headers=headers
    )
    line = WebSocketLine(session, socket_)
    return Caller(line, line)  # type: ignore[arg-type]


@pytest.mark.parametrize("proxy", [nginx_in_front, caddy_in_front], ids=["nginx", "caddy"])
async def test_the_readme_s_proxy_lines_work_as_written_on_any_port(tmp_path, proxy):
    port = free_port()
    public = f"http://127.0.0.1:{port}"
    config = web_config(
        tmp_path, origins=(public,), proxies=(ipaddress.ip_network("127.0.0.1/32"),)
    )
    door = await WebDoor.open(config)
    try:
        with proxy(tmp_path, door.web_port, port):
            # The page through the proxy.
            async with aiohttp.ClientSession() as session, session.get(public + "/") as page:
                assert page.status == 200
            caller = await caller_through(port, public, forged="203.0.113.9")
            await caller.wait_for("Your alias")
            # The proxy added the browser's own address (nginx after the forged one; Caddy
            # in its place): that one is taken.
            assert [call.address for call in door.ways.nodes.calls] == ["127.0.0.2"]
            await caller.hang_up()
            # A page of another site is refused with a reason, through the proxy too.
            refused = await caller_through(port, "http://rebound.example:" + str(port))
            await refused.wait_closed()
            assert refused.reader.socket.close_code == aiohttp.WSCloseCode.POLICY_VIOLATION
            await asyncio.sleep(0.1)
            assert door.ways.nodes.calls == []
    finally:
        await door.close()
