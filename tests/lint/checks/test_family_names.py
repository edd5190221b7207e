"""The rule families are mixins of one analyzer: a method one of them defines must not silently replace another's.

Python resolves a name along the analyzer's MRO, so a family that defines a method with
the name of one further down (``definition_of``, say) changes what every other family
calls, with no error: findings just vanish. No name is defined twice today; a new
override must be added here on purpose.
"""

from __future__ import annotations

from collections import defaultdict

from jitcheck.lint.analysis import Analyzer

INTENDED_OVERRIDES: frozenset[str] = frozenset()


def test_no_method_of_the_analyzer_is_defined_by_two_of_its_classes() -> None:
    defined: dict[str, list[str]] = defaultdict(list)
    for cls in Analyzer.__mro__:
        if cls.__module__.startswith("jitcheck."):
            for name, value in vars(cls).items():
                if not name.startswith("__") and (callable(value) or isinstance(value, (property, staticmethod, classmethod))):
                    defined[name].append(f"{cls.__module__}.{cls.__qualname__}")
    twice = {name: where for name, where in defined.items() if len(where) > 1 and name not in INTENDED_OVERRIDES}
    assert twice == {}
