"""The documentation stays true: the generated pages and schemas are what the code makes now, the
getting-started tour runs as written and prints what it shows, the site's navigation names only
pages that exist, and no page or message points a user at source files, spec sections or issues."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from promptc.commands import cli, reference
from promptc.features.reference import lintref

from support.paths import REPO

DOCS = REPO / "docs"
PAGES = sorted(DOCS.rglob("*.md"))


# --------------------------------------------------------------------------- generated files


GENERATED = reference.generated(cli.top_parser(), cli.command_parsers())
"""Every generated file as the code makes it now, by its path under docs/."""


@pytest.mark.parametrize("name", list(GENERATED))
def test_every_generated_file_is_what_the_code_makes_now(name):
    committed = DOCS / name
    assert committed.is_file(), f"docs/{name} is missing: run python docs/gen.py"
    assert committed.read_text(encoding="utf-8") == GENERATED[name], "stale: run python docs/gen.py"


def test_the_generator_script_writes_what_it_checks(tmp_path):
    shutil.copytree(DOCS, tmp_path / "docs")
    (tmp_path / "docs" / "reference" / "config.md").write_text("stale\n", encoding="utf-8")
    (tmp_path / "docs" / "schemas" / "run.json").unlink()
    script = tmp_path / "docs" / "gen.py"
    check = subprocess.run([sys.executable, script, "--check"], capture_output=True, text=True)
    assert (check.returncode, check.stdout) == (1, "stale: docs/reference/config.md\nstale: docs/schemas/run.json\n")
    write = subprocess.run([sys.executable, script], capture_output=True, text=True)
    assert write.returncode == 0
    assert subprocess.run([sys.executable, script, "--check"], capture_output=True).returncode == 0


@pytest.mark.parametrize("rule", lintref.RULES, ids=lambda rule: rule.title)
def test_every_lint_rule_example_is_a_finding(rule):
    found = lintref.findings(rule)
    assert found and all(re.match(r"mytemplates[^:]*:\d+:\d+: ", line) for line in found), found


def test_the_reference_pages_name_every_declared_key_fact_and_variable():
    from promptc.inputs import configdocs
    from promptc.model.runfacts import FACTS
    from promptc.sections.variables import STABLE, VOLATILE

    config = (DOCS / "reference" / "config.md").read_text(encoding="utf-8")
    assert all(f"`{key}`" in config for key in configdocs.DESCRIPTIONS)
    facts = (DOCS / "reference" / "run-facts.md").read_text(encoding="utf-8")
    assert all(f"| `{d.name}` |" in facts for d in FACTS if d.fact.file)
    variables = (DOCS / "reference" / "variables.md").read_text(encoding="utf-8")
    assert all(f"| `{name}` |" in variables for name in [*STABLE, *VOLATILE])
    commands = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    assert "\n## `promptc config show`" not in commands and "\n### `promptc config show`" in commands
    assert "--origins" in commands and "\n## `promptc schema`" in commands


def test_every_schema_key_has_a_description_and_every_description_a_key():
    from promptc.inputs import configdocs, configkeys
    from promptc.inputs.configkeys import ListOf, MapOf, Table

    def patterns(node, pattern):
        if pattern and not pattern.endswith(("[]", "{}")):
            yield pattern
        children = (
            node.fields.items()
            if isinstance(node, Table)
            else [("[]", node.item)]
            if isinstance(node, ListOf)
            else [("{}", node.value)]
            if isinstance(node, MapOf)
            else []
        )
        for key, child in children:
            yield from patterns(child, pattern + key if key in ("[]", "{}") else f"{pattern}.{key}" if pattern else key)

    found = set(patterns(configkeys.SCHEMA, ""))
    undescribed = sorted(p for p in found if configdocs.description(p) is None)
    assert undescribed == []
    assert sorted(set(configdocs.DESCRIPTIONS) - found) == []


# --------------------------------------------------------------------------- the site


def test_the_site_navigation_names_only_pages_that_exist_and_every_page_of_ours():
    site = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))

    def names(items):
        for item in items:
            for value in item.values() if isinstance(item, dict) else [item]:
                yield from names(value) if isinstance(value, list) else [value]

    listed = list(names(site["nav"]))
    assert len(listed) == len(set(listed))
    assert all((DOCS / name).is_file() for name in listed), [n for n in listed if not (DOCS / n).is_file()]
    assert {p.relative_to(DOCS).as_posix() for p in PAGES} <= set(listed)


def test_every_relative_link_between_pages_resolves():
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#:]+\.md)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            assert (page.parent / target).is_file(), f"{page.relative_to(REPO)} links to {target}"


# --------------------------------------------------------------------------- no pointers a user cannot follow

SOURCE_PATH = re.compile(r"\bcompiler/[a-z_]")
SPEC_OR_ISSUE = re.compile(r"\bSPEC \d|\bSPEC§|\bissue \d|\bissues? #\d|design card")


def test_no_page_names_source_paths_spec_sections_or_issues():
    for page in [REPO / "README.md", *PAGES]:
        text = page.read_text(encoding="utf-8")
        assert not SPEC_OR_ISSUE.search(text), page
        if page.name != "design.md":  # the page about the source itself: it names modules by path
            assert not SOURCE_PATH.search(text), (page, SOURCE_PATH.search(text))


def test_no_message_of_promptc_names_a_source_path_spec_section_or_issue():
    """Every string the package can print (docstrings left aside) is checked."""
    for path in sorted((REPO / "compiler").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                text = node.value
                assert not SOURCE_PATH.search(text), (path, text)
                assert not SPEC_OR_ISSUE.search(text), (path, text)


# --------------------------------------------------------------------------- the getting-started tour

TOUR = (DOCS / "getting-started.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"(?:\*\*`(?P<file>[^`]+)`\*\*\n\n)?```(?P<lang>\w+)\n(?P<body>.*?)```", re.DOTALL)


def test_the_getting_started_tour_runs_as_written_and_prints_what_it_shows(tmp_path):
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    last = ""
    ran = 0
    for block in BLOCK.finditer(TOUR):
        body, lang = block["body"], block["lang"]
        if block["file"]:
            (tmp_path / block["file"]).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / block["file"]).write_text(body, encoding="utf-8")
        elif lang == "sh":
            for line in body.splitlines():
                if line.startswith("pip install"):
                    continue  # the page's own install step: the tests run in an installed promptc
                command, _, note = line.partition("  # exits ")
                done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True)
                assert done.returncode == int(note or 0), (command, done.stderr)
                last, ran = done.stdout + done.stderr, ran + 1
        elif lang == "text":
            shown = [line for line in body.splitlines() if line != "..."]
            assert all(line in last.splitlines() for line in shown), (body, last[-3000:])
    assert ran >= 14
