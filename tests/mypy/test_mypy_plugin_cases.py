"""The plugin, run by real mypy over the case files in ``cases/`` (markers: see harness.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jitcheck import rules
from tests.mypy.conftest import MypyCacheFor
from tests.mypy.harness import ROOT, Report, mismatches, run_mypy

CASES_DIR = Path(__file__).parent / "cases"
CASES = sorted(CASES_DIR.glob("*.py"))
SELF_CHECKED = ("jitcheck", "mypy_plugin")


OPTIONS = ("--strict", "--show-column-numbers", "--config-file", "pyproject.toml")


@pytest.fixture(scope="module")
def report(mypy_cache_for: MypyCacheFor) -> Report:
    """One mypy --strict run, with the repository's config (plugin on), over the cases and jitcheck itself."""
    cases = CASES_DIR.relative_to(ROOT).as_posix()
    return run_mypy([*OPTIONS, "--cache-dir", str(mypy_cache_for(" ".join(OPTIONS))), cases, *SELF_CHECKED])


@pytest.mark.parametrize("case", CASES, ids=lambda path: path.stem)
def test_case_draws_exactly_its_marked_errors(report: Report, case: Path) -> None:
    problems = mismatches(case, report)
    assert not problems, "\n".join(problems)


def test_carets_are_checked(report: Report) -> None:
    ours = [m for m in report.errors() if (m.code or "").startswith("jitcheck-")]
    assert ours and all(m.column is not None for m in ours), "mypy printed no columns: mypy-caret markers would go unchecked"


def test_jitcheck_and_the_plugin_pass_strict_with_the_plugin_on(report: Report) -> None:
    own = [m for m in report.errors() if m.path.split("/")[0] in SELF_CHECKED]
    assert report.status in (0, 1), report.stderr
    assert not own, "\n".join(f"{m.path}:{m.line}: {m.message} [{m.code}]" for m in own)


def test_no_errors_outside_the_checked_files(report: Report) -> None:
    cases = {CASES_DIR.relative_to(ROOT).as_posix() + "/" + case.name for case in CASES}
    stray = [m for m in report.errors() if m.path not in cases and m.path.split("/")[0] not in SELF_CHECKED]
    assert not stray, stray


def test_every_rule_the_plugin_reports_is_exercised(report: Report) -> None:
    seen = {m.message.split(" ", 1)[0] for m in report.messages if m.severity == "note" and m.message.startswith("JC")}
    assert seen == set(rules.MYPY_CODES), f"not exercised: {sorted(set(rules.MYPY_CODES) - seen)}"


def test_each_error_is_short_with_its_rule_why_and_fix_on_notes(report: Report) -> None:
    """mypy's style: a short error line in double quotes; the rule code and why, then the fix, on notes."""
    for message in report.errors():
        if not (message.code and message.code.startswith("jitcheck-")):
            continue
        assert "`" not in message.message and len(message.message) <= 160, message
        notes = [m.message for m in report.messages if m.severity == "note" and (m.path, m.line) == (message.path, message.line)]
        codes = {n.split(" ", 1)[0] for n in notes if n.startswith("JC")}
        assert any(rules.rule(code).mypy_code == message.code for code in codes), (message, notes)
        assert any(n.startswith("Fix: ") for n in notes), (message, notes)
