"""Form feeds in indentation, which Python reads and libcst refuses.

Python's tokenizer resets its column count at a form feed (``\\x0c``) in a line's leading
whitespace, so ``\\x0c    for ...`` is indented by four; libcst's counts it and reports
"no matching outer block for dedent". :func:`strip` takes such form feeds out of the text
libcst reads (strings are left alone), :meth:`FormFeeds.column` moves a position back to
the original line, and :meth:`FormFeeds.restore` puts them back into a fixed text.
"""

from __future__ import annotations

import dataclasses
import difflib
import io
import tokenize

from jitcheck.lint import text as source_text


@dataclasses.dataclass(frozen=True)
class FormFeeds:
    """The text without form feeds in indentation, and each changed line as it was (by 1-based line)."""

    text: str
    removed: dict[int, tuple[str, int]]
    """Line -> (the original line with its ending, how many characters were taken out of its indentation)."""

    def column(self, line: int, column: int) -> int:
        """A 1-based column of ``line`` in the stripped text, as a column of the original line."""
        return column + self.removed[line][1] if line in self.removed and column > 0 else column

    def restore(self, fixed: str) -> str | None:
        """``fixed`` (the stripped text after a fix) with the form feeds back; None when a changed line was rewritten."""
        old = source_text.lines(self.text, keepends=True)
        new = source_text.lines(fixed, keepends=True)
        kept: dict[int, int] = {}
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
            if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):  # a line kept, or rewritten in place
                kept.update((i1 + k + 1, j1 + k) for k in range(i2 - i1))
        for line, (original, _) in self.removed.items():
            if line not in kept:
                return None
            indent = original[:len(original) - len(original.lstrip(" \t\x0c"))]
            stripped = indent.replace("\x0c", "")
            now = new[kept[line]]
            if not now.startswith(stripped) or now[len(stripped):len(stripped) + 1] in (" ", "\t"):
                return None  # the line's indentation changed
            new[kept[line]] = indent + now[len(stripped):]
        return "".join(new)


def strip(text: str) -> FormFeeds | None:
    """``text`` with the form feeds of its lines' indentation taken out; None when it has none (or does not tokenize)."""
    if "\x0c" not in text:
        return None
    lines = source_text.lines(text, keepends=True)
    removed: dict[int, tuple[str, int]] = {}
    last_row = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
            row, column = token.start
            if token.type in (tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
                continue
            first = row > last_row
            last_row = max(last_row, token.end[0])
            if not first or token.type in (tokenize.NL, tokenize.COMMENT):
                continue  # libcst reads a form feed before a comment or on a blank line
            indent = lines[row - 1][:column] if row <= len(lines) else ""
            if "\x0c" in indent and not indent.strip(" \t\x0c"):
                removed[row] = (lines[row - 1], indent.count("\x0c"))
    except (tokenize.TokenError, SyntaxError):
        return None
    if not removed:
        return None
    for row in removed:
        line = lines[row - 1]
        width = len(line) - len(line.lstrip(" \t\x0c"))
        lines[row - 1] = line[:width].replace("\x0c", "") + line[width:]
    return FormFeeds("".join(lines), removed)


__all__ = ["FormFeeds", "strip"]
