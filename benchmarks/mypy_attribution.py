"""The child of bench_mypy's attribution figures: the plugin's own time inside one mypy run.

Two separate mypy runs of equinox differ by more than 2% on a shared machine, so the
1.02x target cannot be read from their ratio. Here the plugin's cost is measured
inside one run instead, where it happens, interleaved with mypy's own work at a
microsecond scale, so the machine's slow drifts weigh on both sides alike:

- Python: every function of the plugin's class and every entry point of mypy's plugin
  interface is timed when mypy calls it (nested calls count once, in their caller),
  and so is every hook a class-level entry point returns. The timing wrapper costs
  time of its own outside what it times, so each is wrapped twice, in identical
  layers: the outer layer's total minus the inner one's is what one layer costs, ``W``,
  measured in the same run. Each of mypy's calls into Python costs what a call of a
  trivial Python hook through ``mypy.plugin.ChainedPlugin`` costs (replayed), scaled
  like the lookups below.
- Lookups: mypy's questions answered from the plugin's tables (``get_type_analyze_hook``
  and others: bound ``dict`` methods, answers.py) never reach Python. Their number
  comes from a separate counting run, their cost per call from replaying those
  questions through ``mypy.plugin.ChainedPlugin`` with and without the plugin (median of
  interleaved rounds), scaled by how much more a wrapper layer costs in the run than in
  the same kind of tight loop (``in_run_factor``).

A call the plugin makes to its own functions passes both layers untimed, inside its
caller's timed total; those passes are counted and taken out at their tight-loop cost,
scaled the same way. With ``T`` the timed run's length, ``timed`` the inner layer's
total, ``P`` the passes and ``code = timed - P``::

    with the plugin = T - 2W - P
    mypy alone      = T - 2W - calls - timed - lookups
    plugin          = calls + code + lookups + import

``import`` is the plugin's import in a process that has already imported mypy, paid
once per mypy process, so it is charged to every run. A ``mypy`` command also pays
mypy's own start (the interpreter, mypy's imports), with or without the plugin:
``startup`` is a new interpreter importing the modules of mypy that a run without the
plugin imported (median of 5): less than a real start, which also builds its options
and finds its files, so a ratio over whole commands errs high too. Usage: ``python
mypy_attribution.py SPEC.json``, SPEC naming the folder to check from, the
configurations (plugin on, and off for the warm-up), a cache folder and the rounds;
prints ``{"cold": [run, ...], "warm": [...]}`` as JSON, a run being a dict of its
parts in seconds.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mypy import api
from mypy.options import Options
from mypy.plugin import ChainedPlugin, Plugin
from mypy.plugins.default import DefaultPlugin
from mypy_inprocess import edit_equinox

_INTERFACE = frozenset(name for name in dir(Plugin) if name.startswith("get_") and "_hook" in name)
_OTHER_CALLS = frozenset({"get_additional_deps", "report_config_data", "set_modules"})
_clock = time.perf_counter_ns


class Tally:
    """Calls into the plugin and the nanoseconds spent inside them, outermost calls only."""

    def __init__(self) -> None:
        self.calls = 0
        self.total = 0
        self.depth = 0
        self.nested = 0
        self.by_name: dict[str, list[int]] = {}

    def add(self, name: str, elapsed: int) -> None:
        self.calls += 1
        self.total += elapsed
        entry = self.by_name.setdefault(name, [0, 0])
        entry[0] += 1
        entry[1] += elapsed


def _timed(name: str, function: Callable[..., Any], tally: Tally) -> Callable[..., Any]:
    """``function``, timed into ``tally`` when no other timed call is under way; a hook it returns is timed too."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if tally.depth:
            tally.nested += 1
            return function(*args, **kwargs)
        tally.depth = 1
        start = _clock()
        result = function(*args, **kwargs)
        tally.add(name, _clock() - start)
        tally.depth = 0
        if name in _INTERFACE and callable(result):
            return _timed(f"{name} (its hook)", result, tally)
        return result

    return wrapper


