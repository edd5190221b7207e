"""Debug mode's cost: nothing when off, and what it costs when on.

Import time of the clean fixture package (``fixtures/debug_packages/debug_clean_pkg``,
jax included) measured in fresh interpreters, many interleaved repeats, best of each:
with debug mode off, against a copy of jitcheck with every debug hook cut out (the
``JITCHECK_DEBUG`` switch in ``jitcheck.core`` and the forced checks of
``run_checks``; the construction hooks need no cut: with none added, construction
runs the checks alone), and with debug mode on (beartype on the package, every graph
traced as it is built). Cache-hit calls (``JitGraph.jit_call`` and a plain
``jax.jit``) with debug mode off against the same hookless copy, in fresh
interpreters, and a second hookless copy against the first: the noise floor. Both
sides run from copies in sibling folders with names of one length, in alternating
order, so neither the path (its length shifts the process's environment and stack)
nor going first favours one. And, in this process, building a ``JitGraph`` with
debug mode off against building it unchecked and running its checks by hand.
"""

from __future__ import annotations

import os
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
        copies = _copies(Path(folder), "off", "bar")
        off_env, bare_env = _child_env(copies["off"]), _child_env(copies["bar"])
        off: list[float] = []
        none: list[float] = []
        on: list[float] = []
        runs = [(_IMPORT, bare_env, none), (_IMPORT, off_env, off), (_IMPORT_DEBUG, off_env, on)]
        for round_ in range(repeat):  # interleaved, so drift in the machine's load hits all three alike
            for code, env, sink in runs if round_ % 2 else runs[::-1]:
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
    ]


# A child that times cache-hit calls: JitGraph.jit_call of the clean package's graph, and a plain
# jax.jit of a function of that package (best of many short windows, per call), printed as two numbers.
# Short windows: on a loaded machine a long one is almost never left alone, and the best of many
# short ones comes closest to the undisturbed time.
_HITS = """
import time, jax, jax.numpy as jnp
from jitcheck.core import OrderedMap
import debug_clean_pkg.model as model
from debug_clean_pkg.layers import dense
values = OrderedMap({"x": jnp.ones((8, 4)), "w1": jnp.ones((4, 16)), "w2": jnp.ones((16, 2))})
plain = jax.jit(dense)
x, w = values["x"], values["w1"]
def best(fn, number=%d, windows=%d):
    fn(); times = []
    for _ in range(windows):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t) / number)
    return min(times)
print(best(lambda: model.MLP.jit_call(values)), best(lambda: plain(x, w)))
"""


def _hit_figures(repeat: int, number: int, windows: int) -> list[Figure]:
    """Cache-hit calls with debug mode off against the copy of jitcheck with no debug hook at all,
    and a second hookless copy against the first (the noise floor: the same code twice)."""
    code = _HITS % (number, windows)
    with tempfile.TemporaryDirectory(prefix="jitcheck-bench-debug-") as folder:
        copies = _copies(Path(folder), "off", "bar", "ba2")
        off: list[tuple[float, float]] = []
        none: list[tuple[float, float]] = []
        again: list[tuple[float, float]] = []
        runs = [(_child_env(copies["bar"]), none), (_child_env(copies["off"]), off), (_child_env(copies["ba2"]), again)]
        for round_ in range(repeat):
            for env, sink in runs if round_ % 2 else runs[::-1]:
                done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
                graph_s, plain_s = (float(v) for v in done.stdout.split()[-2:])
                sink.append((graph_s, plain_s))
    note = f"fresh interpreter per round, {repeat} interleaved rounds (order alternating) of {windows} x {number} calls, best of each"
    rows = [  # name, subject, baseline, subject's and baseline's timings, which timing (0: jit_call, 1: jax.jit), target, note
        ("cache-hit jit_call, debug off", "MLP.jit_call(values) of debug_clean_pkg, debug mode off",
         "same, jitcheck with no debug hook at all", off, none, 0, 1.05, note),
        ("cache-hit plain jax.jit call, debug off", "jax.jit(dense)(x, w) in a process that imported jitcheck, debug mode off",
         "same, jitcheck with no debug hook at all", off, none, 1, 1.05,
         note + "; with debug off jax.jit, jax.pmap and eqx.filter_jit are jax's own objects"),
        ("noise floor: cache-hit jit_call, the same code twice", "MLP.jit_call(values), a second copy of the hookless jitcheck",
         "same, the first hookless copy", again, none, 0, None,
         note + "; reported only: identical code, so any distance from 1.00x is the machine's noise"),
    ]  # fmt: skip
    return [
        Figure(name, subject, baseline, min(t[which] for t in mine), min(t[which] for t in theirs), target=target, note=text)
        for name, subject, baseline, mine, theirs, which, target, text in rows
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
    section = run(quick="--quick" in sys.argv)
    for figure in section.figures:
        print(f"{figure.name}: {figure.ratio:.3f}x ({figure.subject_seconds:.4f} s vs {figure.baseline_seconds:.4f} s)")
