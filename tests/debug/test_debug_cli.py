"""The debug layer's command lines in fresh interpreters: the report, the runner, the startup hook, the pytest plugin."""

from __future__ import annotations

import json
import os
import textwrap
import tomllib
from pathlib import Path

from tests.debug.conftest import PACKAGES, ROOT, RunPython


def test_report_json_lists_every_place_of_every_graph_traced_at_import(run_python: RunPython) -> None:
    done = run_python("-m", "jitcheck.debug", "report", "--json", "fixtures/debug_packages/debug_clean_pkg")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["beartype_packages"] == ["debug_clean_pkg"]
    modules = {m["module"]: m for m in report["modules"]}
    assert list(modules) == ["debug_clean_pkg", "debug_clean_pkg.layers", "debug_clean_pkg.model", "debug_clean_pkg.pipeline"]
    assert all(m["imported"] and m["findings"] == [] for m in modules.values())
    (mlp,) = modules["debug_clean_pkg.model"]["graphs"]
    assert (mlp["name"], mlp["kind"], mlp["nodes"]) == ("MLP_AT_SHAPES", "traced", 4)
    assert mlp["location"]["line"] == 41 and mlp["location"]["function"] == "<module>"
    assert [(p["place"], p["role"], p["shape"], p["dtype"]) for p in mlp["places"]] == [
        ("'x'", "input", [8, 4], "float32"),
        ("'w1'", "input", [4, 16], "float32"),
        ("'w2'", "input", [16, 2], "float32"),
        ("'h'", "computed", [8, 16], "float32"),
        ("'a'", "computed", [8, 16], "float32"),
        ("'y'", "computed", [8, 2], "float32"),
        ("'z'", "computed", [8, 2], "float32"),
    ]
    graphs = {g["name"]: g for g in modules["debug_clean_pkg.pipeline"]["graphs"]}
    assert graphs["NORMALIZE_AT_VALUES"]["kind"] == "traced"
    assert graphs["POSTPROCESS"]["kind"] == "checked"  # built with no values: checked, nothing to trace at
    assert report["summary"] == {
        "modules": 4, "graphs_traced": 2, "graphs_checked_only": 1, "graphs_failed": 0, "findings": 0, "retraces": 0,
    }


def test_report_text_shows_the_table_and_each_finding_at_its_line(run_python: RunPython) -> None:
    done = run_python(
        "-m", "jitcheck.debug", "report",
        "fixtures/debug_packages/debug_clean_pkg", "debug_shape_bug_pkg", "debug_mutable_label_pkg",
    )
    assert done.returncode == 1, done.stderr
    out = done.stdout
    assert "debug_clean_pkg.model  fixtures/debug_packages/debug_clean_pkg/model.py" in out
    assert "  MLP_AT_SHAPES: JitGraph of 4 nodes, traced at model.py:41:60" in out
    assert "    'w2'   input     (16, 2)  float32" in out
    assert "    'stats'['mean']  input     (3,)     float32" in out
    assert (
        "fixtures/debug_packages/debug_shape_bug_pkg/model.py:31:63: JC502 [node project, body] node 'project' "
        "failed to trace at input shapes {'h': float32[8, 16], 'w_out': float32[8, 2]}" in out
    )
    assert "fixtures/debug_packages/debug_mutable_label_pkg/labels.py:31:10: JC504 beartype refused a value" in out
    assert "help: JC203: declare `StepLabel` with `@dataclass(frozen=True)`" in out
    assert out.rstrip().endswith("8 modules, 2 graphs traced, 2 findings")


def test_report_usage_errors(run_python: RunPython) -> None:
    done = run_python("-m", "jitcheck.debug", "report", "no_such_module_anywhere")
    assert done.returncode == 2
    assert "no module named 'no_such_module_anywhere'" in done.stderr


def test_runner_runs_a_module_with_its_arguments_and_reports(run_python: RunPython, tmp_path: Path) -> None:
    (tmp_path / "entry.py").write_text(
        textwrap.dedent(
            """
            import json, sys
            import debug_clean_pkg
            from jitcheck.debug import is_enabled
            print(json.dumps({"argv": sys.argv[1:], "debug": is_enabled()}))
            """
        )
    )
    done = run_python(
        "-m", "jitcheck.debug", "run", "--packages", "debug_clean_pkg", "--report", "-m", "entry", "--flag", "x",
        env={"PYTHONPATH": os.pathsep.join(map(str, [tmp_path, PACKAGES, ROOT]))},
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"argv": ["--flag", "x"], "debug": True}
    assert "beartype on debug_clean_pkg" in done.stderr
    assert "MLP_AT_SHAPES: JitGraph of 4 nodes, traced at model.py:41:60" in done.stderr


