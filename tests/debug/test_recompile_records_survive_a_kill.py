"""The recorder's JSON survives a run killed by its time limit: real pytest (and the runner) in a child process, killed mid-test.

``timeout`` sends SIGTERM, then SIGKILL: after SIGTERM the file holds everything
recorded (the test in progress included), after SIGKILL the records of every test
that finished (written after each test). Either way ``"complete"`` is false (a run
that ends writes ``true``: the planted suite of test_recompile_recorder.py checks it).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SUITE = """
import os, pathlib, time
import jax, jax.numpy as jnp

def make(t):
    def scaled(x):
        return x * t
    return scaled

def test_finished():
    for t in (1.0, 2.0, 3.0):
        jax.jit(make(t))(jnp.ones(2))

def test_killed_while_running():
    def in_progress(x):
        return x + 1.0
    jax.jit(in_progress)(jnp.ones(3))
    pathlib.Path(os.environ["READY"]).write_text("ready")
    time.sleep(600)
"""


def _killed(tmp_path: Path, env: dict[str, str], command: list[str], how: signal.Signals) -> tuple[int, dict[str, Any]]:
    """Run ``command`` until the planted code says it is running its last part, send ``how``; (exit status, the records)."""
    ready = tmp_path / "ready"
    process = subprocess.Popen(command, cwd=tmp_path, env={**env, "READY": str(ready)}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 240
        while not ready.exists():
            assert process.poll() is None, process.stdout.read().decode() if process.stdout else ""
            assert time.monotonic() < deadline, "the child never reached its last test"
            time.sleep(0.05)
        process.send_signal(how)
        status = process.wait(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return status, json.loads((tmp_path / "r.json").read_text())


def _pytest(tmp_path: Path) -> list[str]:
    (tmp_path / "test_suite.py").write_text(SUITE)
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "0",
            "--jitcheck-recompiles-json", str(tmp_path / "r.json"), "test_suite.py"]


def _sites(records: dict[str, Any]) -> dict[str, tuple[int, int, str | None]]:
    return {s["function"].rsplit(".", 1)[-1]: (s["compiles"], s["avoidable_compiles"], s["cause"]) for s in records["sites"] if not s["internal"]}


def test_sigterm_writes_everything_recorded_and_the_process_still_ends_by_sigterm(tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    status, records = _killed(tmp_path, subprocess_env, _pytest(tmp_path), signal.SIGTERM)
    assert status == -signal.SIGTERM  # ended as SIGTERM ends it: pytest's own summary never ran
    assert records["complete"] is False
    sites = _sites(records)
    # three constants baked into one program: 3 compiles (one per closure, as jax keys them), 2 of them avoidable
    assert sites["scaled"] == (3, 2, "constants")
    assert sites["in_progress"] == (1, 0, None)  # the test cut short is in the file too
    assert {t["test"] for t in records["traces"] if not t["internal"]} == {"test_suite.py::test_finished", "test_suite.py::test_killed_while_running"}


def test_sigkill_keeps_the_records_of_every_test_that_finished(tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    status, records = _killed(tmp_path, subprocess_env, _pytest(tmp_path), signal.SIGKILL)
    assert status == -signal.SIGKILL
    assert records["complete"] is False
    sites = _sites(records)
    assert sites["scaled"] == (3, 2, "constants")
    assert "in_progress" not in sites  # written after each test: the one killed had not finished


def test_the_runner_writes_its_records_on_sigterm(tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    script = tmp_path / "script.py"
    script.write_text(SUITE + "\ntest_finished()\ntest_killed_while_running()\n")
    command = [sys.executable, "-m", "jitcheck.debug", "run", "--recompiles-json", str(tmp_path / "r.json"), str(script)]
    status, records = _killed(tmp_path, subprocess_env, command, signal.SIGTERM)
    assert status == -signal.SIGTERM
    assert records["complete"] is False
    assert _sites(records) == {"scaled": (3, 2, "constants"), "in_progress": (1, 0, None)}


def test_a_write_replaces_the_file_whole_with_the_folders_usual_mode(tmp_path: Path) -> None:
    import os
    import stat

    from jitcheck.debug.recompile_file import write

    target = tmp_path / "r.json"
    plain = tmp_path / "plain.json"
    plain.write_text("{}")  # what open() makes here: the mode the umask gives
    write(str(target), {"version": 1, "complete": False})
    write(str(target), {"version": 1, "complete": True})
    assert json.loads(target.read_text()) == {"version": 1, "complete": True}
    assert stat.S_IMODE(os.stat(target).st_mode) == stat.S_IMODE(os.stat(plain).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain.json", "r.json"]  # no temporary file left beside it
