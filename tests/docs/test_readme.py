"""The README's quick start runs as written and its set-up commands are the ones CI runs."""

from __future__ import annotations

from pathlib import Path

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
