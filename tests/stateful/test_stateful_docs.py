"""docs/stateful.md's example runs as written, in a fresh interpreter."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path


def test_the_example_in_docs_stateful_md_runs(repo_root: Path, subprocess_env: dict[str, str], tmp_path: Path) -> None:
    text = (repo_root / "docs" / "stateful.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert blocks, "docs/stateful.md has no python example"
    script = tmp_path / "example.py"
    script.write_text("\n".join(blocks))
    done = subprocess.run(
        [sys.executable, str(script)], env=subprocess_env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr
    assert "lambda" in done.stdout  # the printed jaxpr
