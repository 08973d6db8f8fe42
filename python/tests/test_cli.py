"""python -m bicl info / check / demo as a user runs them."""
from __future__ import annotations

import os
import subprocess
import sys

from conftest import device_spec

import bicl


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bicl", *args], capture_output=True, text=True,
                          env=dict(os.environ), check=False)


def test_info_lists_devices_and_fingerprint() -> None:
    p = run("info", "--device", device_spec())
    assert p.returncode == 0, p.stdout + p.stderr
    with bicl.Context(device_spec()) as ctx:
        assert f"fingerprint: {ctx.fingerprint}" in p.stdout
    assert "SUITABLE" in p.stdout and "torch bridge:" in p.stdout


def test_check_runs_bicl_check_with_the_golden_hashes() -> None:
    p = run("check", "--device", device_spec(), "--op", "cast")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "PASS: 0 of" in p.stdout


def test_check_fails_on_a_wrong_golden_file(tmp_path) -> None:
    golden = tmp_path / "golden.txt"
    with open(bicl.golden_path()) as f:
        lines = f.read().splitlines()
    # corrupt every cast hash (the hashes are the last field of each line)
    bad = [(ln[:-1] + ("0" if ln[-1] != "0" else "1")) if ln.startswith("cast") else ln
           for ln in lines]
    golden.write_text("\n".join(bad) + "\n")
    p = run("check", "--device", device_spec(), "--op", "cast", "--verify", str(golden))
    assert p.returncode != 0, p.stdout


def test_demo_help() -> None:
    p = run("demo", "--help")
    assert p.returncode == 0 and "Llama" in p.stdout
