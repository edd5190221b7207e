"""``mypy --strict`` with the plugin on over ``fixtures/``: clean except the lines marked as findings.

Every fixture line that is an intentional finding ends with ``# mypy-expect: <code>[,
<code>...]``, listing every error code mypy reports there; the set of (file, line,
code) mypy reports must equal the set of markers.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from tests.mypy.harness import ROOT, Report, marked_keys, run_mypy

FIXTURES = ROOT / "fixtures"

UNMARKED_FINDINGS = [
    ("fixtures/example_project/example_buggy/model.py", "logits = jax.jit(self.apply)(params, x)", "jitcheck-body"),
    ("fixtures/lint_project/losses.py", "loss: Array = scaled_loss(pred, target, [0.5, 1.0])", "jitcheck-setting"),
    ("fixtures/lint_project/model.py", "y: Array = jax.jit(self.apply)(x)", "jitcheck-body"),
    ("fixtures/lint_project/model.py", "y: Array = jax.jit(self.update)(x)  # noqa", "jitcheck-body"),
]
"""The plugin's findings on fixtures of the other layers, by the text of their line.

These files are the static pass's and the debug layer's samples: their expected codemod
outputs and documents copy every comment, so they carry no ``mypy-expect`` markers.
Their bugs are real, and the plugin's jax.jit call-site checks find them too.
"""


def unmarked_keys() -> set[tuple[str, int, str]]:
    """(file, line, code) of :data:`UNMARKED_FINDINGS`, each line text found exactly once."""
    keys = set()
    for path, text, code in UNMARKED_FINDINGS:
        lines = [i for i, line in enumerate((ROOT / path).read_text().splitlines(), start=1) if line.strip() == text]
        assert len(lines) == 1, f"{path}: {text!r} found on lines {lines}, not once"
        keys.add((path, lines[0], code))
    return keys


def checked_fixtures() -> list[Path]:
    """The fixture files mypy checks: every .py under fixtures/, less [tool.mypy] exclude."""
    excluded = tomllib.loads((ROOT / "pyproject.toml").read_text()).get("tool", {}).get("mypy", {}).get("exclude", [])
    patterns = [excluded] if isinstance(excluded, str) else list(excluded)
    files = sorted(FIXTURES.rglob("*.py"))
    return [f for f in files if not any(re.search(p, f.relative_to(ROOT).as_posix()) for p in patterns)]


def describe(report: Report, keys: set[tuple[str, int, str]]) -> str:
    lines = []
    for path, line, code in sorted(keys):
        texts = [m.message for m in report.errors() if (m.path, m.line, m.code) == (path, line, code)]
        lines.append(f"  {path}:{line} [{code}] {texts[0] if texts else ''}")
    return "\n".join(lines)


def test_fixtures_draw_exactly_their_marked_errors(mypy_cache: Path) -> None:
    files = checked_fixtures()
    assert files, "no fixtures to check"
    report = run_mypy(["--strict", "--config-file", "pyproject.toml", "--cache-dir", str(mypy_cache), "fixtures"])
    assert report.status != 2, (
        "mypy stopped (a blocking error such as a syntax error). Every .py under fixtures/ must "
        "parse; keep unparsable samples under another extension or in [tool.mypy] exclude.\n"
        + report.stdout
        + report.stderr
    )
    reported = report.error_keys()
    expected = marked_keys(files) | unmarked_keys()
    unexpected, missing = reported - expected, expected - reported
    assert not unexpected and not missing, (
        f"reported but not marked:\n{describe(report, unexpected)}\nmarked but not reported:\n{describe(report, missing)}"
    )


def test_every_jitcheck_error_code_has_a_fixture() -> None:
    codes = {code for _, _, code in marked_keys(sorted((FIXTURES / "mypy_cases").glob("*.py")))}
    assert {"jitcheck-label", "jitcheck-place", "jitcheck-body", "jitcheck-setting"} <= codes
