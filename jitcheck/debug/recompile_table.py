"""The recorder's end-of-run table and its JSON: sites sorted by the time their avoidable compiles lost.

`render_table` prints one row per site (where the wrapper was built, its function,
compiles, avoidable compiles, time compiling, time lost, cause, rule), the sites
with avoidable compiles first by time lost, capped at ``top`` rows with a count of
the rest, then the help line of each rule named. jax's own jits (``jnp`` functions,
eager operations) are counted in the header, not listed. `to_json` is the
machine-readable form (schema version 1, documented in docs/debug.md, "Recorded
recompiles"): fields are only ever added, never renamed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from jitcheck.debug.recompile_causes import CAUSES, cause_counts
from jitcheck.debug.recompiles import Site, counts, sites, traces

SCHEMA_VERSION = 1
TOP = 20


def _main_cause(site: Site) -> tuple[str | None, str | None, str | None, str | None]:
    """The commonest cause of a site's avoidable compiles: its kind, rule code, rule name and help."""
    if not site.causes:
        return None, None, None, None
    kind, _ = site.causes.most_common(1)[0]
    cause = site.first_cause[kind]
    rule = cause.rule
    return kind, (rule.code if rule else None), (rule.name if rule else None), cause.help


def ordered(found: list[Site]) -> list[Site]:
    """Sites by time lost, then avoidable compiles, then compile time (most first)."""
    return sorted(found, key=lambda s: (-s.lost_seconds, -s.avoidable, -s.compile_seconds, -s.compiles, s.key))


def _site_json(site: Site) -> dict[str, Any]:
    kind, code, name, help_ = _main_cause(site)
    where = site.site
    return {
        "site": str(where) if where is not None else None,
        "path": where.file if where is not None else None,
        "line": where.line if where is not None else None,
        "column": where.column if where is not None else None,
        "function": site.function,
        "wrapper": site.wrapper,
        "internal": site.internal,
        "traces": site.traces,
        "nested_traces": site.nested_traces,
        "compiles": site.compiles,
        "avoidable_compiles": site.avoidable,
        "avoidable_in_one_test": site.avoidable_in_one_test,
        "distinct_programs": len(site.fingerprints),
        "compile_seconds": round(site.compile_seconds, 6),
        "lost_seconds": round(site.lost_seconds, 6),
        "causes": cause_counts(site.causes),
        "cause": kind,
        "rule": code,
        "rule_name": name,
        "help": help_,
        "detail": site.first_cause[_main_cause(site)[0] or ""].detail if site.causes else None,
        "call_sites": list(site.call_sites),
    }


def to_json(*, with_traces: bool = True, complete: bool = True) -> dict[str, Any]:
    """Everything recorded, JSON-ready: totals, every site (sorted as the table), and each trace kept.

    ``complete`` is false for the records of a run still going or cut short (a checkpoint, an interrupt).
    """
    found = ordered(sites())
    totals = counts()
    return {
        "version": SCHEMA_VERSION,
        "complete": complete,
        "totals": {
            "traces": totals["traces"],
            "nested_traces": sum(s.nested_traces for s in found),
            "compiles": sum(s.compiles for s in found),
            "avoidable_compiles": sum(s.avoidable for s in found),
            "compile_seconds": round(sum(s.compile_seconds for s in found), 6),
            "lost_seconds": round(sum(s.lost_seconds for s in found), 6),
            "sites": len(found),
            "unattributed_compiles": totals["unattributed_compiles"],
            "recorder_errors": totals["errors"],
        },
        "causes": list(CAUSES),
        "sites": [_site_json(s) for s in found],
        "traces": [t.to_json() for t in traces()] if with_traces else [],
        "traces_dropped": totals["dropped"],
    }


def merge(found: list[dict[str, Any]]) -> dict[str, Any]:
    """One record of several processes' (pytest-xdist workers): sites of the same place, wrapper and function added up.

    A compile in one process is never avoidable by another, so each process's
    avoidable compiles stay as they were judged.
    """
    if len(found) == 1:
        return found[0]
    merged: dict[tuple[Any, ...], dict[str, Any]] = {}
    for data in found:
        for site in data["sites"]:
            key = (site["site"], site["wrapper"], site["function"])
            into = merged.get(key)
            if into is None:
                merged[key] = {**site, "causes": dict(site["causes"]), "call_sites": list(site["call_sites"])}
                continue
            for field in ("traces", "nested_traces", "compiles", "avoidable_compiles", "avoidable_in_one_test", "distinct_programs", "compile_seconds", "lost_seconds"):
                into[field] += site[field]
            for kind, n in site["causes"].items():
                into["causes"][kind] = into["causes"].get(kind, 0) + n
            for name in ("cause", "rule", "rule_name", "help", "detail"):
                into[name] = into[name] or site[name]
            into["call_sites"] += [c for c in site["call_sites"] if c not in into["call_sites"]][: max(0, 10 - len(into["call_sites"]))]
    totals = {key: sum(d["totals"][key] for d in found) for key in found[0]["totals"]}
    sites_ = sorted(merged.values(), key=lambda s: (-s["lost_seconds"], -s["avoidable_compiles"], -s["compile_seconds"], -s["compiles"], str(s["site"])))
    totals["sites"] = len(sites_)
    return {
        **found[0],
        "complete": all(d.get("complete", True) for d in found),
        "totals": totals,
        "sites": sites_,
        "traces": [t for d in found for t in d["traces"]],
        "traces_dropped": sum(d["traces_dropped"] for d in found),
    }


