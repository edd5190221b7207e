"""Where in the user's code something happened: the innermost frame that is not jitcheck, jax or beartype.

Debug mode reports a graph traced at import, a retrace or an import failure at the
line of the user's code that caused it, in the one diagnostic format
``path:line:col``; these helpers find that line in a live stack or a traceback.
"""

from __future__ import annotations

import dataclasses
import itertools
import sys
from types import CodeType, FrameType, TracebackType
from typing import Any

_LIBRARIES = (
    "jitcheck",
    "jax",
    "jaxlib",
    "beartype",
    "importlib",
    "functools",
    "contextlib",
    "runpy",
    "pkgutil",
    "_pytest",
    "pluggy",
    "numpy",
    "typing",
    "threading",
)


@dataclasses.dataclass(frozen=True)
class Location:
    """A place in a source file, and the module and function it belongs to."""

    file: str
    line: int
    column: int
    module: str
    function: str

    @property
    def at_import(self) -> bool:
        """True when the code runs at module level, that is while the module is imported."""
        return self.function == "<module>"

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of this location."""
        return dataclasses.asdict(self)


def is_library(module: str, filename: str, also: tuple[str, ...] = ()) -> bool:
    """True for frames of jitcheck, jax, beartype and the standard machinery around them (and of the packages or modules ``also``).

    Generated code (beartype's wrappers, frozen importlib) counts as library code;
    ``python -c`` and stdin code counts as the user's.
    """
    if filename.startswith("<") and not filename.startswith("<stdin") and not filename.startswith("<string"):
        return True  # generated code: beartype's wrappers, frozen importlib
    head = module.split(".", 1)[0]
    return head in _LIBRARIES or module.startswith("importlib") or any(module == name or module.startswith(name + ".") for name in also)


def _position(code: CodeType, lasti: int) -> tuple[int | None, int | None]:
    """The start line and column of the instruction at byte offset ``lasti`` (None where unknown)."""
    if lasti < 0:
        return None, None
    found = next(itertools.islice(code.co_positions(), lasti // 2, None), None)
    if found is None:
        return None, None
    return found[0], found[2]


def _frame_location(frame: FrameType, line: int | None = None, column: int | None = None) -> Location:
    code = frame.f_code
    if line is None:
        line = frame.f_lineno
    if column is None:
        column = 1
        start_line, start_col = _position(code, frame.f_lasti)
        if start_line is not None:
            line = start_line
        if start_col is not None:
            column = start_col + 1
    module = frame.f_globals.get("__name__", "")
    return Location(code.co_filename, line or 0, column, module if isinstance(module, str) else "", code.co_name)


def user_frame(start: FrameType | None = None, also: tuple[str, ...] = ()) -> Location | None:
    """The innermost frame of user code on the live stack, from ``start`` outward (None if none).

    ``also``: more packages or modules whose frames are skipped (the jit wrappers of
    equinox and flax, brainstate's ``transform.jit``, when the site that built a wrapper is wanted).
    """
    frame: FrameType | None = start if start is not None else sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if not is_library(module if isinstance(module, str) else "", frame.f_code.co_filename, also):
            return _frame_location(frame)
        frame = frame.f_back
    return None


def traceback_location(tb: TracebackType | None) -> Location | None:
    """The innermost frame of user code in a traceback: where an exception left the user's code."""
    found: Location | None = None
    while tb is not None:
        frame = tb.tb_frame
        module = frame.f_globals.get("__name__", "")
        if not is_library(module if isinstance(module, str) else "", frame.f_code.co_filename):
            column = 1
            line = tb.tb_lineno
            start_line, start_col = _position(frame.f_code, tb.tb_lasti)
            if start_line is not None:
                line = start_line
            if start_col is not None:
                column = start_col + 1
            found = _frame_location(frame, line, column)
        tb = tb.tb_next
    return found


def exception_location(error: BaseException) -> Location | None:
    """Where ``error`` (or, failing that, the error it was raised from) left the user's code."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        found = traceback_location(current.__traceback__)
        if found is not None:
            return found
        current = current.__cause__ or current.__context__
    return None


__all__ = ["Location", "exception_location", "is_library", "traceback_location", "user_frame"]
