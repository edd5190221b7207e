"""docs/tutorial.md: every command runs as written, and prints the lines the page shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from .console_blocks import commands, missing_lines, run

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "tutorial.md"
COMMANDS = commands(PAGE)


def test_the_tutorial_has_commands_for_every_layer() -> None:
    lines = [c.line for c in COMMANDS]
    assert any(line.startswith("jitcheck ") for line in lines)
    assert any("mypy" in line for line in lines)
    assert any("jitcheck.debug" in line for line in lines)
    assert any("count_compiles.py" in line for line in lines)


@pytest.mark.slow
def test_tutorial_commands_print_what_the_page_shows(subprocess_env: dict[str, str]) -> None:
    # One test, in page order: later commands use what earlier ones wrote (the /tmp copy).
    failures = []
    for command in COMMANDS:
        done = run(command, ROOT, subprocess_env)
        missing = missing_lines(command, done.stdout + done.stderr, ROOT)
        if missing:
            failures.append(f"$ {command.line}\n  not printed:\n    " + "\n    ".join(missing) + f"\n  printed:\n{done.stdout}{done.stderr}")
    assert not failures, "\n\n".join(failures)
