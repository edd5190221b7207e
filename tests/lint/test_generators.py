"""Which generators of a module yield at most once (jitcheck/lint/generators.py), on libcst's reading of real code."""

from __future__ import annotations

import textwrap

import libcst as cst

from jitcheck.lint.generators import single_yield_generators


def names(source: str) -> set[str]:
    return set(single_yield_generators(cst.parse_module(textwrap.dedent(source))))


def test_one_yield_on_every_path_counts_and_more_do_not() -> None:
    source = """\
        def branches(x):
            if x:
                yield 1
            elif x is None:
                yield 2
            else:
                return
        def one_liner(x):
            if x: yield 1
        def guarded(x):
            try:
                yield x
            except ValueError:
                pass
        def twice(x):
            yield x
            yield x
        def looped(xs):
            for x in xs:
                yield x
        def delegated(xs):
            yield from xs
        def handled(x):
            try:
                yield x
            finally:
                yield x
        def plain(x):
            return [x]
        def outer(x):
            def inner():
                yield 1
                yield 2
            yield inner
        class Case:
            def _inputs(self, n):
                yield n
            def matched(self, n):
                match n:
                    case 1:
                        yield 1
                    case _:
                        yield 2
        """
    assert names(source) == {"branches", "one_liner", "guarded", "_inputs", "matched", "outer"}


def test_a_name_another_def_yields_more_under_is_left_out() -> None:
    source = """\
        class A:
            def _inputs(self):
                yield 1
        class B:
            def _inputs(self):
                for i in range(3):
                    yield i
        """
    assert names(source) == set()
