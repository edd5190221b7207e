"""The plugin's options: ``[tool.jitcheck.mypy]`` in pyproject.toml, ``[mypy.plugins.jitcheck]`` in an ini file.

They are read from the config file mypy itself uses, so one file configures both::

    [tool.mypy]
    plugins = ["mypy_plugin"]

    [tool.jitcheck.mypy]
    constructors = ["mylib.graphs.node", "mylib.graphs.step(fn)"]
    graph-classes = ["mylib.graphs.Pipeline[label, place]"]
    ignore = ["JC105"]

``constructors`` are extra callables checked like ``NodeDefinition``: the parameters
named in parentheses (``body`` by default) are node bodies, a ``settings`` parameter
holds node settings, and a graph type they return has its Label and Place checked.
``graph-classes`` are extra generic classes whose type arguments name labels and
places, one role per type parameter (``label``, ``place`` or ``_``). ``ignore``
turns off rules by code, prefix or name. Anything else is refused with the file,
line and fix, before mypy checks a single module.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from typing import Final

from jitcheck import rules
from mypy_plugin.codes import REPORTED

TOML_SECTION: Final = "tool.jitcheck.mypy"
INI_SECTION: Final = "mypy.plugins.jitcheck"

_NAME: Final = r"[A-Za-z_][A-Za-z0-9_]*"
_DOTTED: Final = rf"{_NAME}(?:\.{_NAME})+"
_CONSTRUCTOR: Final = rf"^(?P<name>{_DOTTED})(?:\((?P<params>[^()]*)\))?$"
_GRAPH_CLASS: Final = rf"^(?P<name>{_DOTTED})\[(?P<roles>[^\[\]]*)\]$"
"""Patterns compiled (and cached by :mod:`re`) when an option is read, not at import."""
_ROLES: Final = {"label": "Label", "place": "Place", "_": None}
DEFAULT_BODY_PARAMS: Final = ("body",)


class ConfigError(Exception):
    """Invalid plugin options; ``str()`` is a mypy-style ``path:line: error: ...`` line per bad option.

    ``errors`` holds every bad option found (this one first), so that one run reports them all.
    """

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path = path
        self.line = line
        self.message = message
        self.errors: list[ConfigError] = [self]
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: error: {message}")

    @property
    def lines(self) -> list[str]:
        """One ``path:line: error: ...`` line per bad option."""
        return [Exception.__str__(error) for error in self.errors]

    def __str__(self) -> str:
        return "\n".join(self.lines)

    @staticmethod
    def joined(errors: list[ConfigError]) -> ConfigError:
        """One error that carries all of ``errors``."""
        first = errors[0]
        first.errors = list(errors)
        return first


@dataclasses.dataclass(frozen=True)
class PluginConfig:
    """The validated options (all empty by default)."""

    constructors: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    """Full name of an extra node/graph constructor -> the names of its body parameters."""
    graph_classes: Mapping[str, tuple[str | None, ...]] = dataclasses.field(default_factory=dict)
    """Full name of an extra graph class -> the role (``"Label"``, ``"Place"``, None) of each type parameter."""
    ignore: frozenset[str] = frozenset()
    """Rule codes not reported."""

    def snapshot(self) -> dict[str, object]:
        """A JSON-ready form, for mypy's cache: a module is checked again when it changes."""
        return {
            "constructors": {k: list(v) for k, v in sorted(self.constructors.items())},
            "graph_classes": {k: list(v) for k, v in sorted(self.graph_classes.items())},
            "ignore": sorted(self.ignore),
        }


def load(config_file: str | None) -> PluginConfig:
    """The options in mypy's config file (pyproject.toml or an ini file), or the defaults."""
    if not config_file or not os.path.isfile(config_file):
        return PluginConfig()
    with open(config_file, "rb") as handle:
        raw = handle.read()
    text = raw.decode("utf-8", errors="replace")
    # Imported here: mypy loads the plugin on every run, and most runs need one parser or none.
    if config_file.endswith(".toml"):
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(config_file, None, f"cannot read the file: {error}") from None
        tool = data.get("tool")
        jitcheck = tool.get("jitcheck") if isinstance(tool, dict) else None
        if jitcheck is not None and not isinstance(jitcheck, dict):
            raise ConfigError(config_file, _line_of(text, "tool", "jitcheck"), "[tool.jitcheck] must be a table")
        section: object = jitcheck.get("mypy") if jitcheck is not None else None
        if section is None:
            return PluginConfig()
        if not isinstance(section, dict):
            raise ConfigError(config_file, _line_of(text, "tool.jitcheck", "mypy"), f"[{TOML_SECTION}] must be a table")
        return parse(section, Origin(config_file, text, TOML_SECTION, toml=True))
    import configparser

    parser = configparser.RawConfigParser()
    try:
        parser.read_string(text, source=config_file)
    except configparser.Error as error:
        raise ConfigError(config_file, None, f"cannot read the file: {error}") from None
    if not parser.has_section(INI_SECTION):
        return PluginConfig()
    return parse(dict(parser.items(INI_SECTION)), Origin(config_file, text, INI_SECTION, toml=False))


@dataclasses.dataclass(frozen=True)
class Origin:
    """Where options come from, to name the file and line of a bad one."""

    path: str
    text: str
    section: str
    toml: bool

    def error(self, key: str, message: str) -> ConfigError:
        return ConfigError(self.path, _line_of(self.text, self.section, key), f"[{self.section}] {message}")


