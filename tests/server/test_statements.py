"""An edit's statements, read by parsing only the statements it touched, are the statements of the whole new text."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jitcheck.server.statements import Statement, edited, statements

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "fixtures" / "lint_project" / "data.py",
         ROOT / "benchmarks" / "bench_lint.py"]
INSERTED = ["import os", "    return 2", "def pasted(x):", "x = (", ")", "'''", "@jax.jit", "", "# a comment",
            "else:", "    y = [1,", "class C:", "y = 1; z = 2"]


def _fields(found: list[Statement] | None) -> list[tuple[object, ...]] | None:
    if found is None:
        return None
    return [(s.start, s.end, s.text, s.binds, s.loads, s.is_import, s.aliases) for s in found]


def _whole(text: str) -> list[tuple[object, ...]] | None:
    """What a fresh read of the whole text gives (the kept reads bypassed: a text never seen, then dropped)."""
    try:
        ast.parse(text)
    except SyntaxError:
        return None
    return _fields(statements(text + "\n# fresh\n"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_an_edit_reads_the_same_statements_as_the_whole_text(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    checked = 0
    for where in range(0, len(lines), max(1, len(lines) // 10)):
        for new_line in INSERTED:
            for new in ("\n".join([*lines[:where], new_line, *lines[where:]]),  # inserted
                        "\n".join([*lines[:where], new_line, *lines[where + 1:]]),  # replaced
                        "\n".join([*lines[:where], *lines[where + 1:]])):  # deleted
                statements(text)  # the old text read, as the server has it
                got = _fields(edited(text, new))
                want = _whole(new)
                if want is not None:
                    want = [(start, end, body.removesuffix("\n# fresh"), *rest) for start, end, body, *rest in want]
                assert got == want, (path.name, where, new_line)
                checked += 1
    assert checked > 50
