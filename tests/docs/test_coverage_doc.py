"""docs/coverage.md names only tests that exist, and has a section for every page of the documentation."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "docs" / "coverage.md"
REFERENCE = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


@functools.cache
def defined_tests(path: Path) -> set[str]:
    """The names of the test functions defined in a test file (module level or in classes)."""
    tree = ast.parse(path.read_text(), str(path))
    return {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def test_every_test_named_in_the_coverage_table_exists() -> None:
    references = REFERENCE.findall(TABLE.read_text())
    assert len(references) > 100
    missing = [f"{path}::{name}" for path, name in references if not (ROOT / path).is_file() or name not in defined_tests(ROOT / path)]
    assert missing == [], "docs/coverage.md names tests that do not exist:\n" + "\n".join(missing)


def test_every_page_of_the_documentation_has_a_section() -> None:
    sections = set(re.findall(r"^## (\S+)$", TABLE.read_text(), re.MULTILINE))
    pages = {f"docs/{page.name}" for page in (ROOT / "docs").glob("*.md") if page.name != "coverage.md"} | {"README.md"}
    assert pages - sections == set(), "pages with no section in docs/coverage.md"


RULE_HEADING = re.compile(r"^## (JC\d{3})\b", re.MULTILINE)
CODE_OR_RANGE = re.compile(r"JC(\d{3})(?:\s*-\s*JC(\d{3}))?")


def codes_with_rows(table: str) -> set[str]:
    """Every rule code a row of the table names, ranges such as "JC601 - JC604" expanded."""
    codes = set()
    for row in (line for line in table.splitlines() if line.startswith("|")):
        for first, last in CODE_OR_RANGE.findall(row):
            codes.update(f"JC{number:03d}" for number in range(int(first), int(last or first) + 1))
    return codes


def test_every_rule_of_the_rules_page_has_a_row() -> None:
    rules = set(RULE_HEADING.findall((ROOT / "docs" / "rules.md").read_text()))
    assert len(rules) > 30
    assert rules - codes_with_rows(TABLE.read_text()) == set(), "rules documented in docs/rules.md with no row in docs/coverage.md"


PENDING_PHRASES = re.compile(
    r"fails? until|until\b[^|.\n]{0,60}\bland(s|ed)?\b|\(branch [\w-]+\)|\bnot yet\b|\bboth fail\b|\bto land\b|\bonce\b[^|.\n]{0,40}\blands\b",
    re.IGNORECASE,
)
PENDING_NAME = re.compile(r"until|waits_for|not_yet|todo|fixme|pending|to_land|lands|landed|_needs_(?!the_|a_|an_)")


def test_no_row_test_name_or_test_comment_speaks_of_unfinished_work() -> None:
    rows = [line for line in TABLE.read_text().splitlines() if line.startswith("|")]
    stale_rows = [row for row in rows if PENDING_PHRASES.search(row)]
    assert stale_rows == [], "rows of docs/coverage.md that speak of work still to land:\n" + "\n".join(stale_rows)
    stale_tests = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path == Path(__file__).resolve():
            continue  # this file spells the phrases it looks for
        text = path.read_text()
        stale_tests += [f"{path.relative_to(ROOT)}: {name}" for name in defined_tests(path) if name.startswith("test") and PENDING_NAME.search(name)]
        stale_tests += [f"{path.relative_to(ROOT)}: {match.group(0)!r}" for match in PENDING_PHRASES.finditer(text)]
    assert stale_tests == [], "tests whose name, docstring or comment speak of work still to land:\n" + "\n".join(stale_tests)
