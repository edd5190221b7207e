"""``python -m jitcheck``: the same command as ``jitcheck``."""

from jitcheck.lint.cli import main

raise SystemExit(main())
