"""Hook answers by full name, read by mypy at C speed once they are final.

mypy asks each plugin for a hook for every name it meets: on equinox, a codebase that
never mentions jitcheck, about 180,000 type-analyze questions and 16,000 function-hook
ones, for a few thousand distinct names. A Python method costs a call each time, and
in the middle of mypy's own work (cold caches) that call costs several times what it
does in a tight loop. An :class:`Answers` table is a dict: the plugin hands mypy its
bound ``__getitem__``, so a name already answered for good is a C dict lookup, and only
a name seen for the first time (or not final yet) reaches Python, in ``__missing__``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

_T = TypeVar("_T")


class Answers(dict[str, _T], Generic[_T]):
    """Answers by full name; a missing one is computed by ``compute`` and kept when it is final.

    ``compute(fullname)`` returns ``(answer, final)``: an answer that may change later in
    the run (a name not defined yet) is returned but not kept, so it is asked again.
    """

    __slots__ = ("_compute",)

    def __init__(self, compute: Callable[[str], tuple[_T, bool]]) -> None:
        super().__init__()
        self._compute = compute

    def __missing__(self, fullname: str) -> _T:
        answer, final = self._compute(fullname)
        if final:
            self[fullname] = answer
        return answer


__all__ = ["Answers"]
