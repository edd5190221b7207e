"""The import report: a package imported in debug mode, each graph it builds traced, every place's shape shown.

``python -m jitcheck.debug report mypkg`` (or ``jitcheck debug-report mypkg``)
switches debug mode on for ``mypkg`` (beartype included), imports the package and
every submodule, and prints per module each graph traced as it was built with every
place's shape and dtype as a table, graphs built with nothing to trace them at, and
every finding (a node that fails to trace, a beartype violation, a refused graph,
a module that does not import) as ``path:line:col: JCxxx message`` with its
``help:`` line. ``--json`` prints the same for machines. Exit status: 0 when
nothing was found, 1 when something was, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import importlib.machinery
import importlib.util
import json
import linecache
import os
import pkgutil
import re
import sys
import traceback
from collections.abc import Iterable, Sequence
from typing import Any

from jitcheck import rules
from jitcheck.debug.location import Location, exception_location
from jitcheck.pipes import quiet_on_closed_stdout
from jitcheck.debug.settings import DebugSettingError, package_names

_PROG = "jitcheck debug-report"


@dataclasses.dataclass(frozen=True)
class Finding:
    """A violation found while importing, and where in the user's code it surfaced."""

    code: str
    message: str
    help: str
    where: str | None
    location: Location | None
    detail: str = dataclasses.field(default="", compare=False)

    def __str__(self) -> str:
        place = self.location
        message = f"[{self.where}] {self.message}" if self.where else self.message
        return rules.format_diagnostic(
            _shown_path(place.file) if place else "<unknown>", place.line if place else 0, place.column if place else 0, self.code, message, self.help
        )

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of this finding."""
        place = self.location
        return {
            "code": self.code,
            "message": self.message,
            "help": self.help,
            "where": self.where,
            "path": _shown_path(place.file) if place else None,
            "line": place.line if place else None,
            "column": place.column if place else None,
        }


@dataclasses.dataclass
class ModuleReport:
    """One module: whether it imported, the graphs built by its code (with their names), its findings."""

    module: str
    file: str | None
    imported: bool = False
    graphs: list[tuple[str | None, Any]] = dataclasses.field(default_factory=list)
    findings: list[Finding] = dataclasses.field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of this module's report."""
        return {
            "module": self.module,
            "file": _shown_path(self.file) if self.file else None,
            "imported": self.imported,
            "graphs": [_graph_json(name, record) for name, record in self.graphs],
            "findings": [f.to_json() for f in self.findings],
        }


def _graph_json(name: str | None, record: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"name": name, **record.to_json()}
    if found["location"] is not None:
        found["location"]["file"] = _shown_path(found["location"]["file"])
    return found


