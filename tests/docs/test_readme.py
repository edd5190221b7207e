"""The README's quick start runs as written and its set-up commands are the ones CI runs."""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from jitcheck.lint.cli import main

from .doc_blocks import blocks, run_python_blocks

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def test_quick_start_runs_and_prints_the_refusal_it_promises() -> None:
    printed = run_python_blocks(README)
    assert "JC102" in printed
    assert "ValuePartial(scale, factor=2.0)" in printed


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    commands = [b.strip() for b in blocks(README, "bash")[:2]]
    assert commands[0].startswith("pip install . && jitcheck")
    assert "pytest" in commands[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci.splitlines()


def test_the_set_up_command_prints_the_findings_the_readme_says_folder_by_folder(capsys: pytest.CaptureFixture[str]) -> None:
    """The README says how many findings `jitcheck --exit-zero fixtures/` prints, and from which folders."""
    text = README.read_text()
    total = int(re.search(r"It prints (\d+)\s+findings from", text).group(1))  # type: ignore[union-attr]
    promised = {folder: int(count) for folder, count in re.findall(r"- `(fixtures/\w+)/` \((\d+) findings?\)", text)}
    assert len(promised) == 3 and sum(promised.values()) == total
    assert main(["--exit-zero", "--no-cache", str(ROOT / "fixtures")]) == 0
    printed = capsys.readouterr().out
    rows = re.findall(r"^(\S+?):\d+:\d+: JC\d{3} ", printed, re.MULTILINE)
    seen = Counter(next(folder for folder in promised if Path(row).resolve().is_relative_to(ROOT / folder)) for row in rows)
    assert dict(seen) == promised
    assert f"Found {total} findings" in printed
    assert not any("example_fixed" in row for row in rows), "the fixed twin the README calls clean has findings"


def test_the_readme_gives_debug_commands_that_work_without_a_hook() -> None:
    """`JITCHECK_DEBUG=1` alone checks no package, and a plain `python` needs the start-up hook (docs/debug.md)."""
    text = README.read_text()
    assert "JITCHECK_DEBUG=1" not in text
    item = re.search(r"3\. \*\*At runtime, in debug mode\*\*: `([^`]+)`", text)
    assert item is not None and item.group(1).startswith("python -m jitcheck.debug run --packages ")


def test_the_readme_says_the_tests_take_minutes_and_where_the_editor_set_up_starts() -> None:
    text = README.read_text()
    after_test_command = text.split(blocks(README, "bash")[1].strip(), 1)[1].split("## Quick start", 1)[0]
    assert re.search(r"takes a few minutes: \d+ to \d+ on a 2-core machine", after_test_command)
    assert "pip install '.[server]'" in after_test_command and "docs/editor.md" in after_test_command


def test_the_editor_page_installs_the_server_extra_from_the_clone() -> None:
    editor = (ROOT / "docs" / "editor.md").read_text()
    installs = re.findall(r"^pip install .*$", editor, re.MULTILINE)
    assert installs == ["pip install '.[server]'"]
    assert "server" in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
