"""``jitcheck server``: parse its (few) options and run the language server on stdio."""

from __future__ import annotations

import argparse
import gc
import importlib.util
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
    if not all(map(_installed, ("pygls", "lsprotocol"))):
        return _no_pygls()
    # The static pass is loaded and judges a small module first, before any thread runs: the helper processes are
    # forked from this process then, loaded and warm, ready for the first file opened (and so is this process).
    from jitcheck.server.helpers import Helpers, warm

    helpers = Helpers()
    if helpers.count:
        warm()
    # What keys the stored parts (the libcst and Python versions, a digest of the analysis's source) is read once per
    # process: here, before `initialize` is answered, rather than in the first file's open (importlib.metadata's
    # look-up of libcst's version was about 15 ms of it).
    from jitcheck.lint.config import analysis_digest, tool_versions

    tool_versions()
    analysis_digest()
    if helpers.count:
        gc.collect()
        gc.freeze()
    helpers.start(preloaded=True)
    try:
        from jitcheck.server.app import build
    except ModuleNotFoundError as error:
        helpers.stop(terminate=True)
        if error.name not in ("pygls", "lsprotocol"):
            raise
        return _no_pygls()
    if args.log_file:
        logging.basicConfig(filename=args.log_file, level=logging.INFO)
    server = build(helpers)
    server.start_io()
    if server.end():
        # The analysis thread may be inside libcst's native parser: an interpreter that finalizes under it aborts
        # (SIGABRT). The client has said exit and the protocol's stream is closed: the process ends here.
        logging.shutdown()
        sys.stderr.flush()
        os._exit(0)
    return 0


def _installed(name: str) -> bool:
    """Whether the top-level module ``name`` can be imported (found, without importing it)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ValueError:  # in sys.modules without a spec
        return sys.modules.get(name) is not None


def _no_pygls() -> int:
    print("jitcheck server: the language server needs pygls; install it with `pip install pygls` (or `pip install '.[server]'` in jitcheck's clone)",
          file=sys.stderr)
    return 2


__all__ = ["main"]
