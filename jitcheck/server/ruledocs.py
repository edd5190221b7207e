"""Where a rule's documentation lives (the diagnostic's ``codeDescription``) and what hover shows.

Both come from the one catalogue (:mod:`jitcheck.rules`) through the page generator of
docs/rules.md (:mod:`jitcheck.lint.rules_doc`), so the editor, ``jitcheck rule JCxxx``
and the docs say the same words. In a checkout the links go to its docs/rules.md; an
installed jitcheck has no docs folder, so the page is generated from the catalogue once,
into the user's cache folder under the version and a digest of its text: the same URL
for as long as the same catalogue is installed.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from jitcheck import __version__, rules
from jitcheck.lint.rules_doc import DEFAULT_PATH, anchor, render, rule_page


def cache_home() -> Path:
    """The user's cache folder (``$XDG_CACHE_HOME``, else ``~/.cache``)."""
    configured = os.environ.get("XDG_CACHE_HOME")
    return Path(configured) if configured else Path.home() / ".cache"


def generated_page() -> Path | None:
    """The rules page generated from the catalogue into the cache (written once); None where it cannot be written."""
    text = render()
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    path = cache_home() / "jitcheck" / f"{__version__}-{digest}" / "rules.md"
    if path.is_file():
        return path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp") as out:
            out.write(text)
        os.replace(out.name, path)  # whole or not at all, whoever writes it at the same time
    except OSError:
        return None
    return path


def default_base() -> str | None:
    """The rules page diagnostics link to, as a file URI: this checkout's docs/rules.md, else the generated page."""
    if DEFAULT_PATH.is_file():
        return DEFAULT_PATH.as_uri()
    page = generated_page()
    return page.as_uri() if page is not None else None


def link(code: str, base: str | None) -> str | None:
    """The URL of the rule's section under ``base`` (a page URL such as ``.../docs/rules.md``)."""
    if base is None or code not in rules.BY_CODE:
        return None
    return f"{base.split('#', 1)[0]}#{anchor(rules.BY_CODE[code])}"


def noqa_markdown(selector: str) -> str | None:
    """What hover shows on a code (or prefix, or rule name) listed in a ``# noqa:``: the rule's page, as ruff does;
    for a prefix, the rules it silences. None when it names no rule."""
    found = list(rules.matching(selector)) if selector.upper().startswith("JC") or selector.lower() in rules.BY_NAME else []
    if len(found) == 1:
        return rule_page(found[0], heading="###")
    if not found:
        return None
    return f"`{selector}` silences:\n\n" + "\n".join(f"- **{r.code}** `{r.name}`: {r.title}" for r in found)


def hover_markdown(code: str, message: str, help_: str) -> str | None:
    """The finding's own message and help, then the rule's page: why, example and fix."""
    rule = rules.BY_CODE.get(code)
    if rule is None:
        return None
    return f"**{code}** {message}\n\nhelp: {help_}\n\n---\n\n{rule_page(rule, heading='###')}"


__all__ = ["cache_home", "default_base", "generated_page", "hover_markdown", "link", "noqa_markdown"]

