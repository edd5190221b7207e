"""A child script's preamble that counts jax's own compiles (every "Compiling NAME" jax logs with jax_log_compiles).

The recorder tests prepend it to the scripts they run, so that the recorder's counts are
compared with jax's; the script prints ``JAX COMPILES {json}`` at its end with `REPORT`,
and `run_recorded` runs it under ``python -m jitcheck.debug run --recompiles-json``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

COUNT_COMPILES = """
import collections, json, logging
import jax, jax.numpy as jnp

COMPILES = collections.Counter()

class Count(logging.Handler):
    def emit(self, record):
        if record.msg.startswith("Compiling %s") and record.args:
            COMPILES[str(record.args[0])] += 1

jax.config.update("jax_log_compiles", True)
logger = logging.getLogger("jax._src.interpreters.pxla")
logger.addHandler(Count())
logger.propagate = False
"""

REPORT = 'print("JAX COMPILES", json.dumps(dict(COMPILES)))\n'


def run_script(tmp_path: Path, env: dict[str, str], code: str) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    """``python -m jitcheck.debug run --recompiles-json`` of ``code`` as ``tmp_path/script.py``: the records and the finished run."""
    script = tmp_path / "script.py"
    script.write_text(code)
    target = tmp_path / "r.json"
    result = subprocess.run(
        [sys.executable, "-m", "jitcheck.debug", "run", "--recompiles-json", str(target), str(script)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(target.read_text()), result


def run_recorded(tmp_path: Path, env: dict[str, str], script_text: str) -> tuple[Path, dict[str, Any], dict[str, int], dict[str, int]]:
    """Run ``script_text`` under the recorder: (the script's path, the records, jax's compiles by name, each ``# SITE name`` line)."""
    records, result = run_script(tmp_path, env, script_text)
    jax_compiles = json.loads(result.stdout.split("JAX COMPILES", 1)[1])
    lines = {text.split("# SITE ")[1]: i for i, text in enumerate(script_text.splitlines(), 1) if "# SITE " in text}
    return tmp_path / "script.py", records, jax_compiles, lines