@dataclasses.dataclass
class ImportReport:
    """Everything debug mode saw while importing the targets."""

    targets: tuple[str, ...]
    packages: tuple[str, ...]
    modules: list[ModuleReport]
    retraces: list[Any]
    compiles: list[Any] = dataclasses.field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        """Every finding, module by module."""
        return [f for m in self.modules for f in m.findings]

    @property
    def ok(self) -> bool:
        """True when nothing was found: no finding and no retrace."""
        return not self.findings and not self.retraces

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of the whole report."""
        graphs = [r for m in self.modules for _, r in m.graphs]
        return {
            "targets": list(self.targets),
            "beartype_packages": list(self.packages),
            "modules": [m.to_json() for m in self.modules],
            "retraces": [r.to_json() for r in self.retraces],
            "compiles": [
                {
                    "transformation": c.transformation,
                    "function": c.function,
                    "location": None if c.location is None else {**c.location.to_json(), "file": _shown_path(c.location.file)},
                    "count": c.count,
                }
                for c in self.compiles
            ],
            "summary": {
                "modules": len(self.modules),
                "graphs_traced": sum(1 for r in graphs if r.kind == "traced"),
                "graphs_checked_only": sum(1 for r in graphs if r.kind == "checked"),
                "graphs_failed": sum(1 for r in graphs if r.kind == "failed"),
                "findings": len(self.findings),
                "retraces": len(self.retraces),
            },
        }


def _shown_path(path: str) -> str:
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


def resolve(target: str) -> tuple[str, str | None]:
    """The module name of ``target`` (a module name, or a path to a module or package) and the folder to import it from."""
    if target.endswith(".py") or os.sep in target or "/" in target or os.path.isdir(target):
        path = os.path.abspath(target.rstrip("/" + os.sep))
        if not os.path.exists(path):
            raise DebugSettingError(f"{target}: no such file or folder")
        if os.path.isdir(path):
            if not os.path.exists(os.path.join(path, "__init__.py")):
                raise DebugSettingError(f"{target}: a folder without __init__.py is not a package; name a package or a module")
            parts = [os.path.basename(path)]
        else:
            parts = [os.path.splitext(os.path.basename(path))[0]]
        folder = os.path.dirname(path)
        while os.path.exists(os.path.join(folder, "__init__.py")):
            parts.insert(0, os.path.basename(folder))
            folder = os.path.dirname(folder)
        if parts[-1] == "__init__":
            parts.pop()
        return ".".join(parts), folder
    return package_names([target], _PROG)[0], None


def module_names(name: str) -> list[tuple[str, str | None]]:
    """``name`` and, for a package, every submodule under it (but ``__main__``), with their files, found without importing them."""
    spec = _find_spec(name)
    if spec is None:
        raise DebugSettingError(f"no module named {name!r} (is its folder on sys.path? give a path instead)")
    found: list[tuple[str, str | None]] = [(name, spec.origin)]
    if spec.submodule_search_locations:
        found += _walk(list(spec.submodule_search_locations), name + ".")
    return found


def _find_spec(name: str) -> Any:
    """The spec of ``name``, found without importing its parent packages (their import is what the report watches)."""
    parts = name.split(".")
    spec = importlib.machinery.PathFinder.find_spec(parts[0]) if parts[0] not in sys.builtin_module_names else None
    if spec is None:
        spec = importlib.util.find_spec(parts[0])
    for i in range(1, len(parts)):
        if spec is None or not spec.submodule_search_locations:
            return None
        spec = importlib.machinery.PathFinder.find_spec(".".join(parts[: i + 1]), list(spec.submodule_search_locations))
    return spec


def _walk(locations: list[str], prefix: str) -> list[tuple[str, str | None]]:
    found: list[tuple[str, str | None]] = []
    for info in sorted(pkgutil.iter_modules(locations, prefix), key=lambda i: i.name):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue  # a package's command line: importing it would run the program
        finder: Any = info.module_finder
        spec = finder.find_spec(info.name) if hasattr(finder, "find_spec") else None
        found.append((info.name, getattr(spec, "origin", None)))
        if info.ispkg and spec is not None and spec.submodule_search_locations:
            found += _walk(list(spec.submodule_search_locations), info.name + ".")
    return found


def findings_of(error: BaseException) -> list[Finding]:
    """The findings an import failure stands for: a refusal's violations, a beartype violation, or the error itself."""
    from jitcheck.core.violations import Refused

    location = exception_location(error)
    detail = "".join(traceback.format_exception(error))
    if isinstance(error, Refused):
        return [
            Finding(v.code, v.message, v.help, v.where if v.where != "graph" else None, location, detail) for v in error.violations
        ]
    if type(error).__module__.startswith("beartype"):
        return [_beartype_finding(error, location, detail)]
    from jitcheck.debug.unhashable import explain

    label = explain(error)
    if label is not None:
        return [Finding(label.rule.code, label.message, label.help, None, location, detail)]
    text = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    rule = rules.IMPORT_FAILED
    return [Finding(rule.code, rule.format(error=text), rule.format_help(), None, location, detail)]


