"""Run a page's ```console blocks as written and compare what they print with what the page shows.

A block holds commands (lines starting ``$ ``) each followed by the output the page
shows for it. Every shown line must appear in the command's real output, in order;
decimal numbers (timings) are compared as "a number", the checkout's own folder (which
Python prints in warnings) is dropped, and everything else is compared exactly.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

from .doc_blocks import blocks

_DECIMAL = re.compile(r"\d+\.\d+")


@dataclasses.dataclass(frozen=True)
class Command:
    """One command of a console block and the output the page shows for it."""

    line: str
    shown: tuple[str, ...]


def commands(path: Path) -> list[Command]:
    """Every command of the page's console blocks, in order."""
    found: list[Command] = []
    for block in blocks(path, "console"):
        current: list[str] | None = None
        line = ""
        for text in block.splitlines():
            if text.startswith("$ "):
                if current is not None:
                    found.append(Command(line, tuple(current)))
                line, current = text[2:], []
            elif current is not None:
                current.append(text)
        if current is not None:
            found.append(Command(line, tuple(current)))
    return found


def normalise(text: str) -> str:
    return _DECIMAL.sub("<n>", text.rstrip())


def run(command: Command, cwd: Path, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run the command with bash in ``cwd``; ``python`` and ``jitcheck`` are this interpreter's."""
    bin_dir = str(Path(sys.executable).parent)
    full_env = {**env, "PATH": bin_dir + os.pathsep + env.get("PATH", ""), "COLUMNS": "200"}
    return subprocess.run(["bash", "-c", command.line], cwd=cwd, env=full_env, capture_output=True, text=True, timeout=timeout)


def missing_lines(command: Command, output: str, root: Path) -> list[str]:
    """The shown lines not found, in order, in ``output`` (run in the checkout ``root``)."""
    actual = [normalise(line.replace(f"{root}/", "")) for line in output.splitlines()]
    missing = []
    position = 0
    for shown in command.shown:
        want = normalise(shown)
        if not want:
            continue
        try:
            position = actual.index(want, position) + 1
        except ValueError:
            missing.append(shown)
    return missing
