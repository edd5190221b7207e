"""docs/tutorial.md: the debug-mode commands run as written and print the lines the page shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from .console_blocks import failures
from .tutorial_commands import ROOT, group


@pytest.mark.slow
def test_debug_commands_print_what_the_page_shows(subprocess_env: dict[str, str], tmp_path: Path) -> None:
    assert not (problems := failures(group("debug"), ROOT, subprocess_env, tmp_path)), "\n\n".join(problems)
