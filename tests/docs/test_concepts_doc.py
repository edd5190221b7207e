"""docs/concepts.md runs as written, and the output it shows is what it prints."""

from __future__ import annotations

from pathlib import Path

from .doc_blocks import blocks, run_python_blocks

PAGE = Path(__file__).resolve().parents[2] / "docs" / "concepts.md"


def test_concepts_examples_run_and_print_what_the_page_shows() -> None:
    printed = run_python_blocks(PAGE)
    shown = blocks(PAGE, "text")
    assert len(shown) == 3
    for block in shown:
        for line in block.strip().splitlines():
            assert line in printed, line
