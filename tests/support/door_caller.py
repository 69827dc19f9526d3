"""A caller of a door that runs as a BBS runs it: a subprocess on a pty, or on a socket.

The test plays the BBS: it starts ``python -m door ...`` with the pty's slave side (or one end
of a socket pair) as the caller's line, and reads what the door sends through a pyte screen,
decoded as the caller's terminal would (CP437 with the suit glyphs, UTF-8 or ASCII).
"""

from __future__ import annotations

import codecs
import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Sequence
from pathlib import Path

import pyte

from ansi.charset import decode
from tests.support import door_log

WAIT = 10.0  # seconds any single wait may take before the test fails
CPR_REQUEST = b"\x1b[6n"
RELAY_DROPS = bytes(range(0x03, 0x07))
SHIPPED_CONFIG = Path(__file__).resolve().parents[2] / "sysop.toml"


def write_config(folder: Path, bbs_name: str = "Test Board", **server: object) -> Path:
    """The shipped sysop.toml, with its database in ``folder`` and a known board name."""
    text = SHIPPED_CONFIG.read_text(encoding="utf-8")
    text = text.replace('name = "The Canfield Door"', f'name = "{bbs_name}"', 1)
    text = text.replace('database = "canfield.db"', 'database = "door.db"', 1)
    for key, value in server.items():
        text, count = re.subn(rf"(?m)^{key} = .*$", f"{key} = {value}", text, count=1)
        assert count == 1, key
    path = folder / "sysop.toml"
    path.write_text(text, encoding="utf-8")
    return path


def door_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "door", *args]


