"""The rule families of the static pass, one module per family, each judging with the resolver's answers.

:class:`~jitcheck.lint.analysis.Analyzer` walks a module's candidate call sites and
dispatches them here: :mod:`.jit_sites` (jit calls and decorators), :mod:`.nodes`
(graph nodes), which ask :mod:`.callables` (JC1xx, JC7xx), :mod:`.static_arguments`
and :mod:`.static_values` (JC2xx); :mod:`.fixability` says what a partial's or
lambda's finding and fix need, and :mod:`.base` holds what they share. The rules
themselves (codes, messages, docs) stay in the one catalogue, :mod:`jitcheck.rules`.
"""
