"""docs/tutorial.md: the compile-count table is what jax really compiles (counts compared, timings not)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .console_blocks import failures
from .tutorial_commands import ROOT, group


@pytest.mark.slow
def test_compile_count_command_prints_what_the_page_shows(subprocess_env: dict[str, str], tmp_path: Path) -> None:
    assert not (problems := failures(group("compiles"), ROOT, subprocess_env, tmp_path)), "\n\n".join(problems)
