"""Plugin options in ``[tool.jitcheck.mypy]`` (pyproject.toml) and ``[mypy.plugins.jitcheck]`` (ini files)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mypy_plugin import config
from tests.mypy.conftest import MypyCacheFor
from tests.mypy.harness import ROOT, mismatches, run_mypy

CASE = Path(__file__).parent / "config_cases" / "configured.py"
MODULE = "tests.mypy.config_cases.configured"

# The repository's [tool.mypy]; each config below has its own mypy cache (tests/mypy/conftest.py).
MYPY_TOML = """\
[tool.mypy]
python_version = "3.11"
strict = true
plugins = ["mypy_plugin"]
explicit_package_bases = true
"""
MYPY_INI = """\
[mypy]
python_version = 3.11
strict = True
plugins = mypy_plugin
explicit_package_bases = True
"""

OPTIONS_TOML = f"""
[tool.jitcheck.mypy]
constructors = ["{MODULE}.make_node(fn)", "{MODULE}.build_graph"]
graph-classes = ["{MODULE}.Pipeline[label, _, place]"]
ignore = ["JC105"]
"""
OPTIONS_INI = f"""
[mypy.plugins.jitcheck]
constructors =
    {MODULE}.make_node(fn),
    {MODULE}.build_graph
graph_classes = {MODULE}.Pipeline[label, _, place]
ignore = nested-function
"""
# OPTIONS_TOML and OPTIONS_INI say the same thing: one option set, so one mypy cache.
CONFIGURED = MYPY_TOML + OPTIONS_TOML


def write_config(folder: Path, name: str, text: str) -> Path:
    """A config file named ``name`` in ``folder``."""
    path = folder / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("name", "text"),
    [("pyproject.toml", MYPY_TOML + OPTIONS_TOML), ("mypy.ini", MYPY_INI + OPTIONS_INI)],
    ids=["toml", "ini"],
)
def test_options_add_constructors_and_graph_classes_and_ignore_rules(
    tmp_path: Path, mypy_cache_for: MypyCacheFor, name: str, text: str
) -> None:
    path = write_config(tmp_path, name, text)
    report = run_mypy(["--config-file", str(path), "--cache-dir", str(mypy_cache_for(CONFIGURED)), CASE.relative_to(ROOT).as_posix()])
    problems = mismatches(CASE, report)
    assert not problems, "\n".join(problems)


def test_without_options_the_same_file_draws_only_the_default_findings(tmp_path: Path, mypy_cache_for: MypyCacheFor) -> None:
    path = write_config(tmp_path, "pyproject.toml", MYPY_TOML)
    report = run_mypy(["--config-file", str(path), "--cache-dir", str(mypy_cache_for(MYPY_TOML)), CASE.relative_to(ROOT).as_posix()])
    found = {(m.line, m.code) for m in report.errors()}
    lines = CASE.read_text().splitlines()

    def line_of(text: str) -> int:
        return next(i for i, line in enumerate(lines, start=1) if text in line)

    # JC105 is back (the direct NodeDefinition call), the configured checks are gone.
    assert (line_of("NodeDefinition(inner,"), "jitcheck-body") in found
    assert (line_of("make_node(self.step"), "jitcheck-body") not in found
    assert (line_of("bad_stage:"), "jitcheck-label") not in found
    assert (line_of("bad_graph = "), "jitcheck-label") not in found


INVALID = [
    pytest.param(
        "pyproject.toml",
        MYPY_TOML + '\n[tool.jitcheck.mypy]\nconstructors = ["a.b.c"]\nconstrutors = ["a.b.d"]\n',
        9,
        "[tool.jitcheck.mypy] unknown option 'construtors'; did you mean 'constructors'?",
        id="unknown-option",
    ),
    pytest.param(
        "pyproject.toml",
        MYPY_TOML + '\n[tool.jitcheck.mypy]\nignore = "JC105"\n',
        8,
        "ignore must be a list of strings, got the string 'JC105'; write ignore = ['JC105']",
        id="string-for-list",
    ),
    pytest.param(
        "pyproject.toml",
        MYPY_TOML + '\n[tool.jitcheck.mypy]\nconstructors = ["make_node"]\n',
        8,
        "constructors[0]: 'make_node' is not a constructor name; write the full dotted name",
        id="undotted-constructor",
    ),
    pytest.param(
        "pyproject.toml",
        MYPY_TOML + '\n[tool.jitcheck.mypy]\nconstructors = ["a.b.f(1x)"]\n',
        8,
        "constructors[0]: 'a.b.f(1x)' lists '1x'; name its body parameters",
        id="bad-parameter",
    ),
    pytest.param(
        "pyproject.toml",
        MYPY_TOML + '\n[tool.jitcheck.mypy]\ngraph-classes = ["a.b.Graph[label, value]"]\n',
        8,
        "graph-classes[0]: 'a.b.Graph[label, value]' is not a graph class; write the full dotted name with one role per type parameter, each 'label', 'place' or '_'",
        id="bad-role",
    ),
    pytest.param(
        "pyproject.toml",
        MYPY_TOML + '\n[tool.jitcheck.mypy]\ngraph-classes = ["a.b.Graph[_, _]"]\n',
        8,
        "names no 'label' or 'place' parameter",
        id="no-role",
    ),
    pytest.param(
        "pyproject.toml",
        MYPY_TOML + '\n[tool.jitcheck.mypy]\nignore = ["JC401"]\n',
        8,
        "ignore[0]: 'JC401' matches no rule this plugin reports (it reports JC101, JC102",
        id="runtime-only-rule",
    ),
    pytest.param(
        "pyproject.toml",
        MYPY_TOML + "\n[tool.jitcheck]\nmypy = 3\n",
        8,
        "[tool.jitcheck.mypy] must be a table",
        id="not-a-table",
    ),
    pytest.param(
        "mypy.ini",
        MYPY_INI + "\n[mypy.plugins.jitcheck]\nignore = JC1, JC999\n",
        8,
        "[mypy.plugins.jitcheck] ignore[1]: 'JC999' matches no rule this plugin reports",
        id="ini-unknown-rule",
    ),
]


@pytest.mark.parametrize(("name", "text", "line", "message"), INVALID)
def test_invalid_options_stop_mypy_naming_file_line_and_fix(tmp_path: Path, name: str, text: str, line: int, message: str) -> None:
    path = write_config(tmp_path, name, text)
    (tmp_path / "empty.py").write_text("")
    report = run_mypy(["--config-file", str(path), "--cache-dir", str(tmp_path / "cache"), "empty.py"], cwd=tmp_path)
    assert report.status == 2
    assert f"{path}:{line}: error: " in report.stdout, report.stdout + report.stderr
    assert message in report.stdout, report.stdout


def test_every_bad_option_is_reported_in_one_run_on_mypys_stream(tmp_path: Path) -> None:
    text = MYPY_TOML + '\n[tool.jitcheck.mypy]\nconstrutors = ["a.b.d"]\nignore = ["JC401", "JC999"]\ngraph-classes = ["bad"]\n'
    path = write_config(tmp_path, "pyproject.toml", text)
    (tmp_path / "empty.py").write_text("")
    report = run_mypy(["--config-file", str(path), "--cache-dir", str(tmp_path / "cache"), "empty.py"], cwd=tmp_path)
    assert report.status == 2
    errors = [line for line in report.stdout.splitlines() if ": error: " in line]
    assert [e.split(": error: ")[0] for e in errors] == [f"{path}:8", f"{path}:9", f"{path}:9", f"{path}:10"], report.stdout
    assert "'construtors'" in errors[0] and "'JC401'" in errors[1] and "'JC999'" in errors[2] and "'bad'" in errors[3]
    assert not report.stderr.strip(), report.stderr


def test_plugin_error_codes_are_known_to_mypy(tmp_path: Path) -> None:
    # mypy validates --disable-error-code after loading plugins; unknown names stop it.
    path = write_config(tmp_path, "pyproject.toml", MYPY_TOML)
    (tmp_path / "empty.py").write_text("")
    args = ["--config-file", str(path), "--cache-dir", str(tmp_path / "cache"), "--no-site-packages"]
    report = run_mypy([*args, "--disable-error-code", "jitcheck-body", "--disable-error-code", "jitcheck-setting", "empty.py"], cwd=tmp_path)
    assert "Invalid error code" not in report.stderr + report.stdout
    assert report.status == 0, report.stderr + report.stdout
    refused = run_mypy([*args, "--disable-error-code", "jitcheck-nonsense", "empty.py"], cwd=tmp_path)
    assert "Invalid error code(s): jitcheck-nonsense" in refused.stderr + refused.stdout


def test_options_parse_to_what_they_say() -> None:
    origin = config.Origin("pyproject.toml", "", config.TOML_SECTION, toml=True)
    parsed = config.parse(
        {"constructors": ["a.b.f", "a.b.g(fn, step)"], "graph_classes": ["a.b.G[place, label]"], "ignore": ["JC1"]},
        origin,
    )
    assert parsed.constructors == {"a.b.f": ("body",), "a.b.g": ("fn", "step")}
    assert parsed.graph_classes == {"a.b.G": ("Place", "Label")}
    assert parsed.ignore == {"JC101", "JC102", "JC103", "JC104", "JC105"}
    assert config.load(None) == config.PluginConfig()


def test_line_numbers_point_at_the_option(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """\
        [tool.mypy]
        strict = true

        [tool.jitcheck.mypy]
        # a comment
        graph-classes = [
            "a.b.G[label]",
            "bad",
        ]
        """
    )
    path = tmp_path / "pyproject.toml"
    path.write_text(text)
    with pytest.raises(config.ConfigError) as raised:
        config.load(str(path))
    assert raised.value.line == 6
    assert "graph-classes[1]: 'bad' is not a graph class" in str(raised.value)
