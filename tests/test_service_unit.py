"""The systemd unit shipped in packaging/: valid for systemd, and what the README promises."""

from __future__ import annotations

import configparser
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from door.commands.main import build_parser

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "packaging" / "systemd" / "canfield-door.service"
INSTALLED = "/opt/canfield/.venv/bin/canfield-door"


def unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(UNIT.read_text())
    return parser


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_systemd_analyze_verify_finds_nothing_wrong(tmp_path):
    # verify checks that the program exists: point it at this checkout's.
    door = Path(sys.executable).parent / "canfield-door"
    if not door.exists():
        pytest.skip("canfield-door is not installed beside the tests' Python")
    copy = tmp_path / "canfield-door.service"
    copy.write_text(UNIT.read_text().replace(INSTALLED, str(door)))
    checked = subprocess.run(
        ["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, timeout=60
    )
    assert checked.returncode == 0, checked.stderr
    assert checked.stderr == "", checked.stderr


def test_the_unit_runs_the_door_as_its_own_user_and_reloads_with_sighup():
    service = unit()["Service"]
    assert service["User"] == "canfield" and service["Group"] == "canfield"
    assert service["Restart"] == "on-failure"
    assert service["ExecReload"] == "/bin/kill -HUP $MAINPID"
    assert service["StandardError"] == "journal"
    assert service["UMask"] == "0077"
    assert service["NoNewPrivileges"] == "yes" and service["ProtectSystem"] == "strict"
    assert service["CapabilityBoundingSet"] == ""
    command = shlex.split(service["ExecStart"])
    assert command[0] == INSTALLED
    args = build_parser().parse_args(command[1:])
    assert args.command == "serve" and args.config == "/etc/canfield/sysop.toml"


def test_the_readme_installs_the_unit_it_ships():
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Run it as a service") :]
    assert "packaging/systemd/canfield-door.service" in section
    assert "systemctl reload canfield-door" in section
    assert "useradd" in section and "/etc/canfield/sysop.toml" in section
