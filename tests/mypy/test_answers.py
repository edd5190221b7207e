"""The plugin's answer tables (mypy_plugin/answers.py): final answers kept, others asked again."""

from __future__ import annotations

from mypy_plugin.answers import Answers


def test_a_final_answer_is_computed_once_and_a_provisional_one_every_time() -> None:
    asked: list[str] = []
    defined = {"m.Graph"}

    def compute(fullname: str) -> tuple[str | None, bool]:
        asked.append(fullname)
        if fullname in defined:
            return "hook", True
        return None, fullname.startswith("builtins.")  # builtins never become graphs; m.Later may

    answers = Answers(compute)
    ask = answers.__getitem__
    assert [ask("m.Graph"), ask("m.Graph"), ask("builtins.int"), ask("builtins.int")] == ["hook", "hook", None, None]
    assert asked == ["m.Graph", "builtins.int"]
    assert ask("m.Later") is None and ask("m.Later") is None
    assert asked.count("m.Later") == 2, "a provisional answer was kept"
    defined.add("m.Later")
    assert ask("m.Later") == "hook"
    answers.clear()  # (dmypy) the modules changed: every name is judged again
    assert ask("builtins.int") is None and asked.count("builtins.int") == 2
