"""Classes read back from mypy's cache are judged as when they were analysed.

mypy's cache drops the syntax the plugin reads (decorator keywords such as
``eq=False``, ``__hash__ = None`` before inference); the plugin keeps it in class
metadata. This test runs mypy twice on the same cache, the library module fresh
the second time, and also checks that users' form of the config,
``plugins = ["mypy_plugin"]``, loads the plugin.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.mypy.harness import ROOT, mismatches, run_mypy

CASES = Path(__file__).parent / "cache_cases"


def test_cached_classes_are_judged_like_fresh_ones(tmp_path: Path) -> None:
    for case in CASES.glob("*.py"):
        shutil.copy(case, tmp_path / case.name)
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.mypy]\nstrict = true\nplugins = ["mypy_plugin"]\nmypy_path = "{ROOT.as_posix()}"\n'
    )
    use = tmp_path / "cacheuse.py"
    args = ["--config-file", "pyproject.toml", "--cache-dir", str(tmp_path / "cache"), "-v", "cacheuse.py"]

    cold = run_mypy(args, cwd=tmp_path)
    assert not mismatches(use, cold), "\n".join(mismatches(use, cold))

    use.write_text(use.read_text() + "# edited: checked again, with cachelib from the cache\n")
    warm = run_mypy(args, cwd=tmp_path)
    assert "Metadata fresh for cachelib" in warm.stderr, "cachelib was not read from the cache"
    assert "Metadata fresh for cacheuse" not in warm.stderr
    assert not mismatches(use, warm), "\n".join(mismatches(use, warm))
    assert warm.error_keys() == cold.error_keys()
