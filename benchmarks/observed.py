"""Observed labels for the corpus: run libraries' tests under jitcheck's recompile recorder.

    python benchmarks/observed.py --keep DIR                       # install, run, derive, compare
    python benchmarks/observed.py --keep DIR --libraries optax,chex
    python benchmarks/observed.py --keep DIR --derive-only         # labels from the records already in DIR
    python benchmarks/observed.py --keep DIR --write               # also rewrite benchmarks/corpus/observed.tsv

For each chosen corpus library (at the version benchmarks/real_world.py pins), a throwaway
virtualenv in DIR/venvs/NAME gets the library with its dependencies and what its tests
import, over a base environment holding jax and jitcheck's own dependencies (DIR/base,
made here, or --base-venv); jitcheck itself runs from this checkout (PYTHONPATH). The
library's sdist (tests, examples) is unpacked in DIR/corpus. Each test file with a jit site
then runs under ``pytest --jitcheck-recompiles --jitcheck-recompiles-json`` with a time
limit, and benchmarks/corpus/observation.py turns the records into per-site labels by the
one standard of docs/real-world.md. Everything is downloaded here, never by the test suite;
without a reachable package index the run stops with exit 3, as real_world.py does.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import real_world  # noqa: E402
from benchmarks.corpus import observation, scoring  # noqa: E402

OBSERVED = ROOT / "benchmarks" / "corpus" / "observed.tsv"
JAX_PIN = "0.10.2"
"""The jax every environment runs (jitcheck's own pin): a library that needs another is skipped."""


@dataclasses.dataclass(frozen=True)
class Plan:
    """How to run one library: what its tests import beyond its dependencies, and what to leave out (with why)."""

    packages: tuple[str, ...]
    """Its import names (to map the installed package back to the sdist's copy)."""
    test_requires: tuple[str, ...] = ()
    skip: tuple[tuple[str, str], ...] = ()
    """(path prefix in the sdist, reason): files not run."""
    extra_files: tuple[str, ...] = ()
    """Examples or scripts run besides the test files (each must finish on CPU in minutes)."""


PLANS: dict[str, Plan] = {
    "optax": Plan(("optax",), ("absl-py", "pytest", "flax", "scikit-learn")),
    "chex": Plan(("chex",), ("absl-py", "cloudpickle", "dm-tree", "pytest")),
    "numpyro": Plan(("numpyro",), ("pytest", "scipy")),
    "tinygp": Plan(("tinygp",), ("pytest",)),
    "dynamax": Plan(("dynamax",), ("pytest", "scikit-learn")),
    "gpjax": Plan(("gpjax",), ("pytest", "networkx")),
    "flowjax": Plan(("flowjax",), ("pytest", "beartype", "numpyro")),
    "quax": Plan(("quax",), ("pytest", "pytest-benchmark")),
    "dm-pix": Plan(("dm_pix",), ("absl-py", "pytest", "scipy"),
                   skip=(("dm_pix/", "its tests import tensorflow (compared with tf.image), which is not installed"),)),
    "penzai": Plan(("penzai",), ("absl-py", "pytest", "flax", "optax")),
    "jax-cosmo": Plan(("jax_cosmo",), ("pytest",)),
    "jax-cfd": Plan(("jax_cfd",), ("absl-py", "pytest")),
    "brainstate": Plan(("brainstate",), ("absl-py", "pytest", "tqdm", "brainunit")),
    "flax": Plan(("flax",), ("absl-py", "pytest", "einops", "jaxtyping", "ml-collections")),
    "jaxns": Plan(("jaxns",), ("pytest", "scikit-learn", "networkx", "psutil", "cloudpickle")),
    "equinox": Plan(("equinox",), ("pytest", "beartype", "optax")),
    "rejax": Plan(("rejax",), ("pytest",), skip=tuple(
        (f"tests/test_compat_{env}.py", f"needs the {env} environments (rejax[compat]: heavy simulators), not installed")
        for env in ("brax", "craftax", "gymnasium", "jumanji", "kinetix", "navix"))),
    "brainpy": Plan(("brainpy",), ("absl-py", "pytest")),
}


def site_packages(venv: Path) -> Path:
    """The venv's site-packages folder (this Python's layout)."""
    relative = Path(sysconfig.get_path("purelib")).relative_to(sys.prefix)
    return venv / relative


def make_base(folder: Path) -> Path:
    """A venv holding jax at jitcheck's pin, pytest and jitcheck's dependencies (made once, reused)."""
    base = folder / "base"
    marker = base / ".ready"
    if marker.is_file():
        return base
    subprocess.run([sys.executable, "-m", "venv", str(base)], check=True)
    deps = ["pytest", "absl-py", f"jax=={JAX_PIN}", f"jaxlib=={JAX_PIN}", "libcst~=1.9", "mypy>=2.4,<3", "beartype~=0.23", "pathspec>=0.12"]
    subprocess.run([str(base / "bin" / "python"), "-m", "pip", "install", "--quiet", *deps], check=True, timeout=1800)
    # jitcheck's pytest plugin is found through its entry point: install the checkout's metadata, its code runs from PYTHONPATH
    subprocess.run([str(base / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps", str(ROOT)], check=True, timeout=1800)
    marker.write_text("ok\n")
    return base


class IndexUnreachable(OSError):
    """pip found no version at all of a package the corpus pins (or could not connect): no package index answered."""


OFFLINE = ("(from versions: none)", "NewConnectionError", "Temporary failure in name resolution", "Network is unreachable")
"""What pip's log says when no package index answered (a pinned corpus version exists on PyPI: "none" means unreachable)."""


def make_env(folder: Path, name: str, version: str, plan: Plan, base: Path) -> tuple[Path | None, str]:
    """A venv for one library over the base (a .pth file makes the base's packages visible); (venv, "") or (None, why not)."""
    venv = folder / "venvs" / name
    marker = venv / ".ready"
    wanted = " ".join([f"{name}=={version}", *plan.test_requires]) + "\n"
    if marker.is_file() and marker.read_text() == wanted:
        return venv, ""
    if not (venv / "bin" / "python").is_file():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    (site_packages(venv) / "_observed_base.pth").write_text(f"{site_packages(base)}\n")
    constraints = folder / "constraints.txt"
    constraints.write_text(f"jax=={JAX_PIN}\njaxlib=={JAX_PIN}\n")
    log = folder / "logs" / f"install-{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as out:
        done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-c", str(constraints),
                               f"{name}=={version}", *plan.test_requires], stdout=out, stderr=subprocess.STDOUT, timeout=3600)
    if done.returncode:
        text = log.read_text()
        if any(sign in text for sign in OFFLINE):
            raise IndexUnreachable(f"pip could not reach a package index to install {name}=={version} and its test requirements (its log: {log})")
        tail = text.strip().splitlines()[-3:]
        return None, f"pip could not install {name}=={version} with jax {JAX_PIN}: {' / '.join(tail)}"
    marker.write_text(wanted)
    return venv, ""


def is_test_file(path: str) -> bool:
    """A pytest-collected test module by pytest's default names (``test_*.py``, ``*_test.py``)."""
    name = Path(path).name
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def chosen_files(root: Path, labels: list[scoring.Label], plan: Plan) -> tuple[list[str], list[tuple[str, str]]]:
    """The test files to run (those with a jit-like site or a labelled site) and the files left out, with why."""
    labelled = {label.path for label in labels}
    run: list[str] = []
    others: list[str] = []
    skipped: list[tuple[str, str]] = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if not is_test_file(relative):
            continue
        reason = next((why for prefix, why in plan.skip if relative.startswith(prefix)), None)
        if reason:
            skipped.append((relative, reason))
            continue
        try:
            has_jit = bool(observation.jit_sites(path.read_text(encoding="utf-8", errors="replace")))
        except SyntaxError:
            skipped.append((relative, "does not parse"))
            continue
        if has_jit or relative in labelled:
            run.append(relative)
        else:
            others.append(relative)
    if not run:  # no test jits anything itself: its tests still run the package's jit sites
        run, others = others, []
    # files with labelled sites first: a time budget spent on them settles hand labels
    run.sort(key=lambda relative: (relative not in labelled, relative))
    return run + list(plan.extra_files), skipped


def jitcheck_path(folder: Path, package: Path = ROOT / "jitcheck") -> Path:
    """A folder holding only this checkout's ``jitcheck`` package: put on PYTHONPATH, it wins over any installed copy
    without putting the checkout's own ``tests`` and ``benchmarks`` packages in front of the library's."""
    holder = folder / "jitcheck-path"
    holder.mkdir(parents=True, exist_ok=True)
    link = holder / "jitcheck"
    if link.is_symlink() and link.resolve() != package.resolve():
        link.unlink()
    if not link.exists():
        link.symlink_to(package.resolve(), target_is_directory=True)
    return holder


def run_file(venv: Path, root: Path, relative: str, out: Path, timeout: float, folder: Path,
             package: Path = ROOT / "jitcheck") -> tuple[int | str, float]:
    """Run one test file (or script) under the recorder; (pytest's exit code or why it stopped, seconds)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=str(jitcheck_path(folder, package)), PYTHONDONTWRITEBYTECODE="1")
    env.pop("VIRTUAL_ENV", None)
    if is_test_file(relative):
        command = [str(venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                   "-p", "no:xdist", "--jitcheck-recompiles", "--jitcheck-recompiles-json", str(out), relative]
    else:
        command = [str(venv / "bin" / "python"), "-m", "jitcheck.debug", "run", "--recompiles", "--recompiles-json", str(out), relative]
    log = out.with_suffix(".log")
    start = time.perf_counter()
    with log.open("w") as handle:
        process = subprocess.Popen(command, cwd=root, env=env, stdout=handle, stderr=subprocess.STDOUT)
        try:
            status: int | str = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            # Ctrl-C: pytest ends the session and the recorder writes all it saw; if a long XLA compile keeps
            # Python from seeing it, the kill still leaves the file the recorder rewrote after each finished test
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            status = f"interrupted after {timeout:.0f} s"
    return status, time.perf_counter() - start


def installed_packages(venv: Path, plan: Plan) -> dict[str, Path]:
    """Where the venv imports each of the library's packages from (run outside the sdist, so the installed copy)."""
    found = {}
    for package in plan.packages:
        # the venv's own site-packages, then the base's (a .pth file names it): no interpreter to start
        folders = [site_packages(venv)]
        pth = site_packages(venv) / "_observed_base.pth"
        if pth.is_file():
            folders += [Path(line) for line in pth.read_text().split()]
        where = next((folder / package for folder in folders if (folder / package / "__init__.py").is_file()), None)
        if where is not None:
            found[package] = where
            continue
        done = subprocess.run([str(venv / "bin" / "python"), "-c", f"import os, {package}; print(os.path.dirname({package}.__file__))"],
                              capture_output=True, text=True, cwd=tempfile.gettempdir(), env=dict(os.environ, JAX_PLATFORMS="cpu"), timeout=600)
        if done.returncode == 0 and done.stdout.strip():
            found[package] = Path(done.stdout.strip().splitlines()[-1])
    return found


NOT_WRAPPERS = frozenset({"jax", "transformed"})
"""Recorder sites that are no jit-like wrapper of the library's: jax's own jitted functions, eager operations."""


def records_from_json(data: object) -> list[observation.Site]:
    """The sites of one recorder JSON file (docs/debug.md, "Recorded recompiles"); a site with no place is left out."""
    entries = data.get("sites", []) if isinstance(data, dict) else []
    sites = []
    for entry in entries:
        path, line = entry.get("path"), entry.get("line")
        if path is None or line is None or entry.get("internal") or entry.get("wrapper") in NOT_WRAPPERS:
            continue
        causes = entry.get("causes") or {}
        sites.append(observation.Site(
            str(path), int(line), compiles=int(entry.get("compiles", 0)), avoidable=int(entry.get("avoidable_compiles", 0)),
            nested=int(entry.get("nested_traces", 0)), programs=int(entry.get("distinct_programs", 0)),
            deliberate=int(entry.get("deliberate_compiles", 0)),
            causes=Counter({str(kind): int(n) for kind, n in causes.items() if n})))
    return sites


def observe_library(name: str, version: str, root: Path, records: list[Path], packages: dict[str, Path]) -> list[observation.Observed]:
    """The observed labels of one library from its record files: sites mapped to the sdist and to their label line.

    Each record file is one run: the entries of one site in it (one per jitted function) add up to
    that run's count, and runs add up across files.
    """
    sources: dict[str, str] = {}
    runs: list[observation.Site] = []
    for record in records:
        try:
            data = json.loads(record.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            _set_aside_deliberate(data, root, packages, sources)
        mapped = []
        for site in records_from_json(data):
            if site.path.startswith("<"):  # code made at run time (exec, a notebook cell): no file to label
                continue
            relative = observation.sdist_path(site.path if Path(site.path).is_absolute() else str(root / site.path), root, packages)
            if relative is None:
                continue
            _read_source(root, relative, sources)
            try:
                spans = observation.jit_sites(sources[relative])
            except SyntaxError:
                spans = {}
            site.path, site.line = relative, spans.get(site.line, site.line)
            mapped.append(site)
        runs += observation.merge(mapped, one_run=True).values()
    return observation.derive(name, version, observation.merge(runs), sources)


def _read_source(root: Path, relative: str, sources: dict[str, str]) -> None:
    """Read the sdist's file ``relative`` into ``sources`` once (empty when it cannot be read)."""
    if relative not in sources:
        try:
            sources[relative] = (root / relative).read_text(encoding="utf-8", errors="replace")
        except OSError:
            sources[relative] = ""


def _complete(record: Path) -> bool | None:
    """Whether a record file holds a whole run (False: cut short by the time limit; None: no file)."""
    try:
        return bool(json.loads(record.read_text()).get("complete", True))
    except (OSError, ValueError):
        return None


def _set_aside_deliberate(data: dict[str, Any], root: Path, packages: dict[str, Path], sources: dict[str, str]) -> None:
    """Take out the avoidable compiles of the functions that count their traces on purpose
    (`observation.counts_traces_of`, looked up in the files that called them): the test means them."""
    for entry in data.get("sites", []) or []:
        if not isinstance(entry, dict) or not entry.get("avoidable_compiles"):
            continue
        for call_site in entry.get("call_sites") or []:
            relative = observation.sdist_path(str(call_site).rsplit(":", 2)[0], root, packages)
            if relative is None:
                continue
            _read_source(root, relative, sources)
            try:
                deliberate = observation.counts_traces_of(sources[relative], str(entry.get("function", "")))
            except SyntaxError:
                deliberate = False
            if deliberate:
                entry["deliberate_compiles"], entry["avoidable_compiles"], entry["causes"] = entry["avoidable_compiles"], 0, {}
                break


def record_file(folder: Path, name: str, relative: str) -> Path:
    return folder / "records" / name / (relative.replace("/", "__") + ".json")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, help="work in (and reuse) this folder instead of a temporary one")
    parser.add_argument("--libraries", help=f"comma-separated names (default: all planned: {', '.join(PLANS)})")
    parser.add_argument("--base-venv", type=Path, help="a venv with jax and jitcheck's dependencies to build on (default: make DIR/base)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds one test file may run (default %(default)s)")
    parser.add_argument("--budget", type=float, default=900.0,
                        help="seconds of test runs per library: no new file starts after that (default %(default)s)")
    parser.add_argument("--jitcheck-package", type=Path, default=ROOT / "jitcheck",
                        help="the jitcheck package the runs import (default: this checkout's, %(default)s)")
    parser.add_argument("--rerun", action="store_true", help="run files again even where DIR holds their records")
    parser.add_argument("--derive-only", action="store_true", help="derive the labels from the records already in --keep")
    parser.add_argument("--write", action="store_true", help=f"write the labels to {OBSERVED.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    pins = dict(real_world.ALL)
    names = list(PLANS)
    if args.libraries:
        names = [n.strip() for n in args.libraries.split(",") if n.strip()]
        unknown = [n for n in names if n not in PLANS or n not in pins]
        if unknown:
            print(f"error: --libraries: no plan for {', '.join(unknown)}; planned: {', '.join(PLANS)}", file=sys.stderr)
            return 2
    hand = scoring.load_labels(real_world.LABELS)
    with tempfile.TemporaryDirectory(prefix="jitcheck-observed-") as temporary:
        folder = (args.keep or Path(temporary)).resolve()
        try:
            roots = real_world.download(folder / "corpus", [(n, pins[n]) for n in names])
            base = args.base_venv.resolve() if args.base_venv else (None if args.derive_only else make_base(folder))
        except (subprocess.SubprocessError, OSError) as error:
            print(f"error: could not download the libraries or their dependencies (no package index?): {error}", file=sys.stderr)
            return 3
        summary: dict[str, object] = {}
        observed: list[observation.Observed] = []
        for name in names:
            version, plan, root = pins[name], PLANS[name], roots[name]
            entry: dict[str, object] = {"version": version}
            summary[name] = entry
            venv: Path | None = folder / "venvs" / name
            if not args.derive_only:
                assert base is not None
                try:
                    venv, why = make_env(folder, name, version, plan, base)
                except IndexUnreachable as error:
                    print(f"error: {error}; no package index? (the records already in {folder} stay)", file=sys.stderr)
                    return 3
                if venv is None:
                    entry["skipped"] = why
                    print(f"{name} {version}: skipped: {why}", flush=True)
                    continue
            files, skipped = chosen_files(root, [h for h in hand if h.library == name], plan)
            if not files:
                entry["skipped"] = "its sdist holds no test file to run (nothing left after the skips)"
            skipped_files = entry["skipped_files"] = dict(skipped)
            ran: dict[str, object] = {}
            spent = 0.0
            for relative in files:
                out = record_file(folder, name, relative)
                if args.derive_only or (out.is_file() and not args.rerun):
                    continue
                if spent >= args.budget:
                    skipped_files[relative] = f"the library's time budget ({args.budget:.0f} s) was spent"
                    continue
                assert venv is not None  # set by make_env unless --derive-only, which runs nothing
                status, seconds = run_file(venv, root, relative, out, args.timeout, folder, args.jitcheck_package)
                spent += seconds
                ran[relative] = {"status": status, "seconds": round(seconds, 1), "recorded": out.is_file(), "complete": _complete(out)}
                if status not in (0, 1) and not str(status).startswith("interrupted"):
                    errors = [line.strip() for line in out.with_suffix(".log").read_text(errors="replace").splitlines()
                              if line.startswith("E   ")]
                    ran[relative]["error"] = errors[-1] if errors else f"exit {status}"  # type: ignore[index]
                print(f"{name}: {relative}: {status} in {seconds:.0f} s", flush=True)
            entry["files"] = ran
            packages = installed_packages(venv, plan) if venv and (venv / "bin" / "python").is_file() else {}
            labels = observe_library(name, version, root, [record_file(folder, name, f) for f in files], packages)
            entry["labels"] = len(labels)
            entry["bugs"] = sum(label.is_bug for label in labels)
            observed += labels
        # a summary per library, kept across runs of other libraries into the same folder
        previous = folder / "summary.json"
        merged = json.loads(previous.read_text()) if previous.is_file() else {}
        merged.update(summary)
        previous.write_text(json.dumps(merged, indent=2))
        report(observed, hand)
        if args.write:
            write_labels(OBSERVED, observed, names)
            print(f"wrote {len(observed)} observed labels of {', '.join(names)} to {OBSERVED.relative_to(ROOT)}")
    return 0


def write_labels(path: Path, observed: list[observation.Observed], libraries: list[str]) -> None:
    """Write the labels of ``libraries`` into ``path``, keeping the labels of every other library it holds
    (a run of some libraries replaces their labels, never the others')."""
    kept = [o for o in observation.load(path) if o.library not in libraries] if path.is_file() else []
    observation.write(path, kept + observed)


def report(observed: list[observation.Observed], hand: list[scoring.Label]) -> None:
    """Per library: observed labels and bugs, and every disagreement with a hand label (the observed one stands)."""
    counts: Counter[tuple[str, str]] = Counter((o.library, o.label) for o in observed)
    print("| library | observed labels | bug | fine |\n|---|---|---|---|")
    for library in sorted({o.library for o in observed}):
        print(f"| {library} | {counts[library, 'bug'] + counts[library, 'fine']} | {counts[library, 'bug']} | {counts[library, 'fine']} |")
    print(f"| **all** | {len(observed)} | {sum(o.is_bug for o in observed)} | {sum(not o.is_bug for o in observed)} |")
    for label, hand_label in observation.disagreements(observed, hand):
        print(f"- disagrees: {label.location}: observed {label.label} ({label.evidence}); hand label {hand_label.label}: {hand_label.reason}")


if __name__ == "__main__":
    raise SystemExit(main())
