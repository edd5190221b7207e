"""The ``[tool.jitcheck]`` in force for each file of the workspace, kept until a pyproject.toml changes.

The editor asks for a file's settings on every keystroke, so each folder's
configuration is loaded once (with the command line's own loader,
:func:`jitcheck.lint.config.load`) and forgotten when the client reports a changed
``pyproject.toml``.
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

import pathspec

from jitcheck.lint.config import Config, ConfigError, load
from jitcheck.lint.settings import Settings


@dataclasses.dataclass(frozen=True)
class FileConfig:
    """What the static pass needs for one file: its settings, selected codes, and whether it is excluded."""

    config: Config
    settings: Settings
    select: frozenset[str]
    excluded: bool


class Configs:
    """Each folder's :class:`Config` (or the :class:`ConfigError` that stops it), loaded once."""

    def __init__(self) -> None:
        self._by_folder: dict[Path, Config | ConfigError] = {}

    def forget(self) -> None:
        """Drop every loaded configuration (a pyproject.toml changed)."""
        self._by_folder.clear()

    def folder(self, folder: Path) -> Config | ConfigError:
        """The configuration for files in ``folder``."""
        found = self._by_folder.get(folder)
        if found is None:
            try:
                found = load(folder)
            except ConfigError as error:
                found = error
            self._by_folder[folder] = found
        return found

    def for_file(self, path: Path) -> FileConfig | ConfigError:
        """The settings for ``path``, as the command line would use them."""
        config = self.folder(path.parent)
        if isinstance(config, ConfigError):
            return config
        try:
            relative = path.relative_to(config.root).as_posix()
        except ValueError:
            relative = None
        select = config.select - (config.ignored_for(relative) if relative is not None else frozenset())
        excluded = relative is not None and _excluded(config.exclude, relative)
        return FileConfig(config, Settings(config.graph_constructors, config.jit_wrappers, None, select), select, excluded)


def _excluded(patterns: tuple[str, ...], relative: str) -> bool:
    return _spec(patterns).match_file(relative)


@functools.lru_cache(maxsize=16)
def _spec(patterns: tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(patterns)


__all__ = ["Configs", "FileConfig"]
