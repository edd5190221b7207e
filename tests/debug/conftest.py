"""Helpers for the debug-mode tests: a child Python that sees the fixture packages, and a clean debug state."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ROOT / "fixtures" / "debug_packages"

RunPython = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def debug_env(subprocess_env: dict[str, str]) -> dict[str, str]:
    """The child environment, with the fixture packages importable."""
    env = dict(subprocess_env)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGES), env["PYTHONPATH"]])
    for name in ("JITCHECK_PACKAGES", "JITCHECK_MAX_TRACES", "JITCHECK_ON_RETRACE"):
        env.pop(name, None)
    return env


@pytest.fixture
def run_python(debug_env: dict[str, str]) -> RunPython:
    """Run ``python *args`` in a fresh interpreter (optionally with extra environment); returns the completed process."""

    def run(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT, timeout: float = 900) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, *args], env={**debug_env, **(env or {})}, cwd=cwd, capture_output=True, text=True, timeout=timeout
        )

    return run


def last_json(output: str) -> Any:
    """The JSON document printed on the last line of ``output``."""
    return json.loads(output.strip().splitlines()[-1])


@pytest.fixture
def debug_mode() -> Iterator[None]:
    """Debug mode on in this process (no beartype packages, retraces recorded), off again afterwards."""
    from jitcheck.debug import mode, records
    from jitcheck.debug.retrace import TRACKER

    records.clear_records()
    TRACKER.reset()
    mode.enable(on_retrace="record", max_traces=1)
    try:
        yield
    finally:
        mode.disable()
        TRACKER.reset()
        records.clear_records()


@pytest.fixture
def fresh_tracker() -> Iterator[None]:
    """No retrace listener left behind: other tests of this process see jitcheck.core.events as they left it.

    jax's caches are cleared first, so the traces a test counts are its own even when
    it runs again in the same process (its module-level functions are then cached).
    """
    import jax

    from jitcheck.core import events
    from jitcheck.debug.retrace import TRACKER

    jax.clear_caches()
    TRACKER.reset()
    listening = events.listening()
    yield
    TRACKER.reset()
    assert events.listening() == listening
