"""Which arguments of a call of a jitted wrapper are static: shared by the static-argument checks, which judge
each one's value, and the sameness verdict, for which a static argument that changes is a new cache key."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst


ALL_POSITIONS: frozenset[int] = frozenset(range(256))
"""The static positions of a wrapper under which every argument that is not an array is static (``filter_jit``)."""


def every_argument(params: Sequence[str] | None) -> tuple[frozenset[int], frozenset[str]]:
    """The static spec of such a wrapper: every position, and every parameter name the function is known to have."""
    return ALL_POSITIONS, frozenset(params or ())


def static_arguments(call: cst.Call, spec: tuple[frozenset[int], frozenset[str]],
                     params: tuple[str, ...] | None) -> Iterator[tuple[int | str, cst.BaseExpression]]:
    """Each argument ``call`` passes to a static parameter of a wrapper whose static spec is ``spec`` (positions
    and names), with its position or keyword: ``params`` (the wrapped function's positional parameters, when known)
    maps a static position to its name and a static name to its position. Arguments after a ``*`` unpacking are
    not known and not given."""
    nums, argnames = spec
    static_names = set(argnames)
    static_nums = set(nums)
    if params is not None:
        static_names |= {params[i] for i in nums if 0 <= i < len(params)}
        static_nums |= {i for i, p in enumerate(params) if p in argnames}
    index = 0
    for arg in call.args:
        if arg.star:
            break
        if arg.keyword is None:
            if index in static_nums:
                yield index, arg.value
            index += 1
        elif arg.keyword.value in static_names:
            yield arg.keyword.value, arg.value


__all__ = ["ALL_POSITIONS", "every_argument", "static_arguments"]
