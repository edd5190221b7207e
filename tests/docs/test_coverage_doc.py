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
