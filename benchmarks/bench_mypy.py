"""The mypy plugin's cost: mypy on fixtures/ plus jitcheck/, and on equinox (a codebase that
never mentions jitcheck), with and without the plugin.

Both runs read and write no cache (``--cache-dir=/dev/null``), so each analyses
everything it imports (typeshed, numpy, jax) as a first run in a fresh checkout
does. They alternate, and each figure is the best of several runs of the child
process's CPU time (user + system), which the other work on a shared machine
disturbs less than wall time.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import Figure, Section

ROOT = Path(__file__).resolve().parent.parent
TARGETS = ("fixtures", "jitcheck")
CONFIG = """\
[tool.mypy]
python_version = "3.11"
strict = true
explicit_package_bases = true
{plugins}
"""


def _child_env(pythonpath: str, work: Path) -> dict[str, str]:
    """The environment of a mypy child: ``pythonpath`` first, bytecode cached under ``work``.

    A user's Python imports the plugin from compiled bytecode (pip writes it at install,
    an editable checkout on first import); a shell with ``PYTHONDONTWRITEBYTECODE`` set
    would make every run compile the plugin's source again, a cost users do not pay.
    The cache lives in ``work`` (``PYTHONPYCACHEPREFIX``), so the checkout is not written.
    """
    return dict(os.environ, PYTHONPATH=pythonpath, PYTHONDONTWRITEBYTECODE="", PYTHONPYCACHEPREFIX=str(work / "pycache"))


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _mypy_seconds(config: Path, cache: str = os.devnull, cwd: Path = ROOT) -> float:
    """CPU seconds of one ``mypy --strict fixtures jitcheck`` run in ``cwd`` (no cache unless ``cache`` is given)."""
    env = _child_env(os.pathsep.join([str(cwd), *filter(None, [os.environ.get("PYTHONPATH")])]), config.parent)
    before = _child_cpu()
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", cache, *TARGETS],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = _child_cpu() - before
    if done.returncode not in (0, 1):
        raise RuntimeError(f"mypy failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    if ("mypy_plugin" in config.read_text()) != ("[jitcheck-" in done.stdout):
        raise RuntimeError(f"the plugin was not loaded, or reported without being enabled:\n{done.stdout}")
    return seconds


def _user_modules_seconds(config: Path, workdir: Path, warm_cache: Path) -> float:
    """CPU seconds of re-checking fixtures/ and jitcheck/ alone, everything they import cached.

    The targets are copies in ``workdir``, edited (a comment appended) so mypy checks
    them again while typeshed, numpy and jax come from ``warm_cache``.
    """
    cache = workdir / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    shutil.copytree(warm_cache, cache)
    for target in TARGETS:
        for path in (workdir / target).rglob("*.py"):
            if path.name == "rules.py":
                continue  # the plugin's version hashes the rule catalogue: editing it invalidates every module
            with path.open("a") as handle:
                handle.write("# edited\n")
    return _mypy_seconds(config, str(cache), cwd=workdir)


def _copy_checkout(workdir: Path) -> None:
    for name in (*TARGETS, "mypy_plugin"):
        shutil.copytree(ROOT / name, workdir / name, ignore=shutil.ignore_patterns("__pycache__"))


EQUINOX_CONFIG = """\
[tool.mypy]
python_version = "3.11"
ignore_missing_imports = true
follow_imports = "silent"
{plugins}
"""


def _equinox_copy(work: Path) -> Path:
    """equinox's source (installed from PyPI), copied into ``work`` so mypy checks it as user code."""
    import equinox

    target = work / "equinox-src"
    shutil.copytree(Path(equinox.__file__).parent, target / "equinox", ignore=shutil.ignore_patterns("__pycache__"))
    return target