def _shown(path: str) -> str:
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return relative if not relative.startswith("..") else path


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _name(text: str, limit: int = 48) -> str:
    return text if len(text) <= limit else "..." + text[-(limit - 3) :]


def _seconds(value: float) -> str:
    return f"{value:.2f}s"


def render_table(data: dict[str, Any], top: int = TOP, shown_path: Callable[[str], str] = _shown) -> list[str]:
    """The end-of-run table of a `to_json` record: totals, a row per site (at most ``top``), the rules' help lines."""
    found = data["sites"]
    user = [s for s in found if not s["internal"]]
    internal = [s for s in found if s["internal"]]
    totals = data["totals"]
    lines = [
        f"{_plural(totals['traces'], 'trace')}, {_plural(totals['compiles'], 'compile')} ({_seconds(totals['compile_seconds'])}), "
        f"{totals['avoidable_compiles']} avoidable ({_seconds(totals['lost_seconds'])} lost)",
        f"jit wrappers of your code and your libraries: {_plural(sum(s['compiles'] for s in user), 'compile')}, "
        f"{sum(s['avoidable_compiles'] for s in user)} avoidable ({_seconds(sum(s['lost_seconds'] for s in user))} lost) "
        f"at {sum(1 for s in user if s['avoidable_compiles'])} of {_plural(len(user), 'site')}",
    ]
    if internal:
        lines.append(
            f"jax's own jitted functions (jnp, lax, eager operations): {_plural(sum(s['compiles'] for s in internal), 'compile')} "
            f"({_seconds(sum(s['compile_seconds'] for s in internal))}), {sum(s['avoidable_compiles'] for s in internal)} avoidable "
            f"({_seconds(sum(s['lost_seconds'] for s in internal))} lost), not listed (in the JSON, with the lines that called them)"
        )
    quiet = [s for s in user if not s["compiles"] and not s["nested_traces"]]
    user = [s for s in user if s["compiles"] or s["nested_traces"]]
    if quiet:
        lines.append(f"{_plural(len(quiet), 'site')} traced without compiling (make_jaxpr, eval_shape, lower): not listed")
    if not user:
        return lines
    header = ("site", "function", "wrapper", "compiles", "avoidable", "compiling", "lost", "cause", "rule")
    rows = []
    for site in user[:top]:
        where = f"{shown_path(site['path'])}:{site['line']}:{site['column']}" if site["path"] is not None else "<unknown>"
        nested = f" (+{site['nested_traces']} nested)" if site["nested_traces"] else ""
        rows.append(
            (where, _name(site["function"]), site["wrapper"], f"{site['compiles']}{nested}", str(site["avoidable_compiles"]),
             _seconds(site["compile_seconds"]), _seconds(site["lost_seconds"]), site["cause"] or "-", site["rule"] or "-")
        )
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    right = {3, 4, 5, 6}

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    lines.append(line(header))
    lines += [line(r) for r in rows]
    rest = user[top:]
    if rest:
        lines.append(
            f"... and {len(rest)} more sites ({sum(s['compiles'] for s in rest)} compiles, "
            f"{sum(s['avoidable_compiles'] for s in rest)} avoidable, {_seconds(sum(s['lost_seconds'] for s in rest))} lost)"
        )
    helps: dict[str, str] = {}
    for site in user[:top]:
        if site["help"] is None:
            continue
        key = site["rule"] or site["cause"]
        if key not in helps:
            named = f"{site['rule']} ({site['rule_name']})" if site["rule"] else f"{site['cause']} (no static rule)"
            helps[key] = f"  help: {named}: {site['help']}"
    return lines + list(helps.values())


__all__ = ["SCHEMA_VERSION", "TOP", "merge", "ordered", "render_table", "to_json"]
