"""How deep a file's expressions go, measured by a cheap scan before libcst parses it.

libcst's native parser takes time quadratic in the length of an operator chain
(``1 + 1 + ...``: 4,000 terms take 20 s) and overflows its stack on a few thousand
nested brackets. :func:`expression_depth` estimates the syntax tree's depth from the
tokens alone (brackets open, plus the binary operators chained within one element of
each), so a file past ``max-expression-depth`` gets a JC000 that names the limit
instead of a hang or a crash. Strings and comments are skipped, so their text never counts.
"""

from __future__ import annotations

import dataclasses
import re

DEFAULT_MAX_EXPRESSION_DEPTH = 1000
"""Deep enough for any hand-written code (chains of 1,000 operators parse in under a second)."""

DEFAULT_FILE_TIMEOUT = 60.0
"""Seconds of CPU time one file may take to check before its worker is stopped and the file gets JC000."""

_STARTS = r"""(?=[#'"\\(\[{)\]}\r\n;,:=<>!\-*/%@&|^~+]|[rRbBuUfF]{1,2}['"]|\b[aonile])"""
"""What a token can start with: a lookahead that turns every other position away at once (the token's
alternatives are tried only where one may match: the scan of a file is twice as fast, its tokens the same)."""

_TOKEN = re.compile(
    _STARTS + r"""
    (?:(?P<skip>\#[^\r\n]*                                # a comment
      | [rRbBuUfF]{0,2}(?:'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''   # strings, triple-quoted first
      | \"\"\"[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*\"\"\"           # (each body a run of plain characters
      | '[^'\\\r\n]*(?:\\.[^'\\\r\n]*)*'                       # between escapes: the shortest body
      | "[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*")                      # up to the first unescaped closing quote)
      | \\\r?\n)                                        # a line continuation
    | (?P<open>[(\[{]) | (?P<close>[)\]}])
    | (?P<newline>\r?\n|;)
    | (?P<reset>,|:=?|(?<![=!<>])=(?!=)|->)
    | (?P<op>\*\*|//|<<|>>|<=|>=|==|!=|[-+*/%@&|^~<>]|\b(?:and|or|not|if|else|lambda|is|in)\b))
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclasses.dataclass(frozen=True)
class Depth:
    """The deepest point of a file: its estimated depth and the 1-based line where it is reached."""

    depth: int
    line: int


def expression_depth(text: str) -> Depth:
    """Estimate the depth of the deepest expression in ``text`` (a cheap over-estimate, never a parse)."""
    levels = [0]  # operators chained in the current element, one entry per open bracket
    total = 0  # brackets open + every operator counted in levels
    deepest, where, line = 0, 1, 1
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "skip":
            line += match.group().count("\n")
            continue
        if kind == "open":
            levels.append(0)
            total += 1
        elif kind == "close":
            if len(levels) > 1:
                total -= levels.pop() + 1
        elif kind == "newline":
            if match.group() != ";":
                line += 1
            if len(levels) == 1 or match.group() == ";":
                total -= levels[-1]
                levels[-1] = 0
                if match.group() != ";" and len(levels) == 1:
                    continue
        elif kind == "reset":
            total -= levels[-1]
            levels[-1] = 0
        else:
            levels[-1] += 1
            total += 1
        if total > deepest:
            deepest, where = total, line
    return Depth(deepest, where)


_COUNTED = str.maketrans("", "", "([{+-*/%@&|^~<>")
"""The brackets that open and the characters of every operator but ``==`` and ``!=``: all taken out, to count them."""
_COUNTED_TEXTS = ("==", "!=", "and", "or", "not", "if", "else", "lambda", "is", "in")


def at_most(text: str, limit: int) -> bool:
    """True when :func:`expression_depth` of ``text`` is surely at most ``limit``, known from counts alone (no scan).

    The depth is the brackets open plus operators counted: at most every opening bracket and operator of the text.
    Each holds a character of its own taken out by :data:`_COUNTED` or is an occurrence of one of
    :data:`_COUNTED_TEXTS` (strings and comments included: a count over, never under)."""
    found = len(text) - len(text.translate(_COUNTED))
    for counted in _COUNTED_TEXTS:
        if found > limit:
            return False
        found += text.count(counted)
    return found <= limit


__all__ = ["DEFAULT_FILE_TIMEOUT", "DEFAULT_MAX_EXPRESSION_DEPTH", "Depth", "at_most", "expression_depth"]
