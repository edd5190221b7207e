"""The depth scan's token pattern (:mod:`jitcheck.lint.limits`) finds exactly the tokens of its first, slower
spelling (kept here): the same kinds at the same spans, on real code and on random runs of Python's pieces."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from jitcheck.lint import limits

_REFERENCE = re.compile(
    r"""
    (?P<skip>\#[^\r\n]*                                   # a comment
      | [rRbBuUfF]{0,2}(?:'''(?:\\.|[^\\])*?'''            # strings, triple-quoted first
      | \"\"\"(?:\\.|[^\\])*?\"\"\"
      | '(?:\\.|[^'\\\r\n])*' | "(?:\\.|[^"\\\r\n])*")
      | \\\r?\n)                                          # a line continuation
    | (?P<open>[(\[{]) | (?P<close>[)\]}])
    | (?P<newline>\r?\n|;)
    | (?P<reset>,|:=?|(?<![=!<>])=(?!=)|->)
    | (?P<op>\*\*|//|<<|>>|<=|>=|==|!=|[-+*/%@&|^~<>]|\b(?:and|or|not|if|else|lambda|is|in)\b)
    """,
    re.VERBOSE | re.DOTALL,
)
"""The pattern as first written: every alternative tried at every position, string bodies a character at a time."""

_PIECES = ["'", '"', "'''", '"""', "\\", "\\\n", "\n", "\r\n", "\r", "#", " ", "x", "r", "b", "f", "rb", "u", "e",
           "and", "in", "is", "lambda", "not", "or", "if", "else", "(", ")", "[", "]", "{", "}", ",", ":", ":=", "=",
           "==", "!=", "<=", ">=", "->", "-", "+", "*", "**", "/", "//", "%", "@", "&", "|", "^", "~", "<", ">", "<<",
           ">>", ";", "é", "\t", "a1", "_in", "ln"]


def _tokens(pattern: re.Pattern[str], text: str) -> list[tuple[str | None, int, int]]:
    return [(m.lastgroup, *m.span()) for m in pattern.finditer(text)]


def test_the_same_tokens_as_the_first_pattern_on_this_projects_code() -> None:
    sources = sorted((Path(__file__).resolve().parents[2] / "jitcheck").rglob("*.py"))
    assert len(sources) > 20
    for source in sources:
        text = source.read_text(encoding="utf-8")
        assert _tokens(limits._TOKEN, text) == _tokens(_REFERENCE, text), source


@pytest.mark.parametrize("seed", range(20))
def test_the_same_tokens_as_the_first_pattern_on_random_pieces(seed: int) -> None:
    chance = random.Random(seed)
    for _ in range(300):
        text = "".join(chance.choice(_PIECES) for _ in range(chance.randint(1, 40)))
        assert _tokens(limits._TOKEN, text) == _tokens(_REFERENCE, text), repr(text)


def test_the_counts_never_say_at_most_below_the_depth() -> None:
    """``at_most`` spares the scan of a text whose counts keep it under the limit: never one the scan finds deeper."""
    texts = [path.read_text(encoding="utf-8") for path in sorted((Path(__file__).resolve().parents[2] / "jitcheck").rglob("*.py"))]
    chance = random.Random(0)
    texts += ["".join(chance.choice(_PIECES) for _ in range(chance.randint(1, 60))) for _ in range(6000)]
    deep = spared = 0
    for text in texts:
        depth = limits.expression_depth(text).depth
        if depth > 0:
            assert not limits.at_most(text, depth - 1), repr(text)
            deep += depth > 3
        spared += limits.at_most(text, 1000)
    assert deep > 100 and spared > 1000
