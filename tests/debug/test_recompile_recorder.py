"""The recompile recorder on a planted test suite, run through real pytest: every site right, counts equal to jax's own.

The planted suite (tests/debug/planted, its files named so that the main run does not collect them) holds one site per kind of avoidable
recompile (a bound method in a loop, a partial per call, a lambda static argument, a
closure baking a constant, an equinox wrapper per call, a pmap per call, a
StatefulFunction per call, a JitGraph whose setting is only a constant, a helper that
jits a partial, called once by each of two tests, an equinox module with a lambda
field built per step) and four fine ones (a loop over
structurally different objects, a jit nested under an outer jit, an equinox
decorator, a pjit at two shapes). Its conftest counts jax's own compiles (jax_log_compiles) and each
planted body counts its traces; the recorder's records must agree with both, and
the suite run without the recorder must trace exactly as often (no second trace).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.debug.jax_compile_count import run_script

ROOT = Path(__file__).resolve().parents[2]
PLANTED = Path(__file__).resolve().parent / "planted"
SUITE = {"planted_suite.py": "test_planted.py", "planted_conftest.py": "conftest.py", "planted_counts.py": "planted_counts.py"}
"""The planted suite's files and the names they run under (copied into a temporary folder)."""

# function -> (compiles, avoidable compiles, nested traces, cause, rule)
EXPECTED = {
    "bound_step": (3, 2, 0, "callable", "JC101"),
    "partial_step": (3, 2, 0, "callable", "JC102"),
    "lambda_static": (3, 2, 0, "static", "JC104"),
    "closure_step": (3, 2, 0, "constants", "JC105"),
    "eqx_step": (3, 2, 0, "callable", "JC105"),
    "structural_step": (3, 0, 0, None, None),
    "nested_outer": (1, 0, 0, None, None),
    "nested_inner": (0, 0, 1, None, None),
    "eqx_once": (1, 0, 0, None, None),
    "pmap_step": (2, 1, 0, "callable", "JC105"),
    "pjit_step": (2, 0, 0, None, None),
    "sf_step": (3, 2, 0, "callable", "JC702"),
    "_call_graph": (3, 2, 0, "constants", None),
    "shared_step": (2, 1, 0, "callable", "JC102"),
    "eqx_module_apply": (3, 2, 0, "static", "JC104"),
}
WRAPPERS = {
    "eqx_step": "equinox.filter_jit",
    "eqx_once": "equinox.filter_jit",
    "eqx_module_apply": "equinox.filter_jit",
    "pmap_step": "jax.pmap",
    "pjit_step": "pjit",
    "sf_step": "jitcheck.StatefulFunction",
    "_call_graph": "jitcheck.JitGraph",
}
JAX_NAMES = {"pmap_step": "jit(_fun)", "sf_step": "jit(stateful(sf_step))"}
LINES = {"_call_graph": "graph_scale"}
"""The planted name (``# SITE`` comment, trace counter) of a site whose function is jitcheck's (JitGraph.jit_call runs ``_call_graph``)."""
"""The name jax logs a site's compiles under, where it is not ``jit(function)`` (pmap jits a shard_map of ``_fun``)."""


def _planted_lines() -> dict[str, int]:
    """Each planted site's line, from its ``# SITE name`` comment."""
    lines = (PLANTED / "planted_suite.py").read_text().splitlines()
    return {m.group(1): i for i, text in enumerate(lines, 1) if (m := re.search(r"# SITE (\w+)", text))}


