"""The static pass on downloaded JAX libraries: every finding judged in docs/real-world.md."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def judgments() -> dict[tuple[str, str], str]:
    """(location, code) -> verdict, from the table in docs/real-world.md."""
    table = {}
    for line in (ROOT / "docs" / "real-world.md").read_text().splitlines():
        match = re.match(r"\| ([\w.\-/]+(?:\.py|\.ipynb:cell \d+):\d+) \| (JC\d{3}) \| (true positive|false positive) \|", line)
        if match:
            table[(match.group(1), match.group(2))] = match.group(3)
    return table


@pytest.mark.slow
def test_every_real_world_finding_is_judged_and_precision_is_high(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import real_world
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    roots = real_world.download(tmp_path)
    found = set()
    for name, version in real_world.LIBRARIES:
        result = real_world.check_library(name, version, roots[name])
        assert result.files > 10 and result.lines > 5000
        for path, line, code, _ in result.findings:
            found.add((f"{name}-{version}/{path}", code, line))
    judged = judgments()
    located = {(f"{path}:{line}", code) for path, code, line in found}
    assert located == set(judged), "findings differ from the judged ones in docs/real-world.md"
    true = sum(1 for verdict in judged.values() if verdict == "true positive")
    assert len(judged) >= 10
    assert true / len(judged) >= 0.9
