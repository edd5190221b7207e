"""Plugin options that are never read: said once, when mypy loads the plugin, never ignored silently.

The plugin reads its options from the one file mypy reads (:mod:`.config`). Options
written elsewhere would be dropped without a word: ``[tool.jitcheck.mypy]`` in a
pyproject.toml while mypy reads mypy.ini (or setup.cfg), or a misspelled table
(``[tool.jitcheck.mypi]``, ``[mypy.plugins.jitchek]``). Each is named beside the table
that is read, in the shape of mypy's own warnings about its config file
(``file: [section]: ...`` on stderr).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterator, Mapping

from mypy_plugin.config import INI_SECTION, TOML_SECTION

_INI_NAMES = ("mypy.ini", ".mypy.ini", "setup.cfg")


def warnings(config_file: str | None) -> list[str]:
    """One line per table of plugin options mypy's run never reads (none without a config file)."""
    if not config_file or not os.path.isfile(config_file):
        return []
    if config_file.endswith(".toml"):
        return list(_misspelled_toml(config_file, _toml(config_file)))
    found = list(_misspelled_ini(config_file))
    beside = os.path.join(os.path.dirname(os.path.abspath(config_file)), "pyproject.toml")
    jitcheck = _jitcheck_table(_toml(beside))
    if jitcheck is not None and "mypy" in jitcheck:
        found.append(f"{beside}: [{TOML_SECTION}]: never read: mypy reads {os.path.basename(config_file)}, so "
                     f"jitcheck's plugin reads its options from [{INI_SECTION}] there; move them to that section")
    return found


def _toml(path: str) -> Mapping[str, object]:
    import tomllib

    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}  # a file mypy does not read, or one config.load reports itself


def _jitcheck_table(data: Mapping[str, object]) -> Mapping[str, object] | None:
    tool = data.get("tool")
    table = tool.get("jitcheck") if isinstance(tool, dict) else None
    return table if isinstance(table, dict) else None


def _misspelled_toml(path: str, data: Mapping[str, object]) -> Iterator[str]:
    tool = data.get("tool")
    if not isinstance(tool, dict):
        return
    for name, table in tool.items():
        if name == "jitcheck" and isinstance(table, dict):
            for key, value in table.items():
                if isinstance(value, dict) and key != "mypy" and _close(key, "mypy"):
                    yield _line(path, f"tool.jitcheck.{key}", TOML_SECTION)
        elif name != "jitcheck" and isinstance(table, dict) and "mypy" in table and _close(name, "jitcheck"):
            yield _line(path, f"tool.{name}.mypy", TOML_SECTION)


def _misspelled_ini(path: str) -> Iterator[str]:
    import configparser

    parser = configparser.RawConfigParser()
    try:
        parser.read(path, encoding="utf-8")
    except configparser.Error:
        return
    for section in parser.sections():
        if section != INI_SECTION and _close(section, INI_SECTION, cutoff=0.85):
            yield _line(path, section, INI_SECTION)


def _close(word: str, wanted: str, cutoff: float = 0.6) -> bool:
    return bool(difflib.get_close_matches(word.lower(), [wanted], n=1, cutoff=cutoff))


def _line(path: str, table: str, read: str) -> str:
    return (f"{path}: [{table}]: never read: jitcheck's mypy plugin reads its options from [{read}] "
            f"(a misspelling?); rename the section to [{read}]")


__all__ = ["warnings"]