def _run_planted(tmp_path: Path, env: dict[str, str], *options: str) -> dict[str, Any]:
    suite = tmp_path / "suite"
    suite.mkdir()
    for name, runs_as in SUITE.items():
        shutil.copyfile(PLANTED / name, suite / runs_as)
    counts = tmp_path / "counts.json"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "0", *options, "test_planted.py"],
        cwd=suite,
        env={**env, "PLANTED_COUNTS": str(counts)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    found: dict[str, Any] = json.loads(counts.read_text())
    found["stdout"] = result.stdout
    return found


def _by_function(records: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for site in records["sites"]:
        if site["internal"] or not (site["compiles"] or site["nested_traces"]):
            continue  # jax's own, or traced without compiling (StatefulFunction's make_jaxpr)
        name = re.findall(r"\w+", site["function"])[-1]  # Scaler.bound_step, partial(partial_step, ...)
        assert name not in found, f"two sites for {name}: {site} and {found[name]}"
        found[name] = site
    return found


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The planted suite run twice in a child pytest: with the recorder (and its JSON), and without it."""
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env["JAX_PLATFORMS"] = "cpu"
    env.pop("JITCHECK_DEBUG", None)
    on_dir = tmp_path_factory.mktemp("on")
    records = on_dir / "records.json"
    on = _run_planted(on_dir, env, "--jitcheck-recompiles-json", str(records))
    off = _run_planted(tmp_path_factory.mktemp("off"), env)
    return {"on": on, "off": off, "records": json.loads(records.read_text()), "folder": on_dir}


def test_every_planted_site_has_its_cause_and_rule(planted: dict[str, Any]) -> None:
    sites = _by_function(planted["records"])
    lines = _planted_lines()
    assert set(sites) == set(EXPECTED)
    assert "setting" in sites["_call_graph"]["help"] and "'factor'" in sites["_call_graph"]["detail"]
    assert "`args[0].activation`" in sites["eqx_module_apply"]["detail"]
    for name, (compiles, avoidable, nested, cause, rule) in EXPECTED.items():
        site = sites[name]
        got = (site["compiles"], site["avoidable_compiles"], site["nested_traces"], site["cause"], site["rule"])
        assert got == (compiles, avoidable, nested, cause, rule), name
        assert site["path"].endswith("test_planted.py") and site["line"] == lines[LINES.get(name, name)], (name, site["site"])
        expected_in_one_test = 0 if name == "shared_step" else avoidable  # shared_step: once in each of two tests
        assert site["avoidable_in_one_test"] == expected_in_one_test, name
        assert site["wrapper"] == WRAPPERS.get(name, "jax.jit"), name
        if rule is not None:
            from jitcheck.rules import BY_CODE

            assert site["rule_name"] == BY_CODE[rule].name
            assert site["help"]


def test_compile_counts_equal_jaxs_own(planted: dict[str, Any]) -> None:
    jax_compiles = planted["on"]["compiles"]
    for name, site in _by_function(planted["records"]).items():
        assert site["compiles"] == jax_compiles.get(JAX_NAMES.get(name, f"jit({name})"), 0), name
    internal = sum(s["compiles"] for s in planted["records"]["sites"] if s["internal"])
    assert planted["records"]["totals"]["compiles"] == sum(jax_compiles.values())
    planted_names = {JAX_NAMES.get(name, f"jit({name})") for name in EXPECTED}
    assert internal == sum(n for key, n in jax_compiles.items() if key not in planted_names)


def test_the_recorder_never_traces_a_second_time(planted: dict[str, Any]) -> None:
    traces_on, traces_off = planted["on"]["traces"], planted["off"]["traces"]
    assert traces_on == traces_off
    for name, site in _by_function(planted["records"]).items():
        assert site["traces"] == traces_on[LINES.get(name, name)], name


def test_the_table_lists_sites_by_time_lost_with_help_lines(planted: dict[str, Any]) -> None:
    text = planted["on"]["stdout"]
    assert "jitcheck recompiles" in text
    table = text[text.index("jitcheck recompiles") :]
    rows = [line.split()[0] for line in table.splitlines() if line.startswith("test_planted.py:")]
    user = [s for s in planted["records"]["sites"] if not s["internal"] and (s["compiles"] or s["nested_traces"])]
    assert rows == [f"test_planted.py:{s['line']}:{s['column']}" for s in user]  # the JSON's order ...
    lost = [s["lost_seconds"] for s in user]
    assert lost == sorted(lost, reverse=True)  # ... by time lost
    assert all(s["lost_seconds"] > 0 for s in user if s["avoidable_compiles"])
    for code in ("JC101", "JC102", "JC104", "JC105"):
        assert f"help: {code} (" in table
    assert "jitcheck recompiles" not in planted["off"]["stdout"]


def test_json_records_each_trace_with_its_fingerprint(planted: dict[str, Any]) -> None:
    records = planted["records"]
    assert records["version"] == 1
    assert records["complete"] is True  # the run ended (a checkpoint or a killed run says false)
    assert not list(planted["folder"].glob(".*.tmp"))  # each write replaced the file whole, nothing left beside it
    closures = [t for t in records["traces"] if t["function"].endswith("closure_step")]
    assert len(closures) == 3
    assert len({t["fingerprint"] for t in closures}) == 1  # one program ...
    assert len({t["constants"] for t in closures}) == 3  # ... with three constants baked in
    assert [t["avoidable"] for t in closures] == [False, True, True]
    assert closures[1]["repeats"] == closures[0]["index"]
    structural = [t for t in records["traces"] if t["function"].endswith("structural_step")]
    assert len({t["fingerprint"] for t in structural}) == 3
    nested = [t for t in records["traces"] if t["function"] == "nested_inner"]
    assert [t["nested"] for t in nested] == [True] and nested[0]["compiles"] == 0


def test_off_by_default_nothing_is_hooked() -> None:
    from jax._src import pjit

    from jitcheck.debug import recompiles

    assert not recompiles.recording()
    assert pjit._trace_for_jit.__module__ == "jax._src.pjit"
    assert pjit._cpp_pjit.__module__ == "jax._src.pjit"


def test_json_into_a_missing_folder_is_refused(tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    (tmp_path / "test_x.py").write_text("def test_x():\n    pass\n")
    target = tmp_path / "missing" / "r.json"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", f"--jitcheck-recompiles-json={target}", "test_x.py"],
        cwd=tmp_path, env=subprocess_env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 4, result.stdout + result.stderr
    assert "--jitcheck-recompiles-json" in result.stderr and "does not exist" in result.stderr


SCRIPT = """
import jax, jax.numpy as jnp

def make(t):
    def scaled(x):
        return x * t
    return scaled

for t in (1.0, 2.0):
    jax.jit(make(t))(jnp.ones(2))

import jitcheck.debug
print("debug mode on:", jitcheck.debug.is_enabled())
"""


def _run_script(tmp_path: Path, env: dict[str, str], code: str) -> tuple[dict[str, Any], str]:
    """``python -m jitcheck.debug run --recompiles-json`` of ``code``: the records and what it printed."""
    records, result = run_script(tmp_path, env, code)
    return records, result.stdout + result.stderr


def test_run_records_a_script(tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    records, printed = _run_script(tmp_path, subprocess_env, SCRIPT)
    assert "JC105" in printed
    assert "debug mode on: False" in printed  # the recorder alone: debug mode stays off
    (site,) = [s for s in records["sites"] if not s["internal"]]
    assert (site["line"], site["compiles"], site["avoidable_compiles"], site["cause"]) == (10, 2, 1, "constants")


EDGES = """
import jax, jax.numpy as jnp
import jitcheck.debug.recompiles as recorder

recorder.SUBJECTS_KEPT = 1  # let go of what the first program was keyed on

def cleared(x):
    return x - 1.0

for _ in range(2):
    jax.jit(cleared)(jnp.ones(2))
    jax.clear_caches()

for n in (2, 3, 2):
    jax.jit(lambda x: x * 4.0)(jnp.ones(n))

for _ in range(3):  # eager: jax jits the cond itself, with new branch functions each time
    jax.lax.cond(True, lambda v: v + 1.0, lambda v: v - 1.0, jnp.ones(2))
"""


def test_a_cleared_cache_is_other_a_forgotten_program_is_still_avoidable_and_jaxs_own_are_counted(tmp_path: Path, subprocess_env: dict[str, str]) -> None:
    records, _ = _run_script(tmp_path, subprocess_env, EDGES)
    sites = {s["function"]: s for s in records["sites"] if not s["internal"]}
    cleared = sites["cleared"]
    assert (cleared["compiles"], cleared["avoidable_compiles"], cleared["cause"], cleared["rule"]) == (2, 1, "other", None)
    lam = sites["<lambda>"]  # shapes 2, 3, 2: the third compile repeats the first, whose subject was let go
    assert (lam["compiles"], lam["distinct_programs"], lam["avoidable_compiles"], lam["cause"], lam["rule"]) == (3, 2, 1, "callable", "JC104")
    (cond,) = [s for s in records["sites"] if s["internal"] and s["function"] == "cond"]
    assert (cond["compiles"], cond["avoidable_compiles"], cond["line"]) == (3, 2, 18)  # at the line that called it
    assert records["totals"]["unattributed_compiles"] == 0 and records["totals"]["recorder_errors"] == 0


def test_records_of_several_workers_add_up(planted: dict[str, Any]) -> None:
    from jitcheck.debug.recompile_table import merge, render_table

    one = planted["records"]
    both = merge([one, one])
    assert both["totals"]["compiles"] == 2 * one["totals"]["compiles"]
    assert len(both["sites"]) == len(one["sites"])
    for a, b in zip(one["sites"], both["sites"]):
        assert (b["site"], b["compiles"], b["avoidable_compiles"], b["causes"]) == (
            a["site"], 2 * a["compiles"], 2 * a["avoidable_compiles"], {k: 2 * v for k, v in a["causes"].items()}
        )
    assert len(both["traces"]) == 2 * len(one["traces"])
    assert render_table(both)[0].startswith(f"{2 * one['totals']['traces']} traces")


def test_the_table_is_capped_with_a_count_of_the_rest(planted: dict[str, Any]) -> None:
    from jitcheck.debug.recompile_table import render_table

    records = planted["records"]
    listed = [s for s in records["sites"] if not s["internal"] and (s["compiles"] or s["nested_traces"])]
    lines = render_table(records, top=3)
    rows = [line for line in lines if "test_planted.py:" in line]
    assert len(rows) == 3
    rest = listed[3:]
    assert f"... and {len(rest)} more sites ({sum(s['compiles'] for s in rest)} compiles, {sum(s['avoidable_compiles'] for s in rest)} avoidable" in "\n".join(lines)
