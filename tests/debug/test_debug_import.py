"""Debug mode at import, in fresh interpreters: the fixture packages with debug mode on and off.

Real beartype, real jax: a shape bug in a module-level graph fails the import with
TraceFailed naming the node; a non-frozen dataclass label fails it with a beartype
violation; the clean package imports with every place's shape recorded; with debug
mode off the bad packages import and nothing is traced (the trace counter stays 0).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.debug.conftest import RunPython, last_json

IMPORT_ALL = textwrap.dedent(
    """
    import json, sys
    PACKAGES = ["debug_shape_bug_pkg", "debug_mutable_label_pkg", "debug_clean_pkg"]
    if sys.argv[1] == "on":
        import jitcheck.debug
        jitcheck.debug.enable(packages=PACKAGES)
    outcome = {}
    for name in PACKAGES:
        try:
            __import__(name)
            outcome[name] = {"imported": True}
        except Exception as error:
            outcome[name] = {
                "imported": False,
                "type": type(error).__name__,
                "module": type(error).__module__,
                "node": getattr(error, "node", None),
                "codes": list(getattr(error, "codes", ())),
                "message": str(error),
                "notes": list(getattr(error, "__notes__", [])),
                "culprits": [repr(c) for c in getattr(error, "culprits", ())],
            }
    import jitcheck.core.traced as traced
    shapes = []
    if "jitcheck.debug.records" in sys.modules:
        from jitcheck.debug import graph_records
        for record in graph_records():
            if record.kind == "traced":
                shapes.append({
                    "module": record.module,
                    "line": record.location.line,
                    "places": {p.name: [p.role, list(p.shape) if p.shape is not None else None, p.dtype] for p in record.places},
                })
    print(json.dumps({
        "outcome": outcome,
        "trace_count": traced.trace_count,
        "shapes": shapes,
        "beartype_claw_imported": "beartype.claw" in sys.modules,
        "beartype_imported": "beartype" in sys.modules,
        "debug_imported": "jitcheck.debug" in sys.modules,
    }))
    """
)


def test_debug_on_fails_bad_packages_at_import_and_records_clean_shapes(run_python: RunPython, tmp_path: Path) -> None:
    script = tmp_path / "import_all.py"
    script.write_text(IMPORT_ALL)
    done = run_python(str(script), "on")
    assert done.returncode == 0, done.stderr
    found = last_json(done.stdout)
    outcome = found["outcome"]

    shape_bug = outcome["debug_shape_bug_pkg"]
    assert shape_bug["imported"] is False
    assert shape_bug["type"] == "TraceFailed"
    assert shape_bug["node"] == "project"
    assert shape_bug["codes"] == ["JC502"]
    assert "node 'project' failed to trace" in shape_bug["message"]
    assert "float32[8, 2]" in shape_bug["message"]  # the shape handed in is named
    assert any("debug mode traced this graph" in note for note in shape_bug["notes"])

    label = outcome["debug_mutable_label_pkg"]
    assert label["imported"] is False
    assert label["type"] == "BeartypeCallHintParamViolation"
    assert label["module"].startswith("beartype")
    assert "collections.abc.Hashable" in label["message"]
    assert label["culprits"] == ["StepLabel(name='double')"]

    assert outcome["debug_clean_pkg"] == {"imported": True}
    by_module = {s["module"]: s for s in found["shapes"]}
    assert set(by_module) == {"debug_clean_pkg.model", "debug_clean_pkg.pipeline"}
    mlp = by_module["debug_clean_pkg.model"]["places"]
    assert mlp == {
        "'x'": ["input", [8, 4], "float32"],
        "'w1'": ["input", [4, 16], "float32"],
        "'w2'": ["input", [16, 2], "float32"],
        "'h'": ["computed", [8, 16], "float32"],
        "'a'": ["computed", [8, 16], "float32"],
        "'y'": ["computed", [8, 2], "float32"],
        "'z'": ["computed", [8, 2], "float32"],
    }
    pipeline = by_module["debug_clean_pkg.pipeline"]["places"]
    assert pipeline["'batch'"] == ["input", [32, 3], "bfloat16"]
    assert pipeline["'stats'['mean']"] == ["input", [3], "float32"]
    assert pipeline["'clipped'"] == ["computed", [32, 3], "float32"]
    # Every graph with values was traced: the failed one and the two clean ones.
    assert found["trace_count"] == 3
    assert found["beartype_claw_imported"] is True


def test_debug_off_imports_bad_packages_without_tracing_or_beartype(run_python: RunPython, tmp_path: Path) -> None:
    script = tmp_path / "import_all.py"
    script.write_text(IMPORT_ALL)
    done = run_python(str(script), "off")
    assert done.returncode == 0, done.stderr
    found = last_json(done.stdout)
    assert found["outcome"] == {name: {"imported": True} for name in ("debug_shape_bug_pkg", "debug_mutable_label_pkg", "debug_clean_pkg")}
    assert found["trace_count"] == 0
    assert found["shapes"] == []
    assert found["beartype_claw_imported"] is False
    assert found["beartype_imported"] is False
    assert found["debug_imported"] is False


def test_importing_jitcheck_imports_neither_beartype_nor_jax(run_python: RunPython) -> None:
    done = run_python(
        "-c",
        "import sys, json, jitcheck, jitcheck.rules; "
        "print(json.dumps(sorted(m for m in ('beartype', 'beartype.claw', 'jax', 'jitcheck.debug', 'jitcheck.core') if m in sys.modules)))",
    )
    assert done.returncode == 0, done.stderr
    assert last_json(done.stdout) == []


def test_environment_switch_needs_the_hook_before_the_package(run_python: RunPython, tmp_path: Path) -> None:
    """JITCHECK_DEBUG=pkg with a plain `python`: jitcheck first runs inside the package's own import, too late for
    beartype; it refuses, naming the modules, rather than checking half a package. The runner gets there first."""
    late = run_python("-c", "import debug_clean_pkg", env={"JITCHECK_DEBUG": "debug_clean_pkg"})
    assert late.returncode != 0
    assert "HookTooLate" in late.stderr
    assert "these modules are already imported: debug_clean_pkg" in late.stderr
    assert "python -m jitcheck.debug run" in late.stderr

    script = tmp_path / "main.py"
    script.write_text(
        "import json, sys\n"
        "try:\n"
        "    import debug_mutable_label_pkg\n"
        "    print(json.dumps('imported'))\n"
        "except Exception as error:\n"
        "    print(json.dumps(type(error).__name__))\n"
    )
    early = run_python("-m", "jitcheck.debug", "run", str(script), env={"JITCHECK_DEBUG": "debug_mutable_label_pkg"})
    assert early.returncode == 0, early.stderr
    assert last_json(early.stdout) == "BeartypeCallHintParamViolation"


def test_install_import_hook_uses_the_beartype_configuration_given(run_python: RunPython) -> None:
    done = run_python(
        "-c",
        textwrap.dedent(
            """
            import json
            from beartype import BeartypeConf
            from jitcheck.debug import install_import_hook

            class LabelRefused(TypeError):
                pass

            conf = BeartypeConf(violation_param_type=LabelRefused)
            install_import_hook("debug_mutable_label_pkg", conf=conf)
            install_import_hook("debug_mutable_label_pkg", conf=conf)  # the same hook again: nothing to do
            try:
                install_import_hook("debug_mutable_label_pkg")
                other = "accepted"
            except ValueError as error:
                other = str(error)
            try:
                import debug_mutable_label_pkg
                outcome = "imported"
            except Exception as error:
                outcome = type(error).__name__
            print(json.dumps([outcome, other]))
            """
        ),
    )
    assert done.returncode == 0, done.stderr
    outcome, other = last_json(done.stdout)
    assert outcome == "LabelRefused"  # beartype raised the violation type of the configuration given
    assert "already type-checked under BeartypeConf(violation_param_type=" in other
