"""docs/tutorial.md's console commands, split by layer so each group runs in a test of its own.

The groups are independent (only the static pass's commands share a scratch copy, and
they stay in page order within their group), so a test run spreads them over its workers.
"""

from __future__ import annotations

from pathlib import Path

from .console_blocks import Command, commands

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "tutorial.md"
COMMANDS = commands(PAGE)


def _layer(command: Command) -> str:
    line = command.line
    if "count_compiles.py" in line:
        return "compiles"
    if "jitcheck.debug" in line:
        return "debug"
    if "mypy" in line:
        return "mypy"
    return "static"


def group(layer: str) -> list[Command]:
    """The page's commands of one layer (static, mypy, debug, compiles), in page order."""
    return [command for command in COMMANDS if _layer(command) == layer]
