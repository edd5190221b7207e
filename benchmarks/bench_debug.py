"""Debug mode's cost: nothing when off, and what it costs when on.

Import time of the clean fixture package (``fixtures/debug_packages/debug_clean_pkg``,
jax included) measured in fresh interpreters, many interleaved repeats, best of each:
with debug mode off, against a copy of jitcheck with every debug hook cut out (the
``JITCHECK_DEBUG`` switch in ``jitcheck.core`` and the construction hooks and forced
checks of ``run_checks``), and with debug mode on (beartype on the package, every
graph traced as it is built). Cache-hit calls (``JitGraph.jit_call`` and a plain
``jax.jit``) with debug mode off against the same hookless copy, in fresh
interpreters. And, in this process, building a ``JitGraph`` with debug mode off
against building it unchecked and running its checks by hand.
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
        ("    for hook in construction_hooks:\n        hook(obj)\n", ""),
    ],
}


def _hookless_copy(into: Path) -> Path:
    """A copy of the jitcheck package with every debug hook cut out; returns the folder to put on the path."""
    target = into / "jitcheck"
    shutil.copytree(ROOT / "jitcheck", target, ignore=shutil.ignore_patterns("__pycache__"))
    for relative, cuts in _CUTS.items():
        path = target / relative
        text = path.read_text()
        for old, new in cuts:
            if old not in text:
                raise RuntimeError(f"bench_debug: {relative} no longer holds the hook it cuts:\n{old}")
            text = text.replace(old, new)
        path.write_text(text)
    return into


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
        bare = _hookless_copy(Path(folder))
        off_env, bare_env = _child_env(ROOT), _child_env(bare)
        off: list[float] = []
        none: list[float] = []
        on: list[float] = []
        for _ in range(repeat):  # interleaved, so drift in the machine's load hits all three alike
            none.append(_import_seconds(_IMPORT, bare_env))
            off.append(_import_seconds(_IMPORT, off_env))
            on.append(_import_seconds(_IMPORT_DEBUG, off_env))
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
# jax.jit of a function of that package (best of 7 rounds, per call), printed as two numbers.
_HITS = """
import time, jax, jax.numpy as jnp
from jitcheck.core import OrderedMap
import debug_clean_pkg.model as model
from debug_clean_pkg.layers import dense
values = OrderedMap({"x": jnp.ones((8, 4)), "w1": jnp.ones((4, 16)), "w2": jnp.ones((16, 2))})
plain = jax.jit(dense)
x, w = values["x"], values["w1"]
def best(fn, number=%d):
    fn(); times = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t) / number)
    return min(times)
print(best(lambda: model.MLP.jit_call(values)), best(lambda: plain(x, w)))
"""


def _hit_figures(repeat: int, number: int) -> list[Figure]:
    """Cache-hit calls with debug mode off against the copy of jitcheck with no debug hook at all."""
    code = _HITS % number
    with tempfile.TemporaryDirectory(prefix="jitcheck-bench-debug-") as folder:
        bare = _hookless_copy(Path(folder))
        off_env, bare_env = _child_env(ROOT), _child_env(bare)
        off: list[tuple[float, float]] = []
        none: list[tuple[float, float]] = []
        for _ in range(repeat):
            for env, sink in ((bare_env, none), (off_env, off)):
                done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
                graph_s, plain_s = (float(v) for v in done.stdout.split()[-2:])
                sink.append((graph_s, plain_s))
    note = f"fresh interpreter per round, {repeat} interleaved rounds of 7 x {number} calls, best of each"
    return [
        Figure(
            "cache-hit jit_call, debug off",
            "MLP.jit_call(values) of debug_clean_pkg, debug mode off",
            "same, jitcheck with no debug hook at all",
            min(g for g, _ in off),
            min(g for g, _ in none),
            target=1.05,
            note=note,
        ),
        Figure(
            "cache-hit plain jax.jit call, debug off",
            "jax.jit(dense)(x, w) in a process that imported jitcheck, debug mode off",
            "same, jitcheck with no debug hook at all",
            min(p for _, p in off),
            min(p for _, p in none),
            target=1.05,
            note=note + "; with debug off jax.jit, jax.pmap and eqx.filter_jit are jax's own objects",
        ),
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
        note="in process: the debug hooks in run_checks cost a flag test and an empty loop",
    )


def _scale(x: object, *, f: float) -> object:
    """A node body for the construction figure (never run)."""
    return x


def run(quick: bool) -> Section:
    """The debug layer's figures (``quick``: fewer repeats)."""
    repeat = 5 if quick else 15
    figures = _import_figures(repeat)
    figures += _hit_figures(3 if quick else 9, 200 if quick else 1000)
    figures.append(_construction_figure(7 if quick else 21))
    return Section(
        "Debug mode (jitcheck.debug)",
        figures,
        notes=[
            "\"no debug hook at all\" is a copy of jitcheck with the JITCHECK_DEBUG switch of jitcheck.core and the "
            "construction hooks and forced checks of run_checks cut out, imported the same way",
        ],
    )


if __name__ == "__main__":
    section = run(quick="--quick" in sys.argv)
    for figure in section.figures:
        print(f"{figure.name}: {figure.ratio:.3f}x ({figure.subject_seconds:.4f} s vs {figure.baseline_seconds:.4f} s)")
