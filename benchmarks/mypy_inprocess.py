"""The child of bench_mypy's equinox figures: mypy run in this one interpreter, configurations alternating.

Every configuration runs once first (filling its warm cache), so mypy's own imports and
the plugin's are paid before any timed run; each timed run is ``mypy.api.run`` measured
in this process's CPU time (``time.process_time``), a collection done before it. Usage:
``python mypy_inprocess.py SPEC.json``, SPEC naming the folder to check from, the
configurations (name: config file), the caches (name: folder), the rounds and whether
any configuration loads the plugin; prints
``{"cold": {name: [seconds, ...]}, "warm": {...}}`` as JSON.
"""

from __future__ import annotations

import gc
import itertools
import json
import os
import sys
import time
from pathlib import Path

from mypy import api


def _run(config: str, cache: str) -> float:
    gc.collect()
    start = time.process_time()
    stdout, stderr, status = api.run(["--config-file", config, "--cache-dir", cache, "equinox"])
    seconds = time.process_time() - start
    if status not in (0, 1) or "[jitcheck-" in stdout:
        raise RuntimeError(f"mypy failed on equinox, or the plugin reported there ({status}):\n{stdout[-3000:]}\n{stderr[-3000:]}")
    return seconds


def edit_equinox(source: Path) -> None:
    """Append a comment to every module, so a warm run checks equinox again (jax still cached)."""
    for path in (source / "equinox").rglob("*.py"):
        with path.open("a") as handle:
            handle.write("# edited\n")


def main(spec_path: str) -> None:
    spec = json.loads(Path(spec_path).read_text())
    source = Path(spec["source"])
    os.chdir(source)
    configs: dict[str, str] = spec["configs"]
    caches: dict[str, str] = spec["caches"]
    names = list(configs)
    for name in names:
        _run(configs[name], caches[name])  # imports paid, cache filled
    cold: dict[str, list[float]] = {name: [] for name in names}
    warm: dict[str, list[float]] = {name: [] for name in names}
    # Every order of the configurations in turn: each takes each place, after each other one, equally often.
    orders = list(itertools.permutations(names))
    for round_ in range(spec["rounds"]):
        for name in orders[round_ % len(orders)]:
            cold[name].append(_run(configs[name], os.devnull))
            edit_equinox(source)
            warm[name].append(_run(configs[name], caches[name]))
    print(json.dumps({"cold": cold, "warm": warm}))


if __name__ == "__main__":
    main(sys.argv[1])
