"""Debug mode's cost: nothing when off, and what it costs when on.

Import time of the clean fixture package
(``fixtures/debug_packages/debug_clean_pkg``, jax included) measured in fresh
interpreters, many interleaved repeats, best of each: with debug mode off, against a
copy of jitcheck with every debug hook cut out (the ``JITCHECK_DEBUG`` switch in
``jitcheck.core`` and the forced checks of ``run_checks``; the construction hooks
need no cut: with none added, construction runs the checks alone), with debug mode
on (beartype on the package, every graph traced as it is built), and a second
hookless copy against the first (the noise floor). A cache-hit ``JitGraph.jit_call``
with debug mode off against the same hookless copy, and a second hookless copy
against the first (the noise floor), the copies renamed and imported side by side in
each of several fresh interpreters, timed in alternating short windows. A cache-hit
plain ``jax.jit`` in fresh interpreters that imported either copy. Every side runs
from a copy in a sibling folder named alike, the order alternating, so neither the
path nor going first favours one. And, in this process, building a ``JitGraph`` with
debug mode off against building it unchecked and running its checks by hand.
The recompile recorder (``--recorder`` runs only these): a cache-hit ``jax.jit`` call
with the recorder off (its pytest plugin and module imported, nothing hooked) against
interpreters that never imported jitcheck (and those against more of the same: the
noise floor), rounds interleaved with the order rotating; and, in one interpreter with
the recorder switched on and off between windows, a cache hit and a trace
(``jax.jit(f).trace``) on against off. Median beside best for each.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import Figure, Section, calibrate, interleaved

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ROOT / "fixtures" / "debug_packages"

_IMPORT = "import time; t = time.perf_counter(); import debug_clean_pkg; print(time.perf_counter() - t)"
_IMPORT_DEBUG = (
    "import time; t = time.perf_counter(); import jitcheck.debug; "
    "jitcheck.debug.enable(packages=['debug_clean_pkg']); import debug_clean_pkg; print(time.perf_counter() - t)"
)

# What "no hook at all" cuts out of a copy of jitcheck; each must be found, so a change in the core
# fails the benchmark instead of silently measuring the same code twice.
_CUTS = {
    "core/__init__.py": [
        (
            'if _os.environ.get("JITCHECK_DEBUG") and not _debug_layer_loading():\n'
            "    from jitcheck.debug.switch import enable_from_environment as _enable_from_environment\n\n"
            "    _enable_from_environment()\n",
            "",
        )
    ],
    "core/checking.py": [
        ("        if not force_checks:\n            return\n", "        return\n"),
    ],
}


def _copy(into: Path, *, hookless: bool) -> Path:
    """A copy of the jitcheck package, with every debug hook cut out when ``hookless``; returns the folder to put on the path."""
    target = into / "jitcheck"
    shutil.copytree(ROOT / "jitcheck", target, ignore=shutil.ignore_patterns("__pycache__"))
    for relative, cuts in _CUTS.items() if hookless else ():
        path = target / relative
        text = path.read_text()
        for old, new in cuts:
            if old not in text:
                raise RuntimeError(f"bench_debug: {relative} no longer holds the hook it cuts:\n{old}")
            text = text.replace(old, new)
        path.write_text(text)
    return into


def _copies(folder: Path, *names: str) -> dict[str, Path]:
    """Copies of jitcheck in sibling folders named alike in length: ``off`` as it is, any other hookless."""
    assert len({len(name) for name in names}) == 1
    return {name: _copy(folder / name, hookless=name != "off") for name in names}


def _child_env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JITCHECK_")}
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGES), str(root)])
    env["JAX_PLATFORMS"] = "cpu"
    return env


def _import_seconds(code: str, env: dict[str, str]) -> float:
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
    return float(done.stdout.strip().splitlines()[-1])


def _import_figures(repeat: int) -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="jitcheck-bench-debug-") as folder:
        copies = _copies(Path(folder), "off", "bar", "ba2")
        off_env, bare_env = _child_env(copies["off"]), _child_env(copies["bar"])
        off: list[float] = []
        none: list[float] = []
        on: list[float] = []
        again: list[float] = []
        runs = [(_IMPORT, bare_env, none), (_IMPORT, off_env, off), (_IMPORT_DEBUG, off_env, on), (_IMPORT, _child_env(copies["ba2"]), again)]
        for round_ in range(repeat):  # interleaved, so drift in the machine's load hits all alike; each goes first in turn
            for code, env, sink in runs[round_ % len(runs) :] + runs[: round_ % len(runs)]:
                sink.append(_import_seconds(code, env))
    return [
        Figure(
            "import, debug off",
            "import debug_clean_pkg, debug mode off",
            "same, jitcheck with no debug hook at all",
            min(off),
            min(none),
            target=1.05,
            note=f"fresh interpreter per import, {repeat} interleaved repeats, best of each (jax's import included)",
        ),
        Figure(
            "import, debug on",
            "enable(packages=['debug_clean_pkg']) + import: beartype, 2 graphs traced",
            "import debug_clean_pkg, debug mode off",
            min(on),
            min(off),
            note="reported only: what debug mode costs at import",
        ),
        Figure(
            "noise floor: import, the same code twice",
            "import debug_clean_pkg, a second copy of the hookless jitcheck",
            "same, the first hookless copy",
            min(again),
            min(none),
            note="reported only: identical code, so any distance from 1.00x is the machine's noise",
        ),
    ]


def _renamed_copies(folder: Path, *tags: str) -> Path:
    """Copies of jitcheck and of the clean fixture package, one pair per tag, renamed ``jitcheck_TAG`` and
    ``debug_clean_pkg_TAG`` (every import rewritten) so that one interpreter can import them all;
    ``off`` is jitcheck as it is, any other tag hookless. Returns the folder to put on the path."""
    assert len({len(tag) for tag in tags}) == 1
    for tag in tags:
        jitcheck = _copy(folder / "copies" / tag, hookless=tag != "off") / "jitcheck"
        fixture = folder / "copies" / tag / "debug_clean_pkg"
        shutil.copytree(PACKAGES / "debug_clean_pkg", fixture, ignore=shutil.ignore_patterns("__pycache__"))
        for package, name in ((jitcheck, "jitcheck"), (fixture, "debug_clean_pkg")):
            renamed = folder / f"{name}_{tag}"
            package.rename(renamed)
            for path in renamed.rglob("*.py"):
                text = re.sub(r"\bjitcheck\b", f"jitcheck_{tag}", path.read_text())
                path.write_text(re.sub(r"\bdebug_clean_pkg\b", f"debug_clean_pkg_{tag}", text))
    return folder


# A child that times cache-hit MLP.jit_call(values) of several renamed copies (argv: their tags) in one
# interpreter, alternating short windows between them, and prints each copy's best time per call. In one
# process the copies share the machine's state at every moment; short windows: on a loaded machine a
# long one is almost never left alone, and the best of many short ones comes closest to the undisturbed time.
_GRAPH_HITS = """
import importlib, sys, time, jax.numpy as jnp
calls = []
for tag in sys.argv[1:]:
    OrderedMap = importlib.import_module("jitcheck_" + tag + ".core").OrderedMap
    mlp = importlib.import_module("debug_clean_pkg_" + tag + ".model").MLP
    values = OrderedMap({"x": jnp.ones((8, 4)), "w1": jnp.ones((4, 16)), "w2": jnp.ones((16, 2))})
    calls.append((lambda mlp=mlp, values=values: mlp.jit_call(values)))
