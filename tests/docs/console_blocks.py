"""Run a page's ```console blocks as written and compare what they print with what the page shows.

A block holds commands (lines starting ``$ ``) each followed by the output the page
shows for it. Every shown line must appear in the command's real output, in order.
Nothing that depends on the machine's speed is compared: decimal numbers (timings) are
compared as "a number" and runs of spaces (a table's padding, which widens with a
timing's digits) as one space. The checkout's own folder (which Python prints in
warnings) is dropped, and the page's scratch folder ``/tmp/`` is replaced by a folder
of the test's own, so two runs at once never share it. Everything else is exact.
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
_SPACES = re.compile(r"[ \t]+")
SCRATCH = "/tmp/"
"""The scratch folder the page's commands write to; tests run them in a folder of their own."""


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
    """A line as compared: every decimal number one placeholder, every run of spaces one space."""
    return _SPACES.sub(" ", _DECIMAL.sub("<n>", text.rstrip()))


def run(command: Command, cwd: Path, env: dict[str, str], scratch: Path, timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    """Run the command with bash in ``cwd``; ``python`` and ``jitcheck`` are this interpreter's.

    The page's scratch folder is ``scratch`` in the command, and is printed back as the
    page's in the output. The timeout only stops a hung command; it is never compared.
    """
    bin_dir = str(Path(sys.executable).parent)
    full_env = {**env, "PATH": bin_dir + os.pathsep + env.get("PATH", ""), "COLUMNS": "200"}
    line = command.line.replace(SCRATCH, f"{scratch}/")
    done = subprocess.run(["bash", "-c", line], cwd=cwd, env=full_env, capture_output=True, text=True, timeout=timeout)
    done.stdout = done.stdout.replace(f"{scratch}/", SCRATCH)
    done.stderr = done.stderr.replace(f"{scratch}/", SCRATCH)
    return done


def failures(selected: list[Command], root: Path, env: dict[str, str], scratch: Path) -> list[str]:
    """Run ``selected`` in order; for each that did not print what the page shows, what it printed."""
    found = []
    for command in selected:
        done = run(command, root, env, scratch)
        missing = missing_lines(command, done.stdout + done.stderr, root)
        if missing:
            found.append(f"$ {command.line}\n  not printed:\n    " + "\n    ".join(missing) + f"\n  printed:\n{done.stdout}{done.stderr}")
    return found


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
