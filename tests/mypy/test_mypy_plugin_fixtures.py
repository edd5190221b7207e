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
    expected = marked_keys(files)
    unexpected, missing = reported - expected, expected - reported
    assert not unexpected and not missing, (
        f"reported but not marked:\n{describe(report, unexpected)}\nmarked but not reported:\n{describe(report, missing)}"
    )


def test_every_jitcheck_error_code_has_a_fixture() -> None:
    codes = {code for _, _, code in marked_keys(sorted((FIXTURES / "mypy_cases").glob("*.py")))}
    assert {"jitcheck-label", "jitcheck-place", "jitcheck-body", "jitcheck-setting"} <= codes
