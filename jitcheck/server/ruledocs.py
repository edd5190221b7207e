"""Where a rule's documentation lives (the diagnostic's ``codeDescription``) and what hover shows.

Both come from the one catalogue (:mod:`jitcheck.rules`) through the page generator of
docs/rules.md (:mod:`jitcheck.lint.rules_doc`), so the editor, ``jitcheck rule JCxxx``
and the docs say the same words.
"""

from __future__ import annotations

from jitcheck import rules
from jitcheck.lint.rules_doc import DEFAULT_PATH, anchor, rule_page


def default_base() -> str | None:
    """docs/rules.md of this copy of jitcheck as a file URI, or None when it is not installed with it."""
    return DEFAULT_PATH.as_uri() if DEFAULT_PATH.is_file() else None


def link(code: str, base: str | None) -> str | None:
    """The URL of the rule's section under ``base`` (a page URL such as ``.../docs/rules.md``)."""
    if base is None or code not in rules.BY_CODE:
        return None
    return f"{base.split('#', 1)[0]}#{anchor(rules.BY_CODE[code])}"


def hover_markdown(code: str, message: str, help_: str) -> str | None:
    """The finding's own message and help, then the rule's page: why, example and fix."""
    rule = rules.BY_CODE.get(code)
    if rule is None:
        return None
    return f"**{code}** {message}\n\nhelp: {help_}\n\n---\n\n{rule_page(rule, heading='###')}"


__all__ = ["default_base", "hover_markdown", "link"]