def sysop_command(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``canfield-door sysop ARGS`` run to its end, as the sysop types it in a shell."""
    return subprocess.run(
        door_command("sysop", "--config", str(config), *args),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=2 * WAIT,
        check=False,
    )


class DoorCall:
    """A door process and the caller's end of its line, with what the caller sees."""

    def __init__(
        self, process: subprocess.Popen[bytes], line: int, charset: str, relay: bool = False
    ) -> None:
        self.process = process
        self.line = line  # the fd the caller reads and types on
        self.charset = charset
        # The BBS between the door and a UTF-8 caller reads the door's output as CP437 and
        # re-encodes it as UTF-8, dropping 0x03-0x06 on the way (ENiGMA½ does).
        self.relay = relay
        self.screen = pyte.Screen(80, 24)
        self._stream = pyte.Stream(self.screen)
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.received = bytearray()
        self.text = ""  # everything decoded
        self._mark = 0  # where the text since the last key starts
        self.eof = False
        self._hung_up = False
        self._log: str | None = None
        #: Whether the caller's terminal answers cursor position requests.
        self.answers = True
        door_log.current().watch("the door's stderr", self.log)

    @classmethod
    def on_pty(
        cls,
        args: Sequence[str],
        *,
        charset: str = "cp437",
        env: dict[str, str] | None = None,
        stderr_on_pty: bool = False,
        controlling: bool = False,
        relay: bool = False,
    ) -> tuple[DoorCall, int]:
        """The door with a pty as its standard input and output; returns it and the slave
        fd, left open so the test can read the terminal's settings once the door is done.

        ``controlling`` makes the pty the door's controlling terminal (Ctrl-C interrupts).
        """
        master, slave = pty.openpty()
        fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        process = subprocess.Popen(
            door_command(*args),
            stdin=slave,
            stdout=slave,
            stderr=slave if stderr_on_pty else subprocess.PIPE,
            env=env,
            start_new_session=True,
            preexec_fn=_take_terminal if controlling else None,
        )
        return cls(process, master, "utf-8" if relay else charset, relay), slave

    @classmethod
    def on_socket(cls, args: Sequence[str], line: int, door_end: int) -> DoorCall:
        """The door with ``door_end`` to inherit; its standard input and output lead nowhere.

        ``line``, the BBS's end of the socket, is the caller's to close (pass a duplicate).
        """
        process = subprocess.Popen(
            door_command(*args),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            pass_fds=(door_end,),
        )
        return cls(process, line, "cp437")

    # -- the caller's side ------------------------------------------------------------------

    def send(self, data: bytes | str) -> None:
        self._mark = len(self.text)
        os.write(self.line, data.encode("ascii") if isinstance(data, str) else data)

    def display(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def wait_for(self, pattern: str, timeout: float = WAIT) -> None:
        """Until the screen, or the text since the last key, matches ``pattern``."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while not (regex.search(self.display()) or regex.search(self.text[self._mark :])):
            left = deadline - time.monotonic()
            if left <= 0 or (not self._take(left) and self.process.poll() is not None):
                raise AssertionError(
                    f"{pattern!r} not seen within {timeout} s; the screen:\n{self.display()}\n"
                    f"the door's log:\n{self.log()}"
                )

    def _take(self, timeout: float) -> bool:
        """Whether anything came from the door within ``timeout`` (at most half a second)."""
        if self.eof:
            return False
        ready, _, _ = select.select([self.line], [], [], min(timeout, 0.5))
        if not ready:
            return False
        try:
            data = os.read(self.line, 4096)
        except OSError:  # EIO: every slave side of the pty is closed
            data = b""
        if not data:
            self.eof = True
            return False
        self.received += data
        if self.relay:
            data = data.translate(None, RELAY_DROPS).decode("cp437").encode("utf-8")
        # Shown up to each cursor position request, answered with where the cursor really
        # is, as the caller's terminal does.
        pieces = data.split(CPR_REQUEST)
        for index, piece in enumerate(pieces):
            if self.charset == "utf-8":
                text = self._utf8.decode(piece)
            else:
                text = decode(piece, self.charset, glyphs=True)
            self.text += text
            self._stream.feed(text)
            if index < len(pieces) - 1 and self.answers:
                cursor = self.screen.cursor
                os.write(self.line, f"\x1b[{cursor.y + 1};{cursor.x + 1}R".encode())
        return True

    def drain(self, seconds: float = 0.2) -> None:
        """Take in what the door sends for ``seconds`` (its last words)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0 and not self.eof:
            self._take(left)

    # -- the door's side --------------------------------------------------------------------

    def wait_exit(self, timeout: float = WAIT) -> int:
        """The door's exit status, reading its output meanwhile so it never blocks."""
        deadline = time.monotonic() + timeout
        while self.process.poll() is None:
            left = deadline - time.monotonic()
            if left <= 0:
                self.process.kill()
                self.process.wait(WAIT)
                raise AssertionError(f"the door did not exit; its log:\n{self.log()}")
            if not self._take(min(left, 0.1)):
                time.sleep(0.02)
        self.drain(0.1)
        return self.process.returncode

    def log(self) -> str:
        """What the door wrote on stderr, once it has exited."""
        if self.process.poll() is None:
            return "(the door is still running)"
        if self._log is None:
            stderr = self.process.stderr
            self._log = stderr.read().decode("utf-8", "replace") if stderr else ""
        return self._log

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(WAIT)
        self.log()  # kept for the test to read after
        if self.process.stderr is not None:
            self.process.stderr.close()
        self.hang_up()

    def hang_up(self) -> None:
        """Close the caller's end of the line, as a BBS does when the caller drops."""
        if not self._hung_up:
            self._hung_up = self.eof = True
            os.close(self.line)


def _take_terminal() -> None:
    """In the child, after setsid: make standard input the controlling terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def door32(
    *,
    comm: int = 0,
    handle: int = 0,
    bbs: str = "Mystic BBS 1.12 A48",
    real_name: str = "Joe Caller",
    alias: str = "Joe",
    minutes: int = 45,
    emulation: int = 1,
    node: int = 3,
) -> list[str]:
    return [
        str(comm),
        str(handle),
        "38400",
        bbs,
        "17",  # user record
        real_name,
        alias,
        "30",  # security level
        str(minutes),
        str(emulation),
        str(node),
    ]


def write_dropfile(folder: Path, name: str, lines: list[str]) -> Path:
    """CP437, CR LF and a ^Z at the end, as a DOS-era BBS writes it."""
    path = folder / name
    path.write_bytes("\r\n".join(lines).encode("cp437") + b"\r\n\x1a")
    return path


def door_args(dropfile: Path, config: Path, *extra: str) -> list[str]:
    return ["door", "--dropfile", str(dropfile), "--config", str(config), *extra]


def play_a_move_and_quit(call: DoorCall) -> None:
    """From the main menu: play a game, turn the deck once, leave it saved, say goodbye."""
    call.wait_for("Your choice:")
    call.send("P\r")  # a key and its Enter, as a client that sends lines does
    call.wait_for("Choose a level")
    call.send("\r")
    call.wait_for(r"Command( \(\? for help\))?:")
    call.send("V\r")
    call.wait_for(r"Moves +1\b|Deck \d+, waste")  # the board, or a plain caller's line
    call.send("Q\r")
    call.wait_for("Your game is saved")
    call.send("G")
    call.wait_for("Thanks for playing Canfield. Goodbye!")