best = [float("inf")] * len(calls)
for fn in calls:
    fn(); fn()
for window in range(%d):
    for i in (range(len(calls)) if window %% 2 else reversed(range(len(calls)))):
        fn = calls[i]
        t = time.perf_counter()
        for _ in range(%d):
            fn()
        best[i] = min(best[i], (time.perf_counter() - t) / %d)
print(*best)
"""

# A child that times a cache-hit plain jax.jit of a function of the clean package, in a process that
# imported jitcheck and the package (best of many short windows, per call).
_PLAIN_HITS = """
import time, jax, jax.numpy as jnp
import debug_clean_pkg.model
from debug_clean_pkg.layers import dense
plain = jax.jit(dense)
x, w = jnp.ones((8, 4)), jnp.ones((4, 16))
plain(x, w); plain(x, w)
times = []
for _ in range(%d):
    t = time.perf_counter()
    for _ in range(%d):
        plain(x, w)
    times.append((time.perf_counter() - t) / %d)
print(min(times))
"""


# A child that times cache-hit calls of a plain jax.jit (windows of calls, per call) and traces of a fresh
# closure of a 20-step function (jax.jit(make()).trace(x), no compile). argv[1] "plain": jitcheck never imported,
# one line of hit times; "recorder": jitcheck's pytest plugin and recorder imported, the recorder switched on and
# off between windows (install/uninstall, order alternating), four lines: hits off, hits on, traces off, traces on.
# A last line counts the Python calls (sys.setprofile) one cache-hit call makes, per mode.
_RECORDER = """
import sys, time
recorder = sys.argv[1] == "recorder"
if recorder:
    import jitcheck.debug.pytest_plugin
    from jitcheck.debug import recompiles
