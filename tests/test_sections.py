"""Section discovery, metadata validation and user template dirs (issue 2, 5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptc import Request, RunFacts, compile_prompt
from promptc.errors import TemplateError
from promptc.sections.catalogue import discover

BUILTIN_IDS_FROM_SPEC = {
    "identity", "tooling", "subagent_delegation", "interaction_style", "tool_call_style",
    "execution_bias", "provider_prefix", "safety", "control", "self_update", "skills",
    "memory_recall", "model_aliases", "workspace", "documentation", "sandbox", "date_time",
    "output_directives", "bootstrap_notice", "workspace_files", "project_context",
    "silent_replies", "dynamic_context", "approvals", "authorized_senders", "control_ui",
    "messaging", "voice", "group_context", "reactions", "provider_suffix", "heartbeats",
    "runtime", "reasoning",
}  # fmt: skip


def section(id: str, order: int, body: str, side: str = "stable", extra: str = "") -> str:
    return f"---\nid: {id}\norder: {order}\nside: {side}\nmodes: [full, minimal]\ntitle: {id}\n{extra}---\n{body}\n"


@pytest.fixture
def user_dir(tmp_path):
    def make(files: dict[str, str]) -> Path:
        root = tmp_path / "templates"
        root.mkdir()
        for name, text in files.items():
            (root / name).write_text(text, encoding="utf-8")
        return root

    return make


def test_every_spec_section_id_exists():
    assert BUILTIN_IDS_FROM_SPEC <= {spec.id for spec in discover()}


def test_sections_sort_stable_before_volatile():
    sides = [spec.side for spec in discover()]
    assert sides == sorted(sides, key=["stable", "volatile"].index)


def test_user_dir_replaces_a_section_by_id_and_adds_a_new_one(user_dir, make_workspace):
    templates = user_dir(
        {
            "safety.md.j2": section("safety", 800, "## Safety\nOur own safety text."),
            "house_rules.md.j2": section("house_rules", 850, "## House Rules\nNo shouting."),
        }
    )
    prompt = compile_prompt(Request(workspace=make_workspace({}), template_dirs=(templates,)))
    ids = [s.id for s in prompt.sections]
    assert "Our own safety text." in prompt.stable
    assert "Do not seek power" not in prompt.stable
    assert ids.index("safety") < ids.index("house_rules") < ids.index("control")


def test_stable_section_reading_a_volatile_variable_fails_with_file_and_line(user_dir, make_workspace):
    body = "## Channel\nLine one.\nYou are on {{ channel }}."
    templates = user_dir({"leak.md.j2": section("leak", 850, body)})
    with pytest.raises(TemplateError) as info:
        compile_prompt(Request(run=RunFacts(channel="telegram"), workspace=make_workspace({}), template_dirs=(templates,)))
    error = info.value
    assert error.location.path == str(templates / "leak.md.j2")
    assert error.location.line == 10  # 7 frontmatter lines + heading + "Line one." + this line
    assert "channel" in error.message and "volatile" in error.message


def test_the_same_variable_is_fine_below_the_boundary(user_dir, make_workspace):
    body = "## Channel\nYou are on {{ channel }}."
    templates = user_dir({"chan.md.j2": section("chan", 3350, body, side="volatile")})
    prompt = compile_prompt(Request(run=RunFacts(channel="telegram"), workspace=make_workspace({}), template_dirs=(templates,)))
    assert "You are on telegram." in prompt.volatile


def test_template_syntax_error_names_file_and_line(user_dir, make_workspace):
    templates = user_dir({"broken.md.j2": section("broken", 850, "ok\n{% if %}\n")})
    with pytest.raises(TemplateError) as info:
        compile_prompt(Request(workspace=make_workspace({}), template_dirs=(templates,)))
    assert info.value.location.path.endswith("broken.md.j2")
    assert info.value.location.line == 9


@pytest.mark.parametrize(
    "text, message, line",
    [
        ("---\nid: x\norder: 1\nside: stable\n---\nbody\n", "missing metadata key 'modes'", 1),
        ("---\nid: x\norder: 1\nside: stable\nmodes: [full]\ntitle: X\ncolour: red\n---\n", "unknown metadata key 'colour'", 7),
        ("---\nid: x\norder: 1\nside: middle\nmodes: [full]\ntitle: X\n---\n", "unknown side 'middle'", 4),
        ("---\nid: x\norder: 1\nside: stable\nmodes: [full, tiny]\ntitle: X\n---\n", "unknown mode 'tiny'", 5),
        ("---\nid: Bad-Id\norder: 1\nside: stable\nmodes: [full]\ntitle: X\n---\n", "snake_case", 2),
        ("id: x\n", "must start with a '---'", 1),
    ],
)
def test_invalid_metadata_names_file_and_line(user_dir, text, message, line):
    templates = user_dir({"x.md.j2": text})
    with pytest.raises(TemplateError) as info:
        discover([templates])
    assert message in info.value.message
    assert (info.value.location.path, info.value.location.line) == (str(templates / "x.md.j2"), line)


def test_duplicate_order_is_an_error(user_dir):
    templates = user_dir({"a.md.j2": section("aaa", 801, "a"), "b.md.j2": section("bbb", 801, "b")})
    with pytest.raises(TemplateError, match="duplicate section order 801"):
        discover([templates])


def test_duplicate_id_within_one_dir_is_an_error(user_dir):
    templates = user_dir({"a.md.j2": section("same", 801, "a"), "b.md.j2": section("same", 802, "b")})
    with pytest.raises(TemplateError, match="duplicate section id 'same'"):
        discover([templates])
