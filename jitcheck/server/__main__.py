"""``python -m jitcheck.server``: the same as ``jitcheck server``."""

import sys

from jitcheck.server import main

raise SystemExit(main(sys.argv[1:]))
