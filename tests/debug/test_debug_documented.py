"""Claims of docs/debug.md and docs/rules.md that had no test: JC505 in the import report,
the pytest plugin's options and its summary of retraces, and ``@watch`` as a decorator."""

from __future__ import annotations

import json
import os
import textwrap
import tomllib
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from jitcheck.debug import RetraceError, RetraceWarning, watch

from .conftest import PACKAGES, ROOT, RunPython


def test_import_report_names_a_module_that_fails_to_import_and_goes_on(run_python: RunPython, tmp_path: Path) -> None:
    package = tmp_path / "half_broken_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "broken.py").write_text('"""Needs a dependency that is not installed."""\n\nimport not_installed_dependency_jc505  # noqa: F401\n')
    (package / "fine.py").write_text("VALUE = 1\n")
    done = run_python("-m", "jitcheck.debug", "report", "--json", "half_broken_pkg", env={"PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])})
    assert done.returncode == 1, done.stderr
    modules = {m["module"]: m for m in json.loads(done.stdout)["modules"]}
    assert set(modules) == {"half_broken_pkg", "half_broken_pkg.broken", "half_broken_pkg.fine"}
    (finding,) = modules["half_broken_pkg.broken"]["findings"]
    assert finding["code"] == "JC505"
    assert finding["message"] == "the module failed to import: ModuleNotFoundError: No module named 'not_installed_dependency_jc505'"
    assert finding["path"].endswith("half_broken_pkg/broken.py") and finding["line"] == 3
    assert modules["half_broken_pkg.fine"]["imported"] and modules["half_broken_pkg.fine"]["findings"] == []
    text = run_python("-m", "jitcheck.debug", "report", "half_broken_pkg", env={"PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])})
    assert text.returncode == 1
    assert "broken.py:3:1: JC505 the module failed to import: ModuleNotFoundError" in text.stdout


# --- the pytest plugin ------------------------------------------------------------------------

MLP_TEST = """
import jax.numpy as jnp
import pytest

import debug_clean_pkg


def call(batch):
    w1, w2 = jnp.ones((4, 16)), jnp.ones((16, 2))
    return debug_clean_pkg.MLP.jit_call({"x": jnp.ones((batch, 4)), "w1": w1, "w2": w2})


def test_mlp_on_three_batch_sizes():
    for batch in (8, 12, 16):
        call(batch)
"""

RAISING_TEST = """
import jax.numpy as jnp
import pytest

import debug_clean_pkg
from jitcheck.debug import RetraceError


def test_second_batch_size_raises():
    w1, w2 = jnp.ones((4, 16)), jnp.ones((16, 2))
    debug_clean_pkg.MLP.jit_call({"x": jnp.ones((5, 4)), "w1": w1, "w2": w2})
    with pytest.raises(RetraceError, match="JC503"):
        debug_clean_pkg.MLP.jit_call({"x": jnp.ones((6, 4)), "w1": w1, "w2": w2})
"""


def run_pytest(run_python: RunPython, tmp_path: Path, test: str, ini: str, *options: str) -> str:
    """pytest in a fresh interpreter on one test file, the plugin found by its entry point; returns its output."""
    entry_points = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["pytest11"]
    dist = tmp_path / "site" / "jitcheck-0.1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: jitcheck\nVersion: 0.1.0\n")
    (dist / "entry_points.txt").write_text("[pytest11]\n" + "".join(f"{k} = {v}\n" for k, v in entry_points.items()))
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "pytest.ini").write_text("[pytest]\n" + ini)
    (tests / "test_it.py").write_text(textwrap.dedent(test))
    done = run_python(
        "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist", "-c", str(tests / "pytest.ini"), str(tests), *options,
        env={"PYTHONPATH": os.pathsep.join(map(str, [tmp_path / "site", PACKAGES, ROOT]))},
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_pytest_plugin_ini_packages_max_traces_and_the_summary_of_retraces(run_python: RunPython, tmp_path: Path) -> None:
    out = run_pytest(run_python, tmp_path, MLP_TEST, "jitcheck_packages = debug_clean_pkg\n", "--jitcheck-max-traces=2")
    assert "jitcheck debug mode: on (beartype on debug_clean_pkg; max traces 2, on retrace warn)" in out
    assert "1 passed" in out
    # three batch sizes, two allowed: one retrace, warned about and summarised at its line
    assert "RetraceWarning: JC503" in out
    assert "2 graphs traced as built, 1 retrace reported" in out  # the package's two graphs with values
    summary = out.split("jitcheck debug mode ==", 1)[1]
    assert "test_it.py:10:" in summary and "JC503" in summary
    assert "traced 3 times (limit 2): `values['x']` changed shape from (12, 4) to (16, 4)" in summary
    assert "help: keep `values['x']`'s shape fixed" in summary


def test_pytest_plugin_on_retrace_raise(run_python: RunPython, tmp_path: Path) -> None:
    out = run_pytest(run_python, tmp_path, RAISING_TEST, "jitcheck_packages = debug_clean_pkg\n", "--jitcheck-on-retrace=raise")
    assert "max traces 1, on retrace raise" in out
    assert "1 passed" in out
    assert "1 retrace reported" in out


# --- @watch as a decorator ---------------------------------------------------------------------


@pytest.mark.usefixtures("fresh_tracker")
def test_watch_as_a_bare_decorator_counts_traces() -> None:
    @watch
    def double(x: jax.Array) -> jax.Array:
        return x * 2

    with warnings.catch_warnings():
        warnings.simplefilter("error", RetraceWarning)
        assert float(double(jnp.float32(2.0))) == 4.0
        double(jnp.float32(3.0))  # same key: no trace, no warning
        assert double.traces == 1
        assert double.__name__ == "double"
        with pytest.raises(RetraceWarning, match="JC503"):
            double(jnp.ones(3))  # a new shape: traced again, beyond max_traces=1


@pytest.mark.usefixtures("fresh_tracker")
def test_watch_as_a_decorator_with_options_passes_jit_options_through() -> None:
    @watch(max_traces=2, on_retrace="raise", static_argnums=1)
    def power(x: jax.Array, exponent: int) -> jax.Array:
        return x**exponent

    assert float(power(jnp.float32(2.0), 3)) == 8.0
    assert float(power(jnp.float32(2.0), 2)) == 4.0  # a second key: allowed
    assert power.traces == 2
    with pytest.raises(RetraceError) as caught:
        power(jnp.float32(2.0), 4)
    (change,) = caught.value.report.changes
    assert (change.aspect, change.before, change.after) == ("static value", "2", "4")