def test_startup_hook_makes_the_environment_switch_work_for_plain_python(run_python: RunPython, tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    installed = run_python("-m", "jitcheck.debug", "startup-hook", "install", "--site-dir", str(site))
    assert installed.returncode == 0, installed.stderr
    (pth,) = site.glob("*.pth")
    code = (
        f"import site; site.addsitedir({str(site)!r})\n"
        "import json, sys\n"
        "before = 'beartype.claw' in sys.modules\n"
        "try:\n"
        "    import debug_mutable_label_pkg\n"
        "    outcome = 'imported'\n"
        "except Exception as error:\n"
        "    outcome = type(error).__name__\n"
        "print(json.dumps([before, outcome]))\n"
    )
    on = run_python("-c", code, env={"JITCHECK_DEBUG": "debug_mutable_label_pkg"})
    assert on.returncode == 0, on.stderr
    assert json.loads(on.stdout.splitlines()[-1]) == [True, "BeartypeCallHintParamViolation"]
    off = run_python("-c", code)
    assert json.loads(off.stdout.splitlines()[-1]) == [False, "imported"]
    removed = run_python("-m", "jitcheck.debug", "startup-hook", "uninstall", "--site-dir", str(site))
    assert removed.returncode == 0 and not pth.exists()


def test_pytest_plugin_is_found_by_its_entry_point(run_python: RunPython, tmp_path: Path) -> None:
    """A distribution declaring pyproject's pytest11 entry point makes pytest load the plugin by itself."""
    entry_points = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["pytest11"]
    dist = tmp_path / "site" / "jitcheck-0.1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: jitcheck\nVersion: 0.1.0\n")
    (dist / "entry_points.txt").write_text("[pytest11]\n" + "".join(f"{k} = {v}\n" for k, v in entry_points.items()))
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "pytest.ini").write_text("[pytest]\n")
    (tests / "conftest.py").write_text("import debug_clean_pkg  # a conftest importing the package: the hook must come first\n")
    (tests / "test_inner.py").write_text(
        textwrap.dedent(
            """
            import pytest
            from jitcheck.core import TraceFailed


            def test_shape_bug_fails_at_import():
                with pytest.raises(TraceFailed) as info:
                    import debug_shape_bug_pkg  # noqa: F401
                assert info.value.node == "project"


            def test_beartype_checked_the_package_the_conftest_imported():
                from beartype.roar import BeartypeCallHintParamViolation
                import debug_clean_pkg.model as model
                node = model.MLP.graph.nodes[model.Step("hidden")]
                with pytest.raises(BeartypeCallHintParamViolation):
                    model.entry(["an", "unhashable", "label"], node)
            """
        )
    )
    done = run_python(
        "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(tests / "pytest.ini"), str(tests),
        "--jitcheck-packages=debug_shape_bug_pkg,debug_clean_pkg",
        env={"PYTHONPATH": os.pathsep.join(map(str, [tmp_path / "site", PACKAGES, ROOT]))},
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout
    assert "jitcheck debug mode" in done.stdout
    assert "2 graphs traced as built, 0 retraces reported" in done.stdout


def test_report_of_one_module_of_a_package(run_python: RunPython) -> None:
    """A module inside a package: its parent is imported (and watched) too, but only the target is reported."""
    done = run_python("-m", "jitcheck.debug", "report", "--json", "fixtures/debug_packages/debug_clean_pkg/model.py")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    (module,) = report["modules"]
    assert module["module"] == "debug_clean_pkg.model"
    assert [g["name"] for g in module["graphs"]] == ["MLP_AT_SHAPES"]


def test_report_and_watch_work_with_the_environment_switch_set(run_python: RunPython) -> None:
    # The debug layer's own modules import the core; the core's JITCHECK_DEBUG switch must
    # not re-enter them half-loaded (it used to fail with a circular import).
    done = run_python("-m", "jitcheck.debug", "report", "debug_clean_pkg", env={"JITCHECK_DEBUG": "debug_clean_pkg"})
    assert done.returncode == 0, done.stderr
    assert "1 graph traced" in done.stdout or "graphs traced" in done.stdout
    code = "from jitcheck.debug import watch, is_enabled; assert is_enabled(); import debug_clean_pkg"
    done = run_python("-c", code, env={"JITCHECK_DEBUG": "debug_clean_pkg"})
    assert done.returncode == 0, done.stderr


def test_runner_runs_code_as_python_c_does(run_python: RunPython) -> None:
    done = run_python("-m", "jitcheck.debug", "run", "-c", "import json, sys; from jitcheck.debug import is_enabled; print(json.dumps([sys.argv, is_enabled()]))", "a", "-b")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [["-c", "a", "-b"], True]
    missing = run_python("-m", "jitcheck.debug", "run", "-c")
    assert missing.returncode == 2 and "-c needs the code to run" in missing.stderr