def timed_plugin(base: type[Plugin], outer: Tally, inner: Tally, asked: dict[str, list[str]] | None) -> type[Plugin]:
    """A subclass of ``base`` whose functions and interface are timed twice: ``inner`` around the plugin, ``outer`` around that.

    With ``asked``, the questions the instance answers from its tables are counted by
    name, through a Python wrapper (a counting run, not timed).
    """
    names = {name for name, value in vars(base).items() if isinstance(value, types.FunctionType) and name != "__init__"}
    namespace: dict[str, object] = {}
    for name in sorted(names | _INTERFACE | _OTHER_CALLS):
        namespace[name] = _timed(name, _timed(name, getattr(base, name), inner), outer)

    def construct(self: Plugin, options: Options) -> None:
        start = _clock()
        base.__init__(self, options)
        inner.add("construction", _clock() - start)
        if asked is not None:
            for name, table in list(vars(self).items()):
                if name in _INTERFACE:
                    setattr(self, name, _counted(table, asked.setdefault(name, [])))

    namespace["__init__"] = construct
    return type(f"Timed{base.__name__}", (base,), namespace)


def _counted(table: Callable[[str], Any], into: list[str]) -> Callable[[str], Any]:
    def ask(fullname: str) -> Any:
        into.append(fullname)
        return table(fullname)

    return ask


def replayed_cost(plugin: Plugin, asked: dict[str, list[str]], rounds: int = 7) -> float:
    """What ``plugin`` adds to each of mypy's questions in a tight loop (seconds per question).

    Replays ``asked`` (questions by hook) through mypy's chain, with ``plugin`` and without
    any, alternately; the median over ``rounds`` of the difference.
    """
    options = plugin.options
    chains = {"without": ChainedPlugin(options, [DefaultPlugin(options)]), "with": ChainedPlugin(options, [plugin, DefaultPlugin(options)])}
    seconds: dict[str, list[float]] = {"without": [], "with": []}
    for _ in range(rounds):
        for label, chain in chains.items():
            start = time.perf_counter()
            for hook, questions in asked.items():
                ask = getattr(chain, hook)
                for fullname in questions:
                    ask(fullname)
            seconds[label].append(time.perf_counter() - start)
    extra = statistics.median(w - wo for w, wo in zip(seconds["with"], seconds["without"]))
    return max(extra, 0.0) / max(sum(len(questions) for questions in asked.values()), 1)


class _Trivial(Plugin):
    """A plugin whose type-analyze hook is Python that does nothing: what mypy's call into Python costs."""

    def get_type_analyze_hook(self, fullname: str) -> None:
        return None


def tight_layer(calls: int = 200_000, rounds: int = 7) -> tuple[float, float]:
    """What one timing layer costs per call in a tight loop (seconds): timed, and passed through (a nested call)."""
    tally_a, tally_b, tally_c, tally_d = Tally(), Tally(), Tally(), Tally()

    def nothing(fullname: str) -> None:
        return None

    once = _timed("x", nothing, tally_a)
    twice = _timed("x", _timed("x", nothing, tally_b), tally_c)
    passed = _timed("x", nothing, tally_d)
    tally_d.depth = 1
    timed_costs, passed_costs = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            once("m.Name")
        middle = time.perf_counter()
        for _ in range(calls):
            twice("m.Name")
        plain = time.perf_counter()
        for _ in range(calls):
            nothing("m.Name")
        through = time.perf_counter()
        for _ in range(calls):
            passed("m.Name")
        end = time.perf_counter()
        timed_costs.append((plain - middle) - (middle - start))
        passed_costs.append((end - through) - (through - plain))
    return max(statistics.median(timed_costs), 0.0) / calls, max(statistics.median(passed_costs), 0.0) / calls


def mypy_startup(modules: list[str], runs: int = 5) -> float:
    """Seconds for a new interpreter to import ``modules`` (those mypy's own run imported): part of every ``mypy`` command."""
    code = "import " + ", ".join(modules)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _mypy(config: str, cache: str) -> float:
    gc.collect()
    start = _clock()
    stdout, stderr, status = api.run(["--config-file", config, "--cache-dir", cache, "equinox"])
    if status not in (0, 1) or "[jitcheck-" in stdout:
        raise RuntimeError(f"mypy failed on equinox, or the plugin reported there ({status}):\n{stdout[-3000:]}\n{stderr[-3000:]}")
    return (_clock() - start) / 1e9