import jax, jax.numpy as jnp

def dense(x, w):
    return jnp.tanh(x @ w)

def make():
    def body(x):
        for i in range(20):
            x = jnp.sin(x) * 1.5
        return x
    return body

plain = jax.jit(dense)
x, w = jnp.ones((8, 4)), jnp.ones((4, 16))
plain(x, w).block_until_ready(); plain(x, w).block_until_ready()
jax.jit(make()).trace(x)
modes = [False, True] if recorder else [False]
hits = {m: [] for m in modes}
traces = {m: [] for m in modes}
for window in range(%d):
    for on in (modes if window %% 2 else modes[::-1]):
        if recorder:
            (recompiles.install if on else recompiles.uninstall)()
        t = time.perf_counter()
        for _ in range(%d):
            plain(x, w).block_until_ready()
        hits[on].append((time.perf_counter() - t) / %d)
        t = time.perf_counter()
        jax.jit(make()).trace(x)
        traces[on].append(time.perf_counter() - t)
calls = {}
def count(frame, event, arg):
    if event in ("call", "c_call"):
        calls[on] += 1
for on in modes:
    if recorder:
        (recompiles.install if on else recompiles.uninstall)()
    calls[on] = 0
    sys.setprofile(count)
    for _ in range(100):
        plain(x, w)
    sys.setprofile(None)
for table in (hits, traces):
    for m in modes:
        print(*table[m])