def _beartype_finding(error: BaseException, location: Location | None, detail: str) -> Finding:
    from jitcheck.core.keys import key_problems

    rule = rules.ANNOTATION_VIOLATION
    text = " ".join(str(error).split())
    causes: list[str] = []
    fixes: list[str] = []
    for culprit in getattr(error, "culprits", ()) or ():
        for problem in key_problems(culprit, "value"):
            fields = {**problem.fields, "position": "a graph label or place", "subject": repr(culprit)}
            causes.append(f"{problem.rule.format(**fields)} [{problem.rule.code}]")
            fixes.append(f"{problem.rule.code}: {problem.rule.format_help(**fields)}")
            break
    text = text.rstrip(".")
    message = rule.format(error=text + ("; " + "; ".join(causes) if causes else ""))
    fix = "; ".join(fixes) or "pass a value of the annotated type, or correct the annotation"
    return Finding(rule.code, message, rule.format_help(fix=fix), None, location, detail)


_ASSIGNED = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=]*)?=[^=]")


def _assigned_name(record: Any) -> str | None:
    """The name a module-level statement assigns the graph to, read from its source line (for modules that failed)."""
    where = record.location
    if where is None or not where.at_import:
        return None
    found = _ASSIGNED.match(linecache.getline(where.file, where.line))
    return found.group(1) if found else None


def _finding_key(finding: Finding) -> tuple[object, ...]:
    where = finding.location
    return (where.file if where else None, where.line if where else None, finding.code, finding.message)


def _names(module: object) -> dict[int, str]:
    """Module globals by the identity of their value (a Traced also names the graph it traced)."""
    from jitcheck.core.traced import Traced

    names: dict[int, str] = {}
    for name, value in list(vars(module).items()):
        if name.startswith("__"):
            continue
        names.setdefault(id(value), name)
        if isinstance(value, Traced):
            names.setdefault(id(value.valued), name)
    return names


def collect(
    targets: Sequence[str], *, packages: Iterable[str] | None = None, beartype: bool = True, conf: Any = None
) -> ImportReport:
    """Switch debug mode on, import every module of ``targets``, and report what it saw.

    ``packages`` are the packages beartype checks (by default the top-level
    packages of the targets; none when ``beartype`` is False).
    """
    from jitcheck.debug.mode import enable
    from jitcheck.debug.records import mark, records_since
    from jitcheck.debug.retrace import retrace_mark, retrace_reports_since

    resolved = [resolve(t) for t in targets]
    for _, folder in resolved:
        if folder is not None and folder not in sys.path:
            sys.path.insert(0, folder)
    names = [name for name, _ in resolved]
    hooked: tuple[str, ...] = ()
    if beartype:
        hooked = package_names(packages, _PROG) if packages is not None else tuple(dict.fromkeys(n.split(".")[0] for n in names))
    enable(hooked, conf=conf, on_retrace="record")
    first_retrace = retrace_mark()
    files: dict[str, str | None] = {}
    for name in names:
        for module_name, file in module_names(name):
            files.setdefault(module_name, file)
    reports = {name: ModuleReport(name, file) for name, file in files.items()}
    tops = {name.split(".")[0] for name in names}
    seen: set[tuple[object, ...]] = set()
    for name in reports:
        start = mark()
        error: BaseException | None = None
        try:
            importlib.import_module(name)
        except Exception as failure:
            error = failure
        built = records_since(start)
        found = findings_of(error) if error is not None else []
        fresh = [f for f in found if _finding_key(f) not in seen]
        if found and not fresh:
            continue  # a retry of an import that failed before: it built, and failed, the same again
        for record in built:
            if record.module in reports:
                reports[record.module].graphs.append((None, record))
            elif record.module.split(".")[0] not in tops:  # built by a helper elsewhere on behalf of this module
                reports[name].graphs.append((None, record))
            # else: a module of the same package that is not a target (imported by its parent): not reported here
        for finding in fresh:
            seen.add(_finding_key(finding))
            where = finding.location
            owner = where.module if where is not None and where.module in reports else name
            reports[owner].findings.append(finding)
    for name, report in reports.items():
        module = sys.modules.get(name)
        report.imported = module is not None
        names_here = _names(module) if module is not None else {}
        if module is not None:
            report.file = getattr(module, "__file__", None) or report.file
        report.graphs = _without_covered(_named([r for _, r in report.graphs], names_here))
    return ImportReport(tuple(targets), hooked, list(reports.values()), retrace_reports_since(first_retrace))


