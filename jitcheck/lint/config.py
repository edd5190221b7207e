"""`Config`: what ``[tool.jitcheck]`` in pyproject.toml and the command line select.

Keys (all optional)::

    [tool.jitcheck]
    select = ["JC1", "JC2"]            # codes, code prefixes, rule names or "ALL"
    ignore = ["JC105"]
    exclude = ["generated/", "*_pb2.py"]   # gitignore-style, relative to this file
    per-file-ignores = { "tests/*" = ["JC101"] }
    graph-constructors = ["mylib.graphs.Node"] # called like NodeDefinition(body, inputs, outputs, settings)
    jit-wrappers = ["mylib.compile"]           # treated like jax.jit (static_argnums / static_argnames)
    max-file-size = 10_000_000         # bytes; larger files get JC000
    max-expression-depth = 1000        # deeper expressions get JC000 before libcst parses them (0: no limit)
    file-timeout = 60                  # seconds of CPU time one file may take; then its worker stops and it gets JC000
    respect-gitignore = true
    cache-dir = ".jitcheck_cache"
    preview = false                    # also report findings that rest on a guess (confidence "low"), as ruff's preview
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from jitcheck import rules
from jitcheck.lint.findings import Finding
from jitcheck.lint.limits import DEFAULT_FILE_TIMEOUT, DEFAULT_MAX_EXPRESSION_DEPTH

DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".git/", ".hg/", ".svn/", ".bzr/", ".venv/", "venv/", ".tox/", ".nox/", "__pypackages__/",
    "node_modules/", "build/", "dist/", ".eggs/", "*.egg-info/", ".mypy_cache/", ".pytest_cache/",
    ".ruff_cache/", ".jitcheck_cache/", "site-packages/", "__pycache__/", "_build/",
)
"""Folders no one means to check, as ruff leaves them out."""

KNOWN_KEYS = frozenset(
    {"select", "ignore", "extend-select", "exclude", "extend-exclude", "per-file-ignores", "graph-constructors",
     "jit-wrappers", "max-file-size", "max-expression-depth", "file-timeout", "respect-gitignore", "cache-dir", "preview"}
)


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the file and the key."""


def static_codes() -> frozenset[str]:
    """The codes the static pass can report."""
    return frozenset(r.code for r in rules.RULES if rules.STATIC in r.layers)


def source_digest(files: Iterable[Path]) -> str:
    """A digest of these files' names and bytes ("" when one cannot be read)."""
    digest = hashlib.sha256()
    try:
        for path in sorted(files):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    except OSError:
        return ""
    return digest.hexdigest()[:16]


@functools.cache
def analysis_digest() -> str:
    """A digest of the static pass's own source (this package and the rule catalogue).

    Cached results are keyed on it, so a changed rule never serves findings of the old
    one, even before the version number moves. The files are read, not imported: the
    warm path loads neither libcst nor jax. Without readable source (a zipped install)
    the version alone keys the cache.
    """
    return source_digest(analysis_sources())


def analysis_sources() -> list[Path]:
    """The files :func:`analysis_digest` reads: every module of the static pass, its rule checks in
    subpackages included, and the rule catalogue."""
    here = Path(__file__).resolve().parent
    return [*sorted(here.rglob("*.py")), here.parent / "rules.py"]


@functools.cache
def tool_versions() -> dict[str, str]:
    """The Python and libcst versions, part of every cache key: either can change what a file parses to."""
    import sys
    from importlib import metadata

    try:
        libcst = metadata.version("libcst")
    except metadata.PackageNotFoundError:
        libcst = "?"
    return {"python": sys.version, "libcst": libcst}


@dataclasses.dataclass(frozen=True)
class Config:
    """The resolved settings of one run."""

    root: Path
    select: frozenset[str] = dataclasses.field(default_factory=static_codes)
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    graph_constructors: tuple[str, ...] = ()
    jit_wrappers: tuple[str, ...] = ()
    max_file_size: int = 10_000_000
    max_expression_depth: int = DEFAULT_MAX_EXPRESSION_DEPTH
    file_timeout: float = DEFAULT_FILE_TIMEOUT
    respect_gitignore: bool = True
    cache_dir: Path | None = None
    source: Path | None = None
    """The pyproject.toml read, if any."""
    preview: bool = False
    """Also report the findings that rest on a guess (``confidence == "low"``): ruff's ``preview``."""

    def reports(self, finding: Finding) -> bool:
        """True when this run shows ``finding`` by its confidence (its code's selection is judged apart)."""
        return self.preview or finding.confidence != "low"

    def fingerprint(self) -> str:
        """A digest of everything that changes what the analysis of one file finds."""
        from jitcheck import __version__

        text = json.dumps(
            {"version": __version__, "analysis": analysis_digest(), "graph": sorted(self.graph_constructors),
             "jit": sorted(self.jit_wrappers), "depth": self.max_expression_depth, **tool_versions()},
            sort_keys=True,
        )
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def ignored_for(self, relative: str) -> frozenset[str]:
        """The codes ``per-file-ignores`` turns off for this file (a root-relative posix path)."""
        if not self.per_file_ignores:
            return frozenset()
        import pathspec

        off: set[str] = set()
        for pattern, codes in self.per_file_ignores:
            if pathspec.GitIgnoreSpec.from_lines([pattern]).match_file(relative):
                off |= codes
        return frozenset(off)


