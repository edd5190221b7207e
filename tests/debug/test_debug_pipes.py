"""Every command line (the debug commands, the static pass) ends quietly when its reader closes stdout early (``... | head -3``), as a command stopped by SIGPIPE."""

from __future__ import annotations

import subprocess
import sys

import pytest

from jitcheck.pipes import CLOSED_PIPE_STATUS
from tests.debug.conftest import PACKAGES, ROOT

_CLEAN = str(PACKAGES / "debug_clean_pkg")


@pytest.mark.parametrize(
    "command",
    [
        ["-m", "jitcheck.debug", "report", _CLEAN],
        ["-m", "jitcheck", "debug-report", "--json", _CLEAN],
        ["-m", "jitcheck.debug", "run", "-c", "for i in range(100000): print(i)"],
        ["-m", "jitcheck.debug", "--help"],
        ["-m", "jitcheck", "--no-cache", "--exit-zero", "fixtures/lint_project"],
    ],
    ids=["report", "jitcheck-debug-report-json", "run", "help", "static-pass"],
)
def test_a_closed_stdout_ends_the_command_quietly(debug_env: dict[str, str], command: list[str]) -> None:
    with subprocess.Popen(
        [sys.executable, *command], cwd=ROOT, env=debug_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as child:
        assert child.stdout is not None
        child.stdout.close()  # the reader is gone before the first line is written, as `| head` is after its lines
        _, errors = child.communicate(timeout=900)
    assert "Traceback" not in errors and "BrokenPipeError" not in errors, errors
    assert "Exception ignored" not in errors, errors
    assert child.returncode == CLOSED_PIPE_STATUS == 141