def from_records(targets: Sequence[str], packages: Sequence[str]) -> ImportReport:
    """A report of every graph recorded so far in this process, grouped by the module that built it, and every retrace."""
    from jitcheck.debug.records import graph_records
    from jitcheck.debug.retrace import retrace_reports

    modules: dict[str, ModuleReport] = {}
    for record in graph_records():
        name = record.module or "<unknown>"
        module = sys.modules.get(name)
        report = modules.get(name)
        if report is None:
            report = modules[name] = ModuleReport(name, record.location.file if record.location else None, module is not None)
        names_here = _names(module) if module is not None else {}
        report.graphs += _named([record], names_here)
    for report in modules.values():
        report.graphs = _without_covered(report.graphs)
    from jitcheck.debug.compiles import compile_records

    return ImportReport(tuple(targets), tuple(packages), list(modules.values()), retrace_reports(), compile_records())


def _named(found: list[Any], names_here: dict[int, str]) -> list[tuple[str | None, Any]]:
    """Each record with the module-level name of what it recorded; a folded record's other objects under their own names.

    A graph built again equal at the same line (a factory called twice) is folded
    into one record; when the module keeps the later one under another name, that
    name is listed too, as the same record with that object.
    """
    named: list[tuple[str | None, Any]] = []
    for record in found:
        first = names_here.get(id(record.subject)) or names_here.get(id(record.graph)) or _assigned_name(record)
        named.append((first, record))
        for other in record.others:
            name = names_here.get(id(other))
            if name is not None and name != first:
                graph = getattr(other, "graph", other) if record.kind != "checked" else other
                named.append((name, dataclasses.replace(record, subject=other, graph=graph, count=1, others=())))
    return named


def _without_covered(graphs: list[tuple[str | None, Any]]) -> list[tuple[str | None, Any]]:
    """The graphs, each checked-only graph equal to a traced one listed as traced (once, when nothing names it apart).

    A JitGraph wrapped in GraphWithValues is recorded twice (checked, then traced):
    it is listed once, as traced. A checked-only graph equal to a graph traced
    elsewhere, under a name of its own, is listed as traced too, with the shapes of
    the equal graph and where that one was traced.
    """
    from jitcheck.debug.records import traced_equal

    records = [r for _, r in graphs]
    kept: list[tuple[str | None, Any]] = []
    for name, record in graphs:
        equal = traced_equal(record, records)
        if equal is None:
            kept.append((name, record))
        elif equal.kind == "traced" and equal.graph is not record.graph and name is not None and name != _name_of(equal, graphs):
            kept.append((name, dataclasses.replace(record, kind="traced", places=equal.places, same_as=equal.location)))
    return kept


def _name_of(record: Any, graphs: list[tuple[str | None, Any]]) -> str | None:
    return next((name for name, r in graphs if r is record), None)


def _times(record: Any) -> str:
    """`` (built N times, equal)`` for a record that folds rebuilt equal graphs."""
    return f" (built {record.count} times, equal each time)" if record.count > 1 else ""


def _shape_text(shape: tuple[int, ...] | None) -> str:
    return "-" if shape is None else "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _table(rows: list[list[str]], indent: str) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]


