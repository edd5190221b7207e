"""Which files a run checks: the paths given, walked for ``*.py``, ``*.pyi`` and ``*.ipynb``, minus
what is excluded by configuration or ignored by ``.gitignore`` files (read with pathspec,
git's own matching rules, at every folder level).

What cannot be walked or read is not skipped silently: a missing path, an unreadable
folder or ``.gitignore`` and a broken link each come back as a :class:`Source` with a
``problem``, which the run reports as a JC000 finding while it checks everything else.
"""

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
    problem: tuple[str, str] | None = None
    """Why this path cannot be checked and what to do (reason, fix), for its JC000 finding."""

    @property
    def is_notebook(self) -> bool:
        return self.path.suffix == ".ipynb"


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


SUFFIXES = (".py", ".pyi", ".ipynb")
"""What a folder walk picks up: Python modules, their stubs (as ruff does) and Jupyter notebooks."""


def _strerror(error: OSError) -> str:
    return error.strerror or str(error)


class _Ignores:
    """The ``.gitignore`` files in force for a folder, from the project root down."""

    def __init__(self, config: Config) -> None:
        self.enabled = config.respect_gitignore
        self.cache: dict[Path, pathspec.GitIgnoreSpec | None] = {}
        self.unreadable: list[tuple[Path, str]] = []
        """``.gitignore`` files that exist but cannot be read, and why (reported, never a crash)."""

    def spec(self, folder: Path) -> pathspec.GitIgnoreSpec | None:
        if folder not in self.cache:
            self.cache[folder] = self._read(folder / ".gitignore")
        return self.cache[folder]

    def _read(self, file: Path) -> pathspec.GitIgnoreSpec | None:
        try:
            lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as error:
            if not file.is_dir():
                self.unreadable.append((file, _strerror(error)))
            return None
        return pathspec.GitIgnoreSpec.from_lines(lines)

    def ignored(self, path: Path, is_dir: bool, root: Path) -> bool:
        if not self.enabled:
            return False
        folders: list[Path] = []
        for parent in path.parents:  # from the nearest folder up to the root; none for a path outside it
            folders.append(parent)
            if parent == root:
                break
        else:
            folders = []
        for folder in folders:
            spec = self.spec(folder)
            if spec is None:
                continue
            text = path.relative_to(folder).as_posix() + ("/" if is_dir else "")
            if spec.match_file(text):
                return True
        return False


def _broken_link(path: Path, cwd: Path, root: Path) -> Source:
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    return Source(path, _display(path, cwd), _relative(path, root),
                  problem=(f"it is a broken symbolic link (to {target!r})", "point the link at an existing file, or remove it"))


def _kind(path: Path) -> str:
    """"file", "dir", "broken-link", "missing" or an error's text (a path whose folder cannot be searched)."""
    try:
        if path.is_symlink() and not path.exists():
            return "broken-link"
        if path.is_file():
            return "file"
        if path.is_dir():
            return "dir"
        return "missing" if not os.path.lexists(path) else "file"
    except OSError as error:
        return _strerror(error)


def discover(paths: Sequence[Path], config: Config, cwd: Path) -> Iterator[Source]:
    """Every file to check, each once, in a stable order.

    A file named on the command line is always checked (as ruff does); files found
    by walking a folder must end in ``.py``, ``.pyi`` or ``.ipynb`` and be neither excluded nor
    git-ignored. A path that is missing or cannot be walked is yielded with a problem.
    """
    exclude = pathspec.GitIgnoreSpec.from_lines(config.exclude)
    ignores = _Ignores(config)
    root = config.root.resolve()
    seen: set[Path] = set()
    for given in paths:
        absolute = (cwd / given) if not given.is_absolute() else given
        kind = _kind(absolute)
        if kind == "broken-link":
            yield _broken_link(absolute, cwd, root)
            continue
        if kind == "file":
            resolved = absolute.resolve()
            if resolved not in seen:
                seen.add(resolved)
                yield Source(absolute, _display(absolute, cwd), _relative(resolved, root))
            continue
        if kind == "missing":
            yield Source(absolute, _display(absolute, cwd), _relative(absolute, root),
                         problem=("no such file or folder", "check the path given on the command line"))
            continue
        if kind != "dir":
            yield Source(absolute, _display(absolute, cwd), _relative(absolute, root),
                         problem=(f"it cannot be read: {kind}", "check the permissions of the path and its folders"))
            continue
        unwalkable: list[OSError] = []
        for folder, dirnames, filenames in os.walk(absolute, onerror=unwalkable.append):
            while unwalkable:
                yield _unwalkable(unwalkable.pop(0), cwd, root)
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
                if not name.endswith(SUFFIXES):
                    continue
                child = base / name
                relative = _relative(child.absolute(), root)
                if exclude.match_file(relative) or ignores.ignored(child.absolute(), False, root):
                    continue
                if child.is_symlink() and not child.exists():
                    yield _broken_link(child, cwd, root)
                    continue
                resolved = child.resolve()
                if resolved in seen:
                    continue
                seen.add(resolved)
                yield Source(child, _display(child, cwd), relative)
            while ignores.unreadable:
                file, reason = ignores.unreadable.pop(0)
                yield Source(file, _display(file, cwd), _relative(file, root), problem=(
                    f"this .gitignore cannot be read ({reason}), so its patterns were not applied",
                    "make it readable, or pass --no-respect-gitignore"))
        while unwalkable:
            yield _unwalkable(unwalkable.pop(0), cwd, root)


def _unwalkable(error: OSError, cwd: Path, root: Path) -> Source:
    """A folder inside the tree that cannot be listed: reported, never skipped silently."""
    folder = Path(error.filename) if error.filename else Path(".")
    return Source(folder, _display(folder, cwd), _relative(folder, root),
                  problem=(f"this folder cannot be read ({_strerror(error)}), so the files in it were not checked",
                           "make it readable (chmod +rx), or exclude it"))


__all__ = ["SUFFIXES", "Source", "discover"]
