"""``jitcheck server``: parse its (few) options and run the language server on stdio."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] = ()) -> int:
    """Serve until the client says exit or closes the connection; 2 when pygls is missing. Once the analysis
    thread has run, the process ends here (status 0) rather than returning."""
    parser = argparse.ArgumentParser(
        prog="jitcheck server",
        description="Run jitcheck as a language server (LSP over stdin/stdout) for editors; see docs/editor.md.",
    )
    parser.add_argument("--log-file", help="write the server's log here (stdout is the protocol's)")
    args = parser.parse_args(list(argv))
    try:
        from jitcheck.server.app import build
    except ModuleNotFoundError as error:
        if error.name not in ("pygls", "lsprotocol"):
            raise
        print("jitcheck server: the language server needs pygls; install it with `pip install pygls` (or `pip install '.[server]'` in jitcheck's clone)",
              file=sys.stderr)
        return 2
    if args.log_file:
        logging.basicConfig(filename=args.log_file, level=logging.INFO)
    server = build()
    server.start_io()
    if server.end():
        # The analysis thread may be inside libcst's native parser: an interpreter that finalizes under it aborts
        # (SIGABRT). The client has said exit and the protocol's stream is closed: the process ends here.
        logging.shutdown()
        sys.stderr.flush()
        os._exit(0)
    return 0


__all__ = ["main"]