def main(spec_path: str) -> None:
    spec = json.loads(Path(spec_path).read_text())
    source = Path(spec["source"])
    os.chdir(source)
    config, cache = spec["config"], spec["cache"]
    _mypy(spec["baseline_config"], os.devnull)  # mypy's own imports paid
    mypy_modules = sorted(name for name in sys.modules if name == "mypy" or name.startswith("mypy."))
    start = _clock()
    plugin_module = importlib.import_module("mypy_plugin")
    import_seconds = (_clock() - start) / 1e9
    base = plugin_module.JitcheckPlugin
    instances: list[Plugin] = []

    def entry(outer: Tally, inner: Tally, asked: dict[str, list[str]] | None) -> None:
        timed = timed_plugin(base, outer, inner, asked)
        setattr(plugin_module, "plugin", lambda version: timed)  # mypy asks the module's entry point for the class
        timed.__init__ = _keep(timed.__init__, instances)  # type: ignore[method-assign]

    # Counting runs: the questions answered from tables, cold and warm.
    asked: dict[str, dict[str, list[str]]] = {"cold": {}, "warm": {}}
    entry(Tally(), Tally(), None)
    _mypy(config, cache)  # the warm cache filled
    for kind in ("cold", "warm"):
        if kind == "warm":
            edit_equinox(source)
        entry(Tally(), Tally(), asked[kind])
        _mypy(config, os.devnull if kind == "cold" else cache)
    tight = tight_layer()
    questions = asked["cold"].get("get_type_analyze_hook", [])[:100_000]
    call = replayed_cost(_Trivial(instances[-1].options), {"get_type_analyze_hook": questions})
    startup = mypy_startup(mypy_modules)
    runs: dict[str, list[dict[str, object]]] = {"cold": [], "warm": []}
    for _ in range(spec["rounds"]):
        for kind in ("cold", "warm"):
            if kind == "warm":
                edit_equinox(source)
            outer, inner = Tally(), Tally()
            entry(outer, inner, None)
            total = _mypy(config, os.devnull if kind == "cold" else cache)
            count = sum(len(questions) for questions in asked[kind].values())
            per_lookup = replayed_cost(instances[-1], asked[kind])  # its tables filled by the run
            runs[kind].append(_parts(total, outer, inner, import_seconds, count, per_lookup, tight, call, startup))
    print(json.dumps(runs))


def _keep(construct: Callable[..., None], into: list[Plugin]) -> Callable[..., None]:
    def keep(self: Plugin, options: Options) -> None:
        construct(self, options)
        into.append(self)

    return keep


def _parts(
    total: float,
    outer: Tally,
    inner: Tally,
    import_seconds: float,
    lookups: int,
    per_lookup: float,
    tight: tuple[float, float],
    call: float,
    startup: float,
) -> dict[str, object]:
    """One run's figures, in seconds: with the plugin, mypy alone, the plugin, and what they are made of."""
    timed_tight, passed_tight = tight
    timed = inner.total / 1e9
    layer = max(outer.total / 1e9 - timed, 0.0)
    in_run_factor = max(layer / max(outer.calls, 1) / timed_tight, 1.0) if timed_tight else 1.0
    passes = (outer.nested + inner.nested) * passed_tight * in_run_factor  # the layers a nested call passed through, inside the timed total
    code = max(timed - passes, 0.0)
    lookup_seconds = lookups * per_lookup * in_run_factor
    calls_seconds = inner.calls * call * in_run_factor
    return {
        "total": total,
        "with_plugin": total - 2 * layer - passes,
        "mypy_alone": total - 2 * layer - calls_seconds - timed - lookup_seconds,
        "plugin": calls_seconds + code + lookup_seconds + import_seconds,
        "python_calls": inner.calls,
        "nested_calls": inner.nested,
        "code": code,
        "passes": passes,
        "layer": layer,
        "calls_seconds": calls_seconds,
        "lookups": lookups,
        "lookup_seconds": lookup_seconds,
        "in_run_factor": in_run_factor,
        "import": import_seconds,
        "startup": startup,
        "by_name": {name: {"calls": n, "seconds": ns / 1e9} for name, (n, ns) in sorted(inner.by_name.items(), key=lambda kv: -kv[1][1])},
    }


if __name__ == "__main__":
    main(sys.argv[1])
