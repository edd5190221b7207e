"""docs/rules.md is generated from the rule catalogue and must be up to date."""

from __future__ import annotations

from pathlib import Path

from jitcheck import rules
from jitcheck.lint import rules_doc


def test_committed_rules_doc_is_current(repo_root: Path) -> None:
    committed = (repo_root / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == rules_doc.render(), "docs/rules.md is out of date: run `python -m jitcheck.lint.rules_doc`"


def test_every_rule_has_a_page_with_its_catalogue_text() -> None:
    text = rules_doc.render()
    for rule in rules.RULES:
        page = rules_doc.rule_page(rule)
        assert page in text
        assert f"## {rule.code} `{rule.name}`: {rule.title}" in page
        assert rule.example in page and rule.fixed in page
        assert " ".join(rule.why.split()) in page


def test_check_mode_reports_a_stale_file(tmp_path: Path) -> None:
    stale = tmp_path / "rules.md"
    stale.write_text("# Rules\n")
    assert rules_doc.main(["--check", "--output", str(stale)]) == 1
    assert rules_doc.main(["--output", str(stale)]) == 0
    assert rules_doc.main(["--check", "--output", str(stale)]) == 0