def expand(selectors: Iterable[str], where: str) -> frozenset[str]:
    """Codes selected by codes, prefixes, names or ``ALL``; an unknown selector is an error."""
    codes: set[str] = set()
    for selector in selectors:
        found = {r.code for r in rules.matching(str(selector))}
        if not found:
            known = ", ".join(r.code for r in rules.RULES if rules.STATIC in r.layers)
            raise ConfigError(f"{where}: unknown rule selector {selector!r}; static rules are {known}")
        codes |= found
    return frozenset(codes)


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml above ``start`` that has a ``[tool.jitcheck]`` table."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        try:
            text = candidate.read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError, UnicodeDecodeError):
            continue
        except OSError as error:  # it is there but cannot be read: its settings would be silently lost
            raise ConfigError(f"{candidate}: cannot read it ({error.strerror or error}); make it readable, "
                              "or name another file with --config") from error
        if "[tool.jitcheck" in text:
            return candidate
    return None


def project_root(start: Path) -> Path:
    """Where relative patterns and the cache live: the config's folder, else the git root, else ``start``."""
    found = find_pyproject(start)
    if found is not None:
        return found.parent
    for folder in (start, *start.parents):
        try:
            if (folder / ".git").exists():
                return folder
        except OSError:
            continue
    return start


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ConfigError(f"{where} must be a list of strings, got {value!r}")


def load(
    start: Path,
    *,
    config_file: Path | None = None,
    select: Sequence[str] | None = None,
    extend_select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    exclude: Sequence[str] = (),
    respect_gitignore: bool | None = None,
    cache_dir: Path | None = None,
    preview: bool | None = None,
) -> Config:
    """The configuration for a run started at ``start``: pyproject.toml, then the command line."""
    path = config_file if config_file is not None else find_pyproject(start)
    table: Mapping[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise ConfigError(f"{path}: cannot read the configuration: {error}") from error
        table = data.get("tool", {}).get("jitcheck", {})
        if not isinstance(table, Mapping):
            raise ConfigError(f"{path}: [tool.jitcheck] must be a table")
    where = f"{path}: [tool.jitcheck]" if path else "command line"
    unknown = sorted(set(table) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; known keys are {', '.join(sorted(KNOWN_KEYS))}")
    root = path.parent if path is not None else project_root(start)

    chosen = select if select is not None else (_strings(table["select"], f"{where} select") if "select" in table else None)
    # A selector given on the command line is blamed on the command line, not on the file.
    codes = expand(chosen, "--select (command line)" if select is not None else where) if chosen is not None else static_codes()
    codes |= expand(_strings(table.get("extend-select", []), f"{where} extend-select"), where)
    codes |= expand(extend_select, "--extend-select (command line)")
    if select is None:  # --select on the command line replaces the configured selection, ignores included
        codes -= expand(_strings(table.get("ignore", []), f"{where} ignore"), where)
    codes -= expand(ignore, "--ignore (command line)")

    patterns = _strings(table["exclude"], f"{where} exclude") if "exclude" in table else ()
    patterns += _strings(table.get("extend-exclude", []), f"{where} extend-exclude")
    patterns += tuple(exclude)

    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, Mapping):
        raise ConfigError(f"{where} per-file-ignores must be a table of pattern = [codes]")
    per_file_ignores = tuple(
        (pattern, expand(_strings(value, f"{where} per-file-ignores[{pattern!r}]"), where))
        for pattern, value in per_file.items()
    )
    size = table.get("max-file-size", 10_000_000)
    if not isinstance(size, int) or size <= 0:
        raise ConfigError(f"{where} max-file-size must be a positive number of bytes, got {size!r}")
    depth = table.get("max-expression-depth", DEFAULT_MAX_EXPRESSION_DEPTH)
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ConfigError(f"{where} max-expression-depth must be a whole number (0: no limit), got {depth!r}")
    timeout = table.get("file-timeout", DEFAULT_FILE_TIMEOUT)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise ConfigError(f"{where} file-timeout must be a positive number of seconds, got {timeout!r}")
    gitignore = table.get("respect-gitignore", True) if respect_gitignore is None else respect_gitignore
    if not isinstance(gitignore, bool):
        raise ConfigError(f"{where} respect-gitignore must be true or false")
    chosen_preview = table.get("preview", False) if preview is None else preview
    if not isinstance(chosen_preview, bool):
        raise ConfigError(f"{where} preview must be true or false, got {chosen_preview!r}")
    folder = cache_dir
    if folder is None and "cache-dir" in table:
        folder = root / _strings(table["cache-dir"], f"{where} cache-dir")[0]
    return Config(
        root=root,
        select=codes,
        exclude=DEFAULT_EXCLUDE + patterns,
        per_file_ignores=per_file_ignores,
        graph_constructors=_strings(table.get("graph-constructors", []), f"{where} graph-constructors"),
        jit_wrappers=_strings(table.get("jit-wrappers", []), f"{where} jit-wrappers"),
        max_file_size=size,
        max_expression_depth=depth,
        file_timeout=float(timeout),
        respect_gitignore=gitignore,
        cache_dir=folder if folder is not None else root / ".jitcheck_cache",
        source=path,
        preview=chosen_preview,
    )


__all__ = ["Config", "ConfigError", "DEFAULT_EXCLUDE", "expand", "find_pyproject", "load", "project_root", "static_codes"]
