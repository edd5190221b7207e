"""Which files a run checks: the paths given, walked for ``*.py``, minus what is
excluded by configuration or ignored by ``.gitignore`` files (read with pathspec,
git's own matching rules, at every folder level)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import pathspec

from jitcheck.lint.config import Config


@dataclasses.dataclass(frozen=True)
class Source:
    """A file to check: where it is, how to show it, and whether it is a broken link."""

    path: Path
    display: str
    relative: str
    """Posix path relative to the project root (for per-file-ignores)."""
    broken_link: bool = False


def _display(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _gitignore(folder: Path) -> pathspec.GitIgnoreSpec | None:
    file = folder / ".gitignore"
    if not file.is_file():
        return None
    try:
        return pathspec.GitIgnoreSpec.from_lines(file.read_text(encoding="utf-8", errors="replace").splitlines())
    except Exception:
        return None


class _Ignores:
    """The ``.gitignore`` files in force for a folder, from the project root down."""

    def __init__(self, config: Config) -> None:
        self.enabled = config.respect_gitignore
        self.cache: dict[Path, pathspec.GitIgnoreSpec | None] = {}

    def spec(self, folder: Path) -> pathspec.GitIgnoreSpec | None:
        if folder not in self.cache:
            self.cache[folder] = _gitignore(folder)
        return self.cache[folder]

    def ignored(self, path: Path, is_dir: bool, root: Path) -> bool:
        if not self.enabled:
            return False
        folders = [f for f in path.parents if f == root or root in f.parents]
        for folder in folders:
            spec = self.spec(folder)
            if spec is None:
                continue
            text = path.relative_to(folder).as_posix() + ("/" if is_dir else "")
            if spec.match_file(text):
                return True
        return False


def discover(paths: Sequence[Path], config: Config, cwd: Path) -> Iterator[Source]:
    """Every file to check, each once, in a stable order.

    A file named on the command line is always checked (as ruff does); files found
    by walking a folder must end in ``.py`` and be neither excluded nor git-ignored.
    """
    exclude = pathspec.GitIgnoreSpec.from_lines(config.exclude)
    ignores = _Ignores(config)
    root = config.root.resolve()
    seen: set[Path] = set()
    for given in paths:
        absolute = (cwd / given) if not given.is_absolute() else given
        if absolute.is_symlink() and not absolute.exists():
            yield Source(absolute, _display(absolute, cwd), _relative(absolute, root), broken_link=True)
            continue
        if absolute.is_file():
            resolved = absolute.resolve()
            if resolved not in seen:
                seen.add(resolved)
                yield Source(absolute, _display(absolute, cwd), _relative(resolved, root))
            continue
        if not absolute.is_dir():
            raise FileNotFoundError(f"{given}: no such file or folder")
        for folder, dirnames, filenames in os.walk(absolute):
            base = Path(folder)
            kept_dirs = []
            for name in sorted(dirnames):
                child = base / name
                relative = _relative(child.resolve() if child.is_symlink() else child.absolute(), root)
                if exclude.match_file(relative + "/") or ignores.ignored(child.absolute(), True, root):
                    continue
                kept_dirs.append(name)
            dirnames[:] = kept_dirs
            for name in sorted(filenames):
                if not name.endswith(".py"):
                    continue
                child = base / name
                relative = _relative(child.absolute(), root)
                if exclude.match_file(relative) or ignores.ignored(child.absolute(), False, root):
                    continue
                if child.is_symlink() and not child.exists():
                    yield Source(child, _display(child, cwd), relative, broken_link=True)
                    continue
                resolved = child.resolve()
                if resolved in seen:
                    continue
                seen.add(resolved)
                yield Source(child, _display(child, cwd), relative)


__all__ = ["Source", "discover"]