print(*(calls[m] / 100 for m in modes))
"""


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _recorder_figures(rounds: int, windows: int, number: int) -> list[Figure]:
    """The recorder's cost: a cache hit with it off against no jitcheck (and the same code twice, the noise
    floor), across fresh interpreters; a cache hit and a trace with it on against off, in one interpreter."""
    best: dict[str, list[float]] = {name: [] for name in ("plain", "plain2", "off")}  # per round, each process's best
    paired: dict[str, list[tuple[float, float]]] = {"hit": [], "trace": []}  # (on, off), window by window
    python_calls: dict[str, float] = {}
    code = _RECORDER % (windows, number, number)
    env = _child_env(ROOT)
    runs = ["plain", "plain2", "recorder"]
    for round_ in range(rounds):
        for run_ in runs[round_ % 3 :] + runs[: round_ % 3]:  # each in each place
            done = subprocess.run([sys.executable, "-c", code, "plain" if run_ == "plain2" else run_], env=env,
                                  capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())  # fmt: skip
            lines = [[float(v) for v in line.split()] for line in done.stdout.strip().splitlines()]
            if run_ == "recorder":
                hits_off, hits_on, traces_off, traces_on, calls = lines[-5:]
                best["off"].append(min(hits_off))
                paired["hit"] += zip(hits_on, hits_off)
                paired["trace"] += zip(traces_on, traces_off)
                python_calls["off"], python_calls["on"] = calls
            else:
                best[run_].append(min(lines[-3]))
                python_calls[run_] = lines[-1][0]

    def across(name: str, subject: str, baseline: str, mine: str, theirs: str, target: float | None, note: str) -> Figure:
        ratios = [a / b for a, b in zip(best[mine], best[theirs])]
        return Figure(name, subject, baseline, min(best[mine]), min(best[theirs]), target=target, note=note, median_ratio=_median(ratios))

    def within(name: str, subject: str, pairs: str, note: str) -> Figure:
        on, off = zip(*paired[pairs])
        ratios = [a / b for a, b in paired[pairs]]
        return Figure(name, subject, "same, recorder off", min(on), min(off), note=note, median_ratio=_median(ratios))

    how = (f"{rounds} rounds of fresh interpreters, one of each per round in rotating order, each the best of {windows} "
           f"windows of {number} calls; median of the per-round ratios beside the ratio of the bests")  # fmt: skip
    alternating = f"{rounds} fresh interpreters, the recorder switched on and off between windows ({windows} each, order alternating); median of the paired windows' ratios"
    calls = (f"Python calls per cache-hit jit call (sys.setprofile): {python_calls['off']:g} recorder off, "
             f"{python_calls['plain']:g} jitcheck never imported, {python_calls['on']:g} recorder on")  # fmt: skip
    return [
        across("cache-hit jax.jit call, recorder off", "jax.jit(dense)(x, w), jitcheck's pytest plugin and recorder imported, recorder off",
               "same, jitcheck never imported", "off", "plain", 1.02, f"{how}; off, nothing is hooked: {calls}"),
        across("noise floor: cache-hit jax.jit call, the same code twice", "jax.jit(dense)(x, w), jitcheck never imported",
               "same, other interpreters", "plain2", "plain", None, f"{how}; reported only: identical code"),
        within("cache-hit jax.jit call, recorder on", "jax.jit(dense)(x, w), recorder on", "hit", f"{alternating}; reported: a cache hit passes no hook"),
        within("trace, recorder on", "jax.jit(make()).trace(x), a fresh 20-step closure, recorder on", "trace",
               f"{alternating}; reported: one walk of the jaxpr jax made, never a second trace"),
    ]  # fmt: skip


def _run_child(code: str, env: dict[str, str], *args: str) -> list[float]:
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
    return [float(v) for v in done.stdout.split()]


def _hit_figures(repeat: int, number: int, windows: int) -> list[Figure]:
    """Cache-hit calls with debug mode off against the copy of jitcheck with no debug hook at all,
    and a second hookless copy against the first (the noise floor: the same code twice)."""
    off: list[float] = []
    none: list[float] = []
    again: list[float] = []
    plain_off: list[float] = []
    plain_none: list[float] = []
    with tempfile.TemporaryDirectory(prefix="jitcheck-bench-debug-") as folder:
        renamed = _renamed_copies(Path(folder), "off", "bar", "ba2")
        copies = _copies(Path(folder) / "plain", "off", "bar")
        graph_env = {**_child_env(renamed), "PYTHONPATH": str(renamed)}
        graph_code = _GRAPH_HITS % (windows, number, number)
        plain_code = _PLAIN_HITS % (windows, number, number)
        plain_runs = [(_child_env(copies["bar"]), plain_none), (_child_env(copies["off"]), plain_off)]
        for round_ in range(repeat):
            tags = ["off", "bar", "ba2"][round_ % 3 :] + ["off", "bar", "ba2"][: round_ % 3]  # each copy in each place
            for tag, seconds in zip(tags, _run_child(graph_code, graph_env, *tags)):
                {"off": off, "bar": none, "ba2": again}[tag].append(seconds)
            for env, sink in plain_runs if round_ % 2 else plain_runs[::-1]:
                sink.extend(_run_child(plain_code, env))
    note = (
        f"{repeat} fresh interpreters, each timing {windows} windows of {number} calls of each copy, alternating "
        "(the copies take turns at going first); best of each"
    )
    plain_note = f"fresh interpreter per round, {repeat} interleaved rounds (order alternating) of {windows} x {number} calls, best of each"
    rows = [  # name, subject, baseline, subject's and baseline's timings, target, note
        ("cache-hit jit_call, debug off", "MLP.jit_call(values) of debug_clean_pkg, debug mode off",
         "same, jitcheck with no debug hook at all", off, none, 1.05,
         note + " (the copies are renamed and imported side by side)"),
        ("cache-hit plain jax.jit call, debug off", "jax.jit(dense)(x, w) in a process that imported jitcheck, debug mode off",
         "same, jitcheck with no debug hook at all", plain_off, plain_none, 1.05,
         plain_note + "; with debug off jax.jit, jax.pmap and eqx.filter_jit are jax's own objects"),
        ("noise floor: cache-hit jit_call, the same code twice", "MLP.jit_call(values), a second copy of the hookless jitcheck",
         "same, the first hookless copy", again, none, None,
         note + "; reported only: identical code, so any distance from 1.00x is the machine's noise"),
    ]  # fmt: skip
    return [
        Figure(name, subject, baseline, min(mine), min(theirs), target=target, note=text)
        for name, subject, baseline, mine, theirs, target, text in rows
    ]


def _construction_figure(repeat: int) -> Figure:
    from jitcheck.core import JitGraph, NestingGraph, NodeDefinition, OrderedMap, checking, unchecked

    nesting = NestingGraph(
        OrderedMap({f"n{i}": NodeDefinition(_scale, inputs=(f"p{i}",), outputs=(f"p{i + 1}",), settings=OrderedMap({"f": float(i)})) for i in range(16)})
    )

    def built() -> object:
        return JitGraph(nesting)

    def by_hand() -> object:
        graph = unchecked(JitGraph, nesting)
        if checking.collect(graph):
            raise AssertionError("the benchmark graph must pass its checks")
        return graph

    number = calibrate(built)
    subject, baseline = interleaved(built, by_hand, repeat=repeat, number=number)
    return Figure(
        "JitGraph construction, debug off",
        "JitGraph(graph of 16 nodes), debug mode off",
        "unchecked(JitGraph, ...) + the same checks run by hand",
        subject,
        baseline,
        target=1.1,
        note="in process: with debug off no construction hook is added, so run_checks is the checks alone",
    )


def _scale(x: object, *, f: float) -> object:
    """A node body for the construction figure (never run)."""
    return x


def run(quick: bool) -> Section:
    """The debug layer's figures (``quick``: fewer repeats)."""
    repeat = 5 if quick else 15
    figures = _import_figures(repeat)
    figures += _hit_figures(3 if quick else 9, 200, 7 if quick else 35)
    figures.append(_construction_figure(7 if quick else 21))
    figures += _recorder_figures(3 if quick else 9, 300, 20)
    return Section(
        "Debug mode (jitcheck.debug)",
        figures,
        notes=[
            "\"no debug hook at all\" is a copy of jitcheck with the JITCHECK_DEBUG switch of jitcheck.core and the "
            "forced checks of run_checks cut out (construction hooks are swapped in only when debug mode adds one), "
            "imported the same way, from a sibling folder",
        ],
    )


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    if "--recorder" in sys.argv:
        figures = _recorder_figures(3 if quick else 9, 300, 20)
    else:
        figures = run(quick=quick).figures
    for figure in figures:
        print(f"{figure.name}: {figure.ratio_text()} ({figure.subject_seconds:.7f} s vs {figure.baseline_seconds:.7f} s) {figure.note}")
