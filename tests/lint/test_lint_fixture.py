"""The static pass on fixtures/lint_project: the exact findings, and the fixed files."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from jitcheck.lint.cli import main

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "fixtures" / "lint_project"
EXPECTED = Path(__file__).resolve().parent / "expected"

FINDINGS = {
    ("data.py", 46, "JC101"),
    ("data.py", 57, "JC202"),
    ("data.py", 60, "JC201"),
    ("data.py", 65, "JC104"),
    ("data.py", 70, "JC203"),  # TrainConfig, a mutable dataclass of config.py, found through the project index
    ("data.py", 78, "JC102"),
    ("gradients.py", 36, "JC102"),
    ("gradients.py", 43, "JC701"),
    ("gradients.py", 48, "JC701"),
    ("gradients.py", 93, "JC101"),
    ("gradients.py", 101, "JC202"),
    ("gradients.py", 106, "JC702"),
    ("losses.py", 30, "JC102"),
    ("losses.py", 33, "JC102"),
    ("losses.py", 46, "JC202"),
    ("model.py", 70, "JC203"),
    ("model.py", 71, "JC204"),
    ("model.py", 90, "JC101"),
    ("train.py", 34, "JC104"),
    ("train.py", 46, "JC105"),
    ("train.py", 65, "JC105"),
    ("train.py", 76, "JC201"),
    ("train.py", 92, "JC103"),
    ("train.py", 97, "JC104"),
    ("train.py", 98, "JC202"),
}
"""Every true positive in the fixture; every other line there is a look-alike that must stay quiet."""

DRIVER_GUESSES = {("gradients.py", 54, "JC701"), ("train.py", 58, "JC104")}
"""Public drivers that build their wrapper once and loop over it (``good_gradients``, ``fit``): one compile per call,
a bug only if users call them again, which their callers would show. ``--preview`` reports them on that guess."""

AFTER_FIX = {
    ("data.py", 45, "JC101"),
    ("data.py", 60, "JC202"),
    ("data.py", 63, "JC201"),
    ("data.py", 73, "JC203"),  # imported: no fix across files
    *((path, line, code) for path, line, code in FINDINGS if path == "gradients.py"),  # none fixed safely
    ("losses.py", 45, "JC202"),
    ("model.py", 70, "JC203"),
    ("model.py", 71, "JC204"),
    ("model.py", 90, "JC101"),
    ("train.py", 51, "JC105"),
    ("train.py", 70, "JC105"),
    ("train.py", 81, "JC201"),
    ("train.py", 107, "JC202"),
    ("gradients.py", 54, "JC701"),
    ("train.py", 63, "JC104"),  # the guesses: no fix (the lambda reads `lr`)
}
"""What --fix leaves (the safe fixes added imports, so later lines moved down)."""
AFTER_UNSAFE_FIX = AFTER_FIX - {
    ("data.py", 60, "JC202"), ("gradients.py", 101, "JC202"), ("losses.py", 45, "JC202"), ("model.py", 70, "JC203")
}


def findings(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> set[tuple[str, int, str]]:
    capsys.readouterr()
    # --preview: every true positive of the fixture, also those whose repetition is assumed (public API).
    status = main([str(path), "--output-format", "json", "--no-cache", "--jobs", "1", "--preview", *extra])
    rows = json.loads(capsys.readouterr().out)
    assert status == (1 if rows else 0)
    return {(Path(r["filename"]).resolve().relative_to(path.resolve()).as_posix(), r["location"]["row"], r["code"]) for r in rows}


def test_exact_findings(capsys: pytest.CaptureFixture[str]) -> None:
    found = findings(PROJECT, capsys)
    assert found == FINDINGS | DRIVER_GUESSES
    assert {code for _, _, code in found} >= {
        "JC101", "JC102", "JC103", "JC104", "JC105", "JC201", "JC202", "JC203", "JC204", "JC701", "JC702"
    }


SHOWN = {
    ("data.py", 46, "JC101"), ("data.py", 57, "JC202"), ("data.py", 60, "JC201"), ("data.py", 65, "JC104"),
    ("data.py", 70, "JC203"), ("data.py", 78, "JC102"), ("gradients.py", 36, "JC102"), ("gradients.py", 101, "JC202"),
    ("losses.py", 30, "JC102"), ("losses.py", 33, "JC102"), ("losses.py", 46, "JC202"), ("model.py", 70, "JC203"),
    ("model.py", 71, "JC204"), ("train.py", 34, "JC104"), ("train.py", 76, "JC201"), ("train.py", 98, "JC202"),
    # public steps (`train_step`): a training loop calls them once per step, by the convention the standard names
    ("gradients.py", 93, "JC101"), ("train.py", 46, "JC105"),
}
"""The default selection: the findings whose repetition and sameness the code shows (unhashable values need
neither), and those in public steps. The others rest on public functions assumed to be called again (``--preview``)."""


def test_the_default_selection_reports_only_what_the_code_shows(capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    main([str(PROJECT), "--output-format", "json", "--no-cache", "--jobs", "1"])
    rows = json.loads(capsys.readouterr().out)
    assert {(Path(r["filename"]).resolve().relative_to(PROJECT.resolve()).as_posix(), r["location"]["row"], r["code"])
            for r in rows} == SHOWN
    assert all(r["confidence"] == "high" for r in rows)
    assert SHOWN < FINDINGS


def test_gitignored_and_per_file_ignored_files_are_quiet(capsys: pytest.CaptureFixture[str]) -> None:
    found = findings(PROJECT, capsys, "--no-respect-gitignore")
    assert found - FINDINGS - DRIVER_GUESSES == {("generated/ignored.py", 10, "JC104")}
    script = PROJECT / "scripts" / "demo.py"
    capsys.readouterr()
    assert main([str(script), "--no-cache", "--select", "JC104", "-q"]) == 0  # per-file-ignores: scripts/* = JC104


def _fixed_copy(tmp_path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> Path:
    target = tmp_path / "lint_project"
    shutil.copytree(PROJECT, target)
    capsys.readouterr()
    main([str(target), "--no-cache", "-q", "--jobs", "1", "--preview", *flags])
    return target


@pytest.mark.parametrize(("flags", "expected_dir", "remaining"), [
    (("--fix",), "fix", AFTER_FIX),
    (("--fix", "--unsafe-fixes"), "unsafe", AFTER_UNSAFE_FIX),
])
def test_fix_matches_expected_and_rechecks_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: tuple[str, ...], expected_dir: str, remaining: set[tuple[str, int, str]]
) -> None:
    fixed = _fixed_copy(tmp_path, capsys, *flags)
    expected = EXPECTED / expected_dir
    for original in PROJECT.rglob("*.py"):
        relative = original.relative_to(PROJECT)
        want = expected / relative.name if (expected / relative.name).exists() else original
        assert (fixed / relative).read_text() == want.read_text(), f"{relative} differs from {want}"
    assert {p.name for p in expected.iterdir()} <= {p.name for p in PROJECT.rglob("*.py")}
    # The fixed tree re-checks without the fixed findings, and a second fix changes nothing.
    assert findings(fixed, capsys) == remaining
    before = {p: p.read_text() for p in fixed.rglob("*.py")}
    capsys.readouterr()
    main([str(fixed), "--no-cache", "--preview", *flags])
    assert {p: p.read_text() for p in fixed.rglob("*.py")} == before


def test_diff_prints_the_fixes_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "lint_project"
    shutil.copytree(PROJECT, target)
    capsys.readouterr()
    status = main([str(target), "--diff", "--no-cache", "--preview"])
    out = capsys.readouterr()
    assert status == 1
    assert "+from jitcheck import ValuePartial" in out.out
    assert "-        params = jax.jit(lambda p, g: sgd_update(p, g, 0.1))(params, grads)" in out.out
    assert "+        params = jax.jit(_train_lambda)(params, grads)" in out.out
    assert "Would fix 7 findings in 3 files." in out.err
    for original in PROJECT.rglob("*.py"):
        assert (target / original.relative_to(PROJECT)).read_text() == original.read_text()


EXAMPLE = ROOT / "fixtures" / "example_project"


def marked_bugs(folder: Path) -> set[tuple[str, int, str]]:
    """(file, line, code) of every ``# BUG (JCxxx)`` comment: its own line, or the line after a comment line."""
    marked = set()
    for path in sorted(folder.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            match = re.search(r"# BUG \((JC\d{3})\)", line)
            if match:
                own_line = line.lstrip().startswith("#")
                marked.add((path.relative_to(folder).as_posix(), number + 1 if own_line else number, match.group(1)))
    return marked


def test_example_project_reports_every_marked_bug_and_the_fixed_one_is_clean(capsys: pytest.CaptureFixture[str]) -> None:
    buggy = EXAMPLE / "example_buggy"
    expected = marked_bugs(buggy)
    # A partial inside jax.value_and_grad, and a StatefulFunction of a bound method, are among them.
    assert {("train.py", 43, "JC102"), ("step.py", 35, "JC101")} <= expected
    assert findings(buggy, capsys) == expected
    assert findings(EXAMPLE / "example_fixed", capsys) == set()
