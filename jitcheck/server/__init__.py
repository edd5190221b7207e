"""``jitcheck server``: the static pass as a language server (LSP over stdio, on pygls).

The editor gets the command line's findings as diagnostics while the user types, the
codemods as quick fixes, ``# noqa`` as a quick fix and the rule catalogue on hover.
Each module here holds one job; :mod:`jitcheck.server.app` wires them to pygls, which
is an optional dependency (``pip install '.[server]'`` from a clone).
"""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] = ()) -> int:
    """Run the server on stdin/stdout until the client exits or disconnects."""
    from jitcheck.server.cli import main as run

    return run(argv)


__all__ = ["main"]