_OPTIONS: Final = ("constructors", "graph_classes", "ignore")


def parse(values: Mapping[str, object], origin: Origin) -> PluginConfig:
    """Validate raw option values (a TOML table, or an ini section's strings)."""
    constructors: dict[str, tuple[str, ...]] = {}
    graph_classes: dict[str, tuple[str | None, ...]] = {}
    ignore: set[str] = set()
    errors: list[ConfigError] = []
    for raw_key, value in values.items():
        key = raw_key.replace("-", "_")
        if key not in _OPTIONS:
            import difflib

            close = difflib.get_close_matches(key, _OPTIONS, n=1)
            hint = f"; did you mean {_spelled(close[0])!r}?" if close else ""
            known = ", ".join(_spelled(k) for k in _OPTIONS)
            errors.append(origin.error(raw_key, f"unknown option {raw_key!r}{hint} (known options: {known})"))
            continue
        try:
            items = _strings(value, raw_key, origin)
        except ConfigError as error:
            errors.append(error)
            continue
        for index, item in enumerate(items):
            where = f"{raw_key}[{index}]"
            try:
                if key == "constructors":
                    name, params = _constructor(item, where, raw_key, origin)
                    constructors[name] = params
                elif key == "graph_classes":
                    name, roles = _graph_class(item, where, raw_key, origin)
                    graph_classes[name] = roles
                else:
                    ignore |= _ignored(item, where, raw_key, origin)
            except ConfigError as error:
                errors.append(error)  # every bad option is reported, in one run
    if errors:
        raise ConfigError.joined(errors)
    return PluginConfig(constructors, graph_classes, frozenset(ignore))


def _spelled(key: str) -> str:
    return key.replace("_", "-")


def _strings(value: object, key: str, origin: Origin) -> list[str]:
    if isinstance(value, str):
        if origin.toml:
            raise origin.error(key, f"{key} must be a list of strings, got the string {value!r}; write {key} = [{value!r}]")
        return _split_list(value)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise origin.error(key, f"{key} must be a list of strings, got {value!r}")
    return [v.strip() for v in value]


def _split_list(text: str) -> list[str]:
    """An ini value as a list: split at commas and newlines outside brackets (``f(a, b), C[label, place]``)."""
    items: list[str] = []
    depth = 0
    current = ""
    for char in text:
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char in ",\n" and depth <= 0:
            items.append(current)
            current = ""
        else:
            current += char
    items.append(current)
    return [item.strip() for item in items if item.strip()]


def _constructor(item: str, where: str, key: str, origin: Origin) -> tuple[str, tuple[str, ...]]:
    match = re.match(_CONSTRUCTOR, item)
    if match is None:
        raise origin.error(
            key,
            f"{where}: {item!r} is not a constructor name; write the full dotted name, "
            "'package.module.function', optionally with its body parameters: 'package.module.function(fn, step)'",
        )
    params_text = match.group("params")
    if params_text is None:
        return match.group("name"), DEFAULT_BODY_PARAMS
    params = tuple(p.strip() for p in params_text.split(","))
    bad = [p for p in params if not re.fullmatch(_NAME, p)]
    if bad or not params_text.strip():
        raise origin.error(key, f"{where}: {item!r} lists {params_text!r}; name its body parameters, separated by commas, as in 'package.module.function(fn)'")
    return match.group("name"), params


def _graph_class(item: str, where: str, key: str, origin: Origin) -> tuple[str, tuple[str | None, ...]]:
    match = re.match(_GRAPH_CLASS, item)
    words = [w.strip() for w in match.group("roles").split(",")] if match is not None else []
    if match is None or not words or any(w not in _ROLES for w in words):
        raise origin.error(
            key,
            f"{where}: {item!r} is not a graph class; write the full dotted name with one role per "
            "type parameter, each 'label', 'place' or '_': 'package.module.Graph[label, place]'",
        )
    roles = tuple(_ROLES[w] for w in words)
    if not any(roles):
        raise origin.error(key, f"{where}: {item!r} names no 'label' or 'place' parameter, so nothing would be checked")
    return match.group("name"), roles


def _ignored(item: str, where: str, key: str, origin: Origin) -> set[str]:
    found = {r.code for r in rules.matching(item)} & REPORTED
    if not found:
        reported = ", ".join(sorted(REPORTED))
        raise origin.error(key, f"{where}: {item!r} matches no rule this plugin reports (it reports {reported})")
    return found


def _line_of(text: str, section: str, key: str) -> int | None:
    """The line of ``key`` in ``section`` of a TOML or ini file (1-based), else of the section."""
    lines = text.splitlines()
    header = re.compile(rf"^\s*\[\s*{re.escape(section)}\s*\]")
    start = next((i for i, line in enumerate(lines) if header.match(line)), None)
    if start is None:
        return None
    spellings = {key, key.replace("_", "-"), key.replace("-", "_")}
    for i in range(start + 1, len(lines)):
        line = lines[i].strip()
        if line.startswith("["):
            break
        name = re.split(r"\s*[=:]", line, maxsplit=1)[0].strip().strip('"')
        if name in spellings:
            return i + 1
    return start + 1


__all__ = ["ConfigError", "DEFAULT_BODY_PARAMS", "INI_SECTION", "PluginConfig", "TOML_SECTION", "load", "parse"]
