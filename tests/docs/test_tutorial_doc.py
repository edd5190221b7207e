"""docs/tutorial.md: every command runs as written, and prints the lines the page shows (static pass and mypy)."""

from __future__ import annotations

from pathlib import Path

from .console_blocks import failures
from .tutorial_commands import COMMANDS, ROOT, group


def test_the_tutorial_has_commands_for_every_layer() -> None:
    layers = {layer: group(layer) for layer in ("static", "mypy", "debug", "compiles")}
    assert all(layers.values()), {layer: len(found) for layer, found in layers.items()}
    # every command of the page is in exactly one group, so every one is run by a test
    assert sum(len(found) for found in layers.values()) == len(COMMANDS)
    assert any(c.line.startswith("jitcheck ") for c in layers["static"])


def test_static_pass_commands_print_what_the_page_shows(subprocess_env: dict[str, str], tmp_path: Path) -> None:
    # In page order: the fix and the grep use the scratch copy the earlier command made.
    assert not (problems := failures(group("static"), ROOT, subprocess_env, tmp_path)), "\n\n".join(problems)


def test_mypy_commands_print_what_the_page_shows(subprocess_env: dict[str, str], tmp_path: Path) -> None:
    assert not (problems := failures(group("mypy"), ROOT, subprocess_env, tmp_path)), "\n\n".join(problems)
