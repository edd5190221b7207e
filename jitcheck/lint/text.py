"""How Python reads a source file: the encoding of its bytes and where its lines end.

Python decodes a module with the codec its BOM or its ``# coding:`` line (line 1 or 2)
names, else UTF-8 (``tokenize.detect_encoding``'s rules), and ends a line at ``\\n``,
``\\r\\n`` or ``\\r`` only. ``str.splitlines`` also breaks at a form feed, U+2028, U+0085
and other characters, which would put a ``# noqa`` or a fix's edit on the wrong line, so
every line count of the static pass goes through :func:`lines`.
"""

from __future__ import annotations

import codecs
import re
import tokenize
from io import BytesIO

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_ENDING = re.compile(r"\r\n|\r|\n")


def lines(text: str, keepends: bool = False) -> list[str]:
    """``text`` cut into lines as Python's tokenizer cuts it (at ``\\n``, ``\\r\\n`` and ``\\r`` only)."""
    found = _LINE.findall(text)
    if keepends:
        return found
    return [line.rstrip("\r\n") for line in found]


def ending(line: str) -> str:
    """The line ending ``line`` (a line of :func:`lines` with its ending) carries, ``""`` for none."""
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith(("\r", "\n")):
        return line[-1]
    return ""


def count(text: str) -> int:
    """How many lines Python counts in ``text`` (a last line without an ending counts)."""
    breaks = len(_ENDING.findall(text))
    return breaks + (1 if text and not text.endswith(("\r", "\n")) else 0)


def encoding_of(data: bytes) -> tuple[str, bytes]:
    """The codec Python decodes ``data`` with and the BOM it starts with (``b""`` for none).

    :class:`SyntaxError` as Python raises it for a bad declaration (an unknown codec, a
    BOM with a coding line that is not UTF-8, a first line that is not UTF-8).
    """
    encoding, _ = tokenize.detect_encoding(BytesIO(data).readline)
    if encoding == "utf-8-sig" or data.startswith(codecs.BOM_UTF8):
        return "utf-8", codecs.BOM_UTF8
    return encoding, b""


def decode(data: bytes) -> str:
    """``data`` decoded as Python decodes a module (BOM dropped); :class:`SyntaxError` or
    :class:`UnicodeDecodeError` when Python would refuse it."""
    encoding, bom = encoding_of(data)
    text = data.decode(encoding)  # the whole data, so an error's offset is the file's
    return text[1:] if bom else text


__all__ = ["count", "decode", "encoding_of", "ending", "lines"]
