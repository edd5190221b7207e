"""Observed labels (benchmarks/corpus/observation.py) derived from synthetic recorder records:
which sites are bugs, which are fine, which one run leaves unsettled, how a recorded line
maps to the label's line, and how observed labels are checked against hand labels.
Nothing is downloaded, no venv is made, no library is run."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.corpus import observation, scoring
from benchmarks.corpus.observation import Site

SOURCE = """\
import functools
import jax


@functools.partial(
    jax.jit,
    static_argnums=0,
)
def scale(n, x):
    return x * n


def helper(f, x):
    return jax.jit(f)(x)


def test_once(x):
    return jax.jit(lambda v: v + 1)(x)


def test_loop(xs):
    for x in xs:
        jax.jit(lambda v: v + 1)(x)


step = jax.jit(
    lambda v: v * 2,
)
"""
DECORATOR, HELPER, TEST_ONCE, TEST_LOOP, MODULE = 5, 14, 18, 23, 26


def derive(*sites: Site) -> dict[int, observation.Observed]:
    merged = observation.merge(sites)
    return {label.line: label for label in observation.derive("lib", "1.0", merged, {"m.py": SOURCE})}


def test_an_avoidable_recompile_makes_a_bug_with_its_counts_and_cause() -> None:
    labels = derive(Site("m.py", TEST_LOOP, compiles=3, avoidable=2, causes={"new callable identity: lambda": 2}))
    assert labels[TEST_LOOP].label == "bug"
    assert "compiles=3 avoidable=2" in labels[TEST_LOOP].evidence
    assert "new callable identity: lambda:2" in labels[TEST_LOOP].evidence


def test_two_compiles_of_different_computations_in_one_run_are_fine() -> None:
    labels = derive(Site("m.py", HELPER, compiles=2))
    assert labels[HELPER].label == "fine"
    assert "different computation" in labels[HELPER].evidence


def test_a_jit_only_traced_under_an_outer_trace_is_fine() -> None:
    labels = derive(Site("m.py", HELPER, nested=4))
    assert labels[HELPER].label == "fine"
    assert "outer trace" in labels[HELPER].evidence


def test_one_compile_called_many_times_is_fine() -> None:
    assert derive(Site("m.py", HELPER, compiles=1, calls=50))[HELPER].label == "fine"


def test_one_run_settles_a_site_only_where_the_code_runs_once() -> None:
    labels = derive(Site("m.py", TEST_ONCE, compiles=1), Site("m.py", HELPER, compiles=1), Site("m.py", MODULE, compiles=1),
                    Site("m.py", TEST_LOOP, compiles=1))
    assert labels[TEST_ONCE].label == "fine" and "test_once" in labels[TEST_ONCE].evidence
    assert labels[MODULE].label == "fine" and "module level" in labels[MODULE].evidence
    assert HELPER not in labels  # a helper may be called again: one compile settles nothing
    assert TEST_LOOP not in labels  # a loop in a test runs again


def test_one_compile_in_each_of_two_runs_is_not_a_repetition() -> None:
    # two processes each compile once: no cache could have shared those, and no run saw the site twice
    labels = derive(Site("m.py", HELPER, compiles=1), Site("m.py", HELPER, compiles=1))
    assert HELPER not in labels
    merged = observation.merge([Site("m.py", HELPER, compiles=1), Site("m.py", HELPER, compiles=1, calls=3)])
    assert merged["m.py", HELPER].runs == 2 and merged["m.py", HELPER].most == 3


def test_every_line_of_a_jit_call_or_decorated_def_maps_to_the_labels_line() -> None:
    spans = observation.jit_sites(SOURCE)
    assert [spans[line] for line in range(DECORATOR, DECORATOR + 5)] == [DECORATOR] * 5  # through the def line
    assert spans[HELPER] == HELPER
    assert spans[MODULE] == spans[MODULE + 1] == spans[MODULE + 2] == MODULE
    assert 11 not in spans  # a plain statement is no site


def test_an_installed_package_file_maps_back_to_the_sdist(tmp_path: Path) -> None:
    sdist = tmp_path / "lib-1.0"
    (sdist / "src" / "lib").mkdir(parents=True)
    (sdist / "src" / "lib" / "core.py").write_text("x = 1\n")
    (sdist / "tests").mkdir()
    (sdist / "tests" / "test_a.py").write_text("x = 1\n")
    installed = tmp_path / "venv" / "site-packages" / "lib"
    installed.mkdir(parents=True)
    (installed / "core.py").write_text("x = 1\n")
    packages = {"lib": installed}
    assert observation.sdist_path(str(sdist / "tests" / "test_a.py"), sdist, packages) == "tests/test_a.py"
    assert observation.sdist_path(str(installed / "core.py"), sdist, packages) == "src/lib/core.py"
    assert observation.sdist_path(str(tmp_path / "venv" / "site-packages" / "jax" / "api.py"), sdist, packages) is None


def test_a_disagreement_is_judged_by_the_innermost_hand_label() -> None:
    hand = [scoring.Label("lib", "1.0", "m.py", 10, 20, "fine", "k", "built once"),
            scoring.Label("lib", "1.0", "m.py", 14, 14, "bug", "k", "rebuilt per call")]
    agree = observation.Observed("lib", "1.0", "m.py", 14, "bug", "compiles=2 avoidable=1")
    disagree = observation.Observed("lib", "1.0", "m.py", 12, "bug", "compiles=2 avoidable=1")
    unlabelled = observation.Observed("lib", "1.0", "m.py", 30, "bug", "compiles=2 avoidable=1")
    pairs = observation.disagreements([agree, disagree, unlabelled], hand)
    assert [(o.line, h.line) for o, h in pairs] == [(12, 10)]


def test_observed_labels_round_trip_and_a_bad_row_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "observed.tsv"
    labels = [observation.Observed("lib", "1.0", "b.py", 3, "fine", "compiles=1 calls=9"),
              observation.Observed("lib", "1.0", "a.py", 7, "bug", "compiles=2 avoidable=1")]
    observation.write(path, labels)
    assert observation.load(path) == sorted(labels, key=lambda o: (o.path, o.line))
    path.write_text(path.read_text() + "lib\t1.0\tc.py\tseven\tbug\tx\n")
    with pytest.raises(scoring.LabelError, match=r"observed.tsv:4: expected"):
        observation.load(path)


def test_the_entries_of_one_run_add_up_and_a_cleared_cache_settles_nothing() -> None:
    # two jitted functions built at one line in one run: once each is twice at that site
    run = observation.merge([Site("m.py", HELPER, compiles=1, programs=1), Site("m.py", HELPER, compiles=1, programs=1)], one_run=True)
    assert (run["m.py", HELPER].runs, run["m.py", HELPER].most, run["m.py", HELPER].programs) == (1, 2, 2)
    assert derive(*run.values())[HELPER].label == "fine"
    # the same program compiled again with nothing the site controls changed (jax's cache cleared): no verdict
    assert HELPER not in derive(Site("m.py", HELPER, compiles=2, avoidable=1, causes={"other": 1}))
    assert derive(Site("m.py", HELPER, compiles=3, avoidable=2, causes={"other": 1, "static": 1}))[HELPER].label == "bug"


def test_recorder_json_files_become_labels_on_the_sdist(tmp_path: Path) -> None:
    import json
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    try:
        import observed
    finally:
        sys.path.pop(0)
    root = tmp_path / "lib-1.0"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_m.py").write_text(SOURCE)

    def entry(line: int, wrapper: str = "jax.jit", internal: bool = False, **counts: object) -> dict[str, object]:
        return {"site": f"{root}/tests/test_m.py:{line}:5", "path": str(root / "tests" / "test_m.py"), "line": line, "column": 5,
                "function": "f", "wrapper": wrapper, "internal": internal, "traces": 1, "nested_traces": 0, "compiles": 1,
                "avoidable_compiles": 0, "distinct_programs": 1, "causes": {"callable": 0, "static": 0, "constants": 0, "other": 0},
                **counts}

    first = {"version": 1, "sites": [
        entry(TEST_LOOP, compiles=3, avoidable_compiles=2, distinct_programs=1, causes={"callable": 2, "other": 0}),
        entry(DECORATOR + 4, compiles=2, distinct_programs=2),  # the decorated def's line: the decorator's label
        entry(HELPER, wrapper="jax", internal=True, compiles=9, avoidable_compiles=8),  # jax's own: not a site of the library
        entry(TEST_ONCE, wrapper="transformed", compiles=4, avoidable_compiles=3),  # an eager op: not a wrapper
        {**entry(HELPER), "site": None, "path": None, "line": None},
    ]}
    second = {"version": 1, "sites": [entry(TEST_ONCE)]}
    (tmp_path / "a.json").write_text(json.dumps(first))
    (tmp_path / "b.json").write_text(json.dumps(second))
    labels = observed.observe_library("lib", "1.0", root, [tmp_path / "a.json", tmp_path / "b.json", tmp_path / "missing.json"], {})
    assert {(label.path, label.line, label.label) for label in labels} == {
        ("tests/test_m.py", TEST_LOOP, "bug"), ("tests/test_m.py", DECORATOR, "fine"), ("tests/test_m.py", TEST_ONCE, "fine")}


def test_without_a_package_index_the_benchmark_stops_with_exit_3(tmp_path: Path) -> None:
    """The benchmark run with pip pointed at an index that does not answer: it stops at once, exit 3, saying why (nothing downloaded)."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    env = {key: value for key, value in os.environ.items() if not key.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_INDEX_URL="http://127.0.0.1:9/simple", PIP_FIND_LINKS="", PIP_RETRIES="0",
               PIP_TIMEOUT="2", PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    result = subprocess.run([sys.executable, str(root / "benchmarks" / "observed.py"), "--keep", str(tmp_path), "--libraries", "rejax"],
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "could not download the libraries or their dependencies (no package index?)" in result.stderr
    assert not (tmp_path / "venvs").exists() and not (tmp_path / "base").exists()  # stopped before making anything


COUNTING = """\
import jax
from chex._src import asserts


def test_redefined(x):
    def outer(v):
        @jax.jit
        @asserts.assert_max_traces(3)
        def inner(y):
            return y.sum()
        return inner(2 * v)
    for i in range(4):
        outer(x)


def helper(fn, x):
    return jax.jit(asserts.assert_max_traces(fn, 1))(x)


def plain(fn, x):
    return jax.jit(fn)(x)
"""


@pytest.mark.parametrize("line", [7, 8, 17])
def test_a_jit_that_counts_its_traces_on_purpose_is_fine_even_when_it_recompiles(line: int) -> None:
    site = Site("c.py", line, compiles=4, avoidable=3, programs=1, causes={"callable": 3})
    (label,) = observation.derive("chex", "1.0", observation.merge([site]), {"c.py": COUNTING})
    assert (label.line, label.label) == (line, "fine")
    assert "assert_max_traces: deliberate trace counting" in label.evidence and "avoidable=3" in label.evidence
    plain = Site("c.py", 21, compiles=4, avoidable=3, programs=1, causes={"callable": 3})  # the same counts without a counter
    assert [o.label for o in observation.derive("chex", "1.0", observation.merge([plain]), {"c.py": COUNTING})] == ["bug"]


def test_writing_some_libraries_labels_keeps_the_other_libraries(tmp_path: Path) -> None:
    from benchmarks import observed

    target = tmp_path / "observed.tsv"
    old = [observation.Observed("a", "1", "a.py", 3, "bug", "x"), observation.Observed("b", "1", "b.py", 4, "fine", "y")]
    observation.write(target, old)
    observed.write_labels(target, [observation.Observed("b", "1", "b.py", 9, "bug", "z")], ["b"])
    assert [(o.library, o.line, o.label) for o in observation.load(target)] == [("a", 3, "bug"), ("b", 9, "bug")]


VARIANT_TEST = """\
from chex._src import asserts


class MaxTracesTest:
    def _init(self, fn_, max_traces):
        @asserts.assert_max_traces(max_traces)
        def fn(x):
            return fn_(x)

        def passed(x):
            return fn_(x)

        counted = asserts.assert_max_traces(passed, max_traces)

        def plain(x):
            return fn_(x)
        return self.variant(fn), self.variant(counted), self.variant(plain)
"""


@pytest.mark.parametrize(("qualname", "deliberate"), [
    ("MaxTracesTest._init.<locals>.fn", True),  # decorated with the counter
    ("MaxTracesTest._init.<locals>.passed", True),  # passed through it by its parent
    ("MaxTracesTest._init.<locals>.plain", False),
    ("MaxTracesTest._other.<locals>.fn", False),
    ("partial(fn, ...)", False),
])
def test_a_function_that_counts_its_traces_is_found_by_its_qualified_name(qualname: str, deliberate: bool) -> None:
    assert observation.counts_traces_of(VARIANT_TEST, qualname) is deliberate
