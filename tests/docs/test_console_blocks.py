"""The console-block checker compares counts and text, never how fast the machine was."""

from __future__ import annotations

from pathlib import Path

from .console_blocks import Command, missing_lines

SHOWN = Command("python count.py", ("project  traces  compiles  wall s", "buggy        31        31    3.87", "fixed         2         1    0.21"))


def test_a_slower_machine_with_wider_timings_still_matches() -> None:
    printed = "project  traces  compiles  wall s\nbuggy        31        31  127.69\nfixed         2         1   10.02\n"
    assert missing_lines(SHOWN, printed, Path("/nowhere")) == []


def test_a_different_count_is_still_caught() -> None:
    printed = "project  traces  compiles  wall s\nbuggy        31        30    3.87\nfixed         2         1    0.21\n"
    assert missing_lines(SHOWN, printed, Path("/nowhere")) == ["buggy        31        31    3.87"]


def test_lines_out_of_order_are_caught() -> None:
    printed = "project  traces  compiles  wall s\nfixed         2         1    0.21\nbuggy        31        31    3.87\n"
    assert missing_lines(SHOWN, printed, Path("/nowhere")) == ["fixed         2         1    0.21"]
