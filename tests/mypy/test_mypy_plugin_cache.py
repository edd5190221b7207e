"""Classes read back from mypy's cache are judged as when they were analysed.

mypy's cache drops the syntax the plugin reads (decorator keywords such as
``eq=False`` or attrs' ``hash=True``, ``__hash__ = None`` before inference, a pydantic
``model_config``); the plugin keeps it in class metadata. Each test runs mypy twice
on one cache (its own temporary folder), the using module edited the second time so
that only it is checked again: the errors must be the same. The runs use users'
form of the config, ``plugins = [...]``, alone and beside pydantic's own plugin in
either order.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.mypy.harness import ROOT, Report, mismatches, run_mypy

CASES = Path(__file__).parent / "cache_cases"
SKIP_JAX = """
[[tool.mypy.overrides]]
module = ["jax", "jax.*", "jaxlib.*", "numpy", "numpy.*", "beartype", "beartype.*", "libcst", "libcst.*"]
follow_imports = "skip"
"""


def _cold_then_warm(tmp_path: Path, plugins: list[str], extra: str = "", uses: tuple[str, ...] = ("cacheuse",)) -> tuple[Report, Report]:
    for case in CASES.glob("*.py"):
        shutil.copy(case, tmp_path / case.name)
    shutil.copytree(CASES / "site-packages", tmp_path / "site-packages")  # an installed package, for the plugin
    listed = ", ".join(f'"{p}"' for p in plugins)
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.mypy]\nstrict = true\nplugins = [{listed}]\nmypy_path = ["{ROOT.as_posix()}", "site-packages"]\n{extra}'
    )
    files = [tmp_path / f"{use}.py" for use in uses]
    args = ["--config-file", "pyproject.toml", "--cache-dir", str(tmp_path / "cache"), "-v", *(f.name for f in files)]

    cold = run_mypy(args, cwd=tmp_path)
    for use in files:
        assert not mismatches(use, cold), "\n".join(mismatches(use, cold))
        use.write_text(use.read_text() + "# edited: checked again, with the library from the cache\n")

    warm = run_mypy(args, cwd=tmp_path)
    for name in uses:
        library = name.replace("use", "lib")
        assert f"Metadata fresh for {library}" in warm.stderr, f"{library} was not read from the cache"
        assert f"Metadata fresh for {name}" not in warm.stderr
    for use in files:
        assert not mismatches(use, warm), "\n".join(mismatches(use, warm))
    assert warm.error_keys() == cold.error_keys()
    return cold, warm


def test_cached_classes_and_jitted_functions_are_judged_like_fresh_ones(tmp_path: Path) -> None:
    _cold_then_warm(tmp_path, ["mypy_plugin"], uses=("cacheuse", "jituse", "thirduse"))


@pytest.mark.parametrize("plugins", [["mypy_plugin", "pydantic.mypy"], ["pydantic.mypy", "mypy_plugin"]], ids=["ours-first", "pydantic-first"])
def test_pydantic_plugin_beside_ours_changes_no_verdict(tmp_path: Path, plugins: list[str]) -> None:
    # jax and numpy are skipped here (the classes judged do not need them): a quick run.
    cold, _ = _cold_then_warm(tmp_path, plugins, SKIP_JAX)
    assert any("pydantic" in line for line in cold.stderr.splitlines() if "plugin" in line.lower()), "pydantic's plugin was not loaded"
