"""The README's test command works where it is run: as root (no sudo) or as a sudo user."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def readme_test_command() -> str:
    section = README.read_text(encoding="utf-8").split("## Run the tests", 1)[1]
    return re.search(r"```sh\n(.*?)\n```", section, re.S)[1]


def test_the_test_command_needs_no_sudo_as_root_and_uses_it_otherwise(tmp_path):
    command = readme_test_command()
    assert not command.startswith("sudo "), "a root container has no sudo"
    assert "pytest" in command
    # Every apt-get goes through $(command -v sudo): nothing as root, sudo for a user.
    assert command.count("apt-get") == command.count("$(command -v sudo) apt-get")
    # Its first step, run with apt-get replaced by echo, under a PATH without sudo (root's
    # container) and with a sudo that only says its arguments (a user's machine).
    first = command.split(" && ")[0].replace("apt-get", "echo apt-get")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sh", "echo"):
        (bin_dir / tool).symlink_to(subprocess.check_output(["which", tool], text=True).strip())
    as_root = subprocess.run(
        ["sh", "-c", first], env={"PATH": str(bin_dir)}, capture_output=True, text=True
    )
    assert as_root.returncode == 0 and as_root.stdout.strip() == "apt-get update"
    (bin_dir / "sudo").write_text('#!/bin/sh\necho sudo "$@"\n')
    (bin_dir / "sudo").chmod(0o755)
    as_user = subprocess.run(
        ["sh", "-c", first], env={"PATH": str(bin_dir)}, capture_output=True, text=True
    )
    assert as_user.stdout.strip() == "sudo echo apt-get update"


def test_the_readme_says_what_a_cp437_caller_and_a_reencoding_board_show():
    text = README.read_text(encoding="utf-8")
    assert "`S > ?` on a CP437 screen" in text  # a CP437 screen has no →
    # ENiGMA½ passes CP437's suits on as control bytes: nothing is dropped, nothing drawn.
    assert "drops bytes 3 to 6" not in text
    assert "control bytes that the caller's terminal does not draw" in text