def _equinox_seconds(config: Path, source: Path, cache: str) -> float:
    """CPU seconds of ``mypy equinox`` in ``source``; the plugin must add no error there."""
    before = _child_cpu()
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", cache, "equinox"],
        cwd=source,
        env=_child_env(str(ROOT), config.parent),
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = _child_cpu() - before
    if done.returncode not in (0, 1) or "[jitcheck-" in done.stdout:
        raise RuntimeError(f"mypy failed on equinox, or the plugin reported there ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return seconds


def equinox_figures(work: Path, repeat: int) -> list[Figure]:
    """mypy on equinox with and without the plugin: no cache, and re-checked over a warm cache."""
    source = _equinox_copy(work)
    configs = {}
    for name, plugins in (("with", 'plugins = ["mypy_plugin"]'), ("without", "")):
        configs[name] = work / f"equinox-{name}.toml"
        configs[name].write_text(EQUINOX_CONFIG.format(plugins=plugins))
    cold: dict[str, list[float]] = {"with": [], "without": []}
    warm: dict[str, list[float]] = {"with": [], "without": []}
    caches = {name: work / f"equinox-cache-{name}" for name in configs}
    for name in configs:
        _equinox_seconds(configs[name], source, str(caches[name]))
        _equinox_seconds(configs[name], source, str(caches[name]))  # warm-up: the cache complete
    for round_ in range(repeat):
        for name in ("without", "with") if round_ % 2 == 0 else ("with", "without"):
            cold[name].append(_equinox_seconds(configs[name], source, os.devnull))
            for path in (source / "equinox").rglob("*.py"):
                with path.open("a") as handle:
                    handle.write("# edited\n")  # equinox re-checked, jax from the warm cache
            warm[name].append(_equinox_seconds(configs[name], source, str(caches[name])))
    return [
        _figure("mypy equinox (never mentions jitcheck), no cache", cold, repeat, target=1.02),
        _figure("mypy equinox, re-checked over a warm cache (jax cached)", warm, repeat, target=1.02),
    ]


def run(quick: bool) -> Section:
    repeat = 2 if quick else 5
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        configs = {}
        for name, plugins in (("with", 'plugins = ["mypy_plugin"]'), ("without", "")):
            configs[name] = work / f"{name}.toml"
            configs[name].write_text(CONFIG.format(plugins=plugins))
        cold: dict[str, list[float]] = {"with": [], "without": []}
        for _ in range(repeat):
            for name in ("without", "with"):
                cold[name].append(_mypy_seconds(configs[name]))
        warm: dict[str, list[float]] = {"with": [], "without": []}
        checkouts, caches = {}, {}
        for name in ("without", "with"):
            checkouts[name] = work / f"checkout-{name}"
            _copy_checkout(checkouts[name])
            caches[name] = work / f"warm-{name}"
            _mypy_seconds(configs[name], str(caches[name]), cwd=checkouts[name])
        for _ in range(repeat):
            for name in ("without", "with"):
                warm[name].append(_user_modules_seconds(configs[name], checkouts[name], caches[name]))
        figures = [
            _figure("mypy --strict fixtures/ jitcheck/, no cache", cold, repeat),
            _figure("the same, only fixtures/ and jitcheck/ re-checked (imports cached)", warm, repeat),
            *equinox_figures(work, repeat),
        ]
    return Section(
        title="mypy plugin",
        figures=figures,
        notes=[
            "No cache: each run analyses everything it imports (typeshed, numpy, jax), as a first run does. "
            "Re-checked: the imports come from a warm cache and only the edited fixtures/ and jitcheck/ are "
            "analysed, where the plugin's hooks do most of their work.",
            "The children import the plugin from bytecode cached in the run's temporary folder, as an installed "
            "or already-imported package does (the first run of each kind compiles it).",
            "equinox (its PyPI source, copied and checked as user code, imports followed silently): the plugin's "
            "hooks are asked about every name and call there and answer from set lookups; rounds alternate which "
            "configuration runs first. No jitcheck error may appear in equinox.",
        ],
    )


def _figure(name: str, seconds: dict[str, list[float]], repeat: int, target: float = 1.10) -> Figure:
    return Figure(
        name=name,
        subject="with the jitcheck plugin",
        baseline="without plugins",
        subject_seconds=min(seconds["with"]),
        baseline_seconds=min(seconds["without"]),
        target=target,
        note=f"child CPU seconds, best of {repeat} alternating runs each (with: "
        f"{', '.join(f'{s:.2f}' for s in seconds['with'])}; without: {', '.join(f'{s:.2f}' for s in seconds['without'])})",
    )