def render_text(report: ImportReport) -> str:
    """The report for people: per module, each graph's places as a table, then the findings."""
    lines = [
        f"jitcheck debug report: {', '.join(report.targets)}"
        + (f" (beartype on {', '.join(report.packages)})" if report.packages else " (beartype off)"),
    ]
    traced_total = 0
    for module in report.modules:
        lines.append("")
        status = "" if module.imported else "  (did not import)"
        lines.append(f"{module.module}  {_shown_path(module.file) if module.file else ''}{status}".rstrip())
        shown = 0
        for name, record in module.graphs:
            shown += 1
            where = record.location
            at = f"{os.path.basename(where.file)}:{where.line}:{where.column}" if where else "?"
            nodes = f"{record.nodes} node{'s' if record.nodes != 1 else ''}"
            label = name or "(unnamed)"
            if record.kind == "failed":
                lines.append(f"  {label}: {record.type_name} of {nodes}, failed to trace at {at} (the finding below)")
                continue
            if record.kind == "checked":
                lines.append(
                    f"  {label}: {record.type_name} of {nodes}, built at {at}{_times(record)}: checked, not traced "
                    "(no example values; wrap it in GraphWithValues with jax.ShapeDtypeStruct inputs to trace it)"
                )
                continue
            traced_total += 1
            if record.same_as is not None:
                equal = f"{os.path.basename(record.same_as.file)}:{record.same_as.line}:{record.same_as.column}"
                lines.append(f"  {label}: {record.type_name} of {nodes}, built at {at}: equal to the graph traced at {equal}, so traced")
            else:
                lines.append(f"  {label}: {record.type_name} of {nodes}, traced at {at}{_times(record)}")
            rows = [["place", "role", "shape", "dtype"]]
            rows += [[p.name, p.role, _shape_text(p.shape), p.dtype + (" (weak)" if p.weak_type else "")] for p in record.places]
            lines += _table(rows, "    ")
        if not shown and not module.findings and module.imported:
            lines.append("  no graphs")
        for finding in module.findings:
            lines += ["  " + line for line in str(finding).splitlines()]
    from jitcheck.debug.retrace import render_collapsed

    if report.compiles:
        lines.append("")
        lines.append("compiles of jax.jit / jax.pmap / eqx.filter_jit in your code:")
        for found in report.compiles:
            where = found.location
            at = f"{_shown_path(where.file)}:{where.line}:{where.column}" if where else "<unknown>"
            lines.append(f"  {at}: {found.transformation} of `{found.function}`: {found.count} compile{'s' if found.count != 1 else ''}")
    for retrace in render_collapsed(report.retraces, _shown_path):
        lines.append("")
        lines.append(retrace)
    count = len(report.findings) + len(report.retraces)
    lines.append("")
    lines.append(
        f"{len(report.modules)} module{'s' if len(report.modules) != 1 else ''}, {traced_total} graph{'s' if traced_total != 1 else ''} "
        f"traced, {count} finding{'s' if count != 1 else ''}"
    )
    return "\n".join(lines)


@quiet_on_closed_stdout
def main(argv: list[str] | None = None, *, prog: str = _PROG) -> int:
    """Run the report from the command line; 0 when clean, 1 with findings, 2 for a usage error, 141 when stdout closed early."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Import a package in jitcheck debug mode and report, per module, every graph traced at import "
        "with each place's shape and dtype, and every finding.",
    )
    parser.add_argument("targets", nargs="+", metavar="MODULE_OR_PATH", help="a module or package name, or a path to one")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--packages", default=None, help="packages beartype checks (comma-separated; default: the targets' top-level packages)")
    parser.add_argument("--no-beartype", action="store_true", help="do not type-check with beartype (graphs are still traced)")
    parser.add_argument("--traceback", action="store_true", help="print the traceback behind each finding")
    args = parser.parse_args(argv)
    try:
        report = collect(args.targets, packages=args.packages, beartype=not args.no_beartype)
    except (DebugSettingError, RuntimeError) as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(render_text(report))
    if args.traceback:
        for finding in report.findings:
            if finding.detail:
                print(f"\n--- traceback of {finding.code} at {finding.location} ---\n{finding.detail}", file=sys.stderr)
    return 0 if report.ok else 1


__all__ = ["Finding", "ImportReport", "ModuleReport", "collect", "findings_of", "from_records", "main", "module_names", "render_text", "resolve"]
