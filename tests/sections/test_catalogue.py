"""The section catalogue (sections/catalogue.py): discovery, metadata validation, and user template
dirs overriding and adding sections, flat or in a sections folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptc import Request, RunFacts, compile_prompt
from promptc._lib.errors import TemplateError
from promptc.sections import catalogue

from support.guardrails import SAFETY, SAFETY_EDIT

BUILTIN_IDS = {
    "identity",
    "tooling",
    "subagent_delegation",
    "interaction_style",
    "tool_call_style",
    "execution_bias",
    "provider_prefix",
    "safety",
    "control",
    "self_update",
    "skills",
    "memory_recall",
    "model_aliases",
    "workspace",
    "documentation",
    "sandbox",
    "date_time",
    "output_directives",
    "bootstrap_notice",
    "workspace_files",
    "project_context",
    "silent_replies",
    "dynamic_context",
    "approvals",
    "authorized_senders",
    "control_ui",
    "messaging",
    "voice",
    "group_context",
    "reactions",
    "provider_suffix",
    "heartbeats",
    "runtime",
    "reasoning",
}


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


def test_every_builtin_section_id_exists():
    assert {spec.id for spec in catalogue.load().sections} >= BUILTIN_IDS


def test_sections_sort_stable_before_volatile():
    sides = [spec.side for spec in catalogue.load().sections]
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
        compile_prompt(
            Request(run=RunFacts(channel="telegram"), workspace=make_workspace({}), template_dirs=(templates,))
        )
    error = info.value
    assert error.location.path == str(templates / "leak.md.j2")
    assert error.location.line == 10  # 7 frontmatter lines + heading + "Line one." + this line
    assert "channel" in error.message and "volatile" in error.message


def test_the_same_variable_is_fine_below_the_boundary(user_dir, make_workspace):
    body = "## Channel\nYou are on {{ channel }}."
    templates = user_dir({"chan.md.j2": section("chan", 3350, body, side="volatile")})
    prompt = compile_prompt(
        Request(run=RunFacts(channel="telegram"), workspace=make_workspace({}), template_dirs=(templates,))
    )
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
        (
            "---\nid: x\norder: 1\nside: stable\nmodes: [full]\ntitle: X\ncolour: red\n---\n",
            "unknown metadata key 'colour'",
            7,
        ),
        ("---\nid: x\norder: 1\nside: middle\nmodes: [full]\ntitle: X\n---\n", "unknown side 'middle'", 4),
        ("---\nid: x\norder: 1\nside: stable\nmodes: [full, tiny]\ntitle: X\n---\n", "unknown mode 'tiny'", 5),
        ("---\nid: Bad-Id\norder: 1\nside: stable\nmodes: [full]\ntitle: X\n---\n", "snake_case", 2),
        ("id: x\n", "must start with a '---'", 1),
    ],
)
def test_invalid_metadata_names_file_and_line(user_dir, text, message, line):
    templates = user_dir({"x.md.j2": text})
    with pytest.raises(TemplateError) as info:
        catalogue.load([templates])
    assert message in info.value.message
    assert (info.value.location.path, info.value.location.line) == (str(templates / "x.md.j2"), line)


def test_a_section_metadata_block_is_closed_only_by_a_dashes_line(user_dir, make_workspace):
    """Unlike a workspace file's block, a section file's is not closed by `...` (to YAML, the end
    of a document), and whitespace may surround its delimiters; the body keeps its file lines."""
    text = " --- \nid: dots\norder: 951\nside: stable\nmodes: [full]\n...\n\t---\n## Dots\n{{ 6 * 7 }} {{ oops }}\n"
    templates = user_dir({"dots.md.j2": text})
    spec = next(spec for spec in catalogue.load([templates]).sections if spec.id == "dots")
    assert spec.source == "\n" * 7 + "## Dots\n{{ 6 * 7 }} {{ oops }}\n"
    with pytest.raises(TemplateError) as info:
        compile_prompt(Request(workspace=make_workspace({}), template_dirs=(templates,)))
    assert str(info.value.location) == f"{templates / 'dots.md.j2'}:9:16" and "oops" in info.value.message


def test_duplicate_order_is_an_error(user_dir):
    templates = user_dir({"a.md.j2": section("aaa", 801, "a"), "b.md.j2": section("bbb", 801, "b")})
    with pytest.raises(TemplateError, match="duplicate section order 801"):
        catalogue.load([templates])


def test_duplicate_id_within_one_dir_is_an_error(user_dir):
    templates = user_dir({"a.md.j2": section("same", 801, "a"), "b.md.j2": section("same", 802, "b")})
    with pytest.raises(TemplateError, match="duplicate section id 'same'"):
        catalogue.load([templates])


# --------------------------------------------------------------------------- layout


def _edited_safety() -> str:
    text = SAFETY.read_text(encoding="utf-8")
    assert SAFETY_EDIT[0] in text
    return text.replace(*SAFETY_EDIT)


@pytest.mark.parametrize("layout", ["safety.md.j2", "sections/safety.md.j2"])
def test_a_section_overrides_the_builtin_flat_or_in_a_sections_folder(run_cli, tmp_path, make_workspace, layout):
    templates = tmp_path / "mytemplates"
    (templates / layout).parent.mkdir(parents=True, exist_ok=True)
    (templates / layout).write_text(_edited_safety(), encoding="utf-8")
    ws = make_workspace({})
    code, out, _ = run_cli("render", "--templates", templates, "--workspace", ws)
    assert code == 0
    assert "Do not seek influence," in out and "Do not seek power," not in out
    builtin = run_cli("render", "--workspace", ws)[1]
    assert out == builtin.replace(*SAFETY_EDIT)  # the same prompt but for that one word
    code, listing, _ = run_cli("render", "--templates", templates, "--workspace", ws, "--list-sections")
    line = next(line for line in listing.splitlines() if line.startswith("safety "))
    assert line.endswith(f"[{templates / layout}, overrides builtin:safety.md.j2]")


def test_list_sections_as_json_has_source_and_overrides_for_every_section(run_cli, tmp_path, make_workspace):
    templates = tmp_path / "mytemplates"
    (templates / "sections").mkdir(parents=True)
    (templates / "sections" / "safety.md.j2").write_text(_edited_safety(), encoding="utf-8")
    (templates / "house_rules.md.j2").write_text(
        section("house_rules", 950, "## Rules\nNo shouting."), encoding="utf-8"
    )
    code, out, _ = run_cli(
        "render", "--templates", templates, "--workspace", make_workspace({}), "--list-sections", "--format", "json"
    )
    assert code == 0
    rows = {row["id"]: row for row in json.loads(out)}
    assert set(rows) == {spec.id for spec in catalogue.load([templates]).sections}
    assert rows["safety"]["source"] == str(templates / "sections" / "safety.md.j2")
    assert rows["safety"]["overrides"] == "builtin:safety.md.j2"
    assert rows["house_rules"] == {
        "id": "house_rules",
        "active": True,
        "why": "mode full",
        "order": 950,
        "side": "stable",
        "chars": len("## Rules\nNo shouting."),
        "source": str(templates / "house_rules.md.j2"),
        "overrides": None,
    }
    assert rows["control"]["source"] == "builtin:control.md.j2" and rows["control"]["overrides"] is None
    assert rows["voice"]["active"] is False and rows["voice"]["source"] == "builtin:voice.md.j2"


def test_list_sections_refuses_a_payload_format_instead_of_printing_text(run_cli, make_workspace):
    code, out, err = run_cli("render", "--workspace", make_workspace({}), "--list-sections", "--format", "anthropic")
    assert (code, out) == (2, "")
    assert err == "promptc: error: --format anthropic: --list-sections prints text or json\n"


@pytest.mark.parametrize("names", [["safety.j2"], ["safety.md"], ["sections/safety.jinja", "notes.txt"]])
def test_a_dir_that_contributes_nothing_is_an_error_naming_the_lookalikes(tmp_path, make_workspace, names):
    templates = tmp_path / "mytemplates"
    for name in names:
        (templates / name).parent.mkdir(parents=True, exist_ok=True)
        (templates / name).write_text(_edited_safety(), encoding="utf-8")
    with pytest.raises(TemplateError) as info:
        compile_prompt(Request(workspace=make_workspace({}), template_dirs=(templates,)))
    assert info.value.location.path == str(templates)
    assert info.value.message.startswith("template directory contributes no section and no partial: ")
    for name in names:
        assert name in info.value.message


def test_a_dir_with_only_partials_is_fine(tmp_path, make_workspace):
    templates = tmp_path / "mytemplates"
    (templates / "partials").mkdir(parents=True)
    (templates / "partials" / "extra.md.j2").write_text("unused\n", encoding="utf-8")
    assert compile_prompt(Request(workspace=make_workspace({}), template_dirs=(templates,))).stable


def test_the_same_id_flat_and_in_sections_names_both_files(tmp_path):
    templates = tmp_path / "mytemplates"
    (templates / "sections").mkdir(parents=True)
    for path in (templates / "house.md.j2", templates / "sections" / "house.md.j2"):
        path.write_text(section("house", 950, "x"), encoding="utf-8")
    with pytest.raises(TemplateError) as info:
        catalogue.load([templates])
    assert info.value.location.path == str(templates / "sections" / "house.md.j2")
    assert f"duplicate section id 'house' (also in {templates / 'house.md.j2'})" == info.value.message


def test_title_is_optional_and_defaults_to_the_id_in_title_case(user_dir):
    templates = user_dir({"h.md.j2": "---\nid: house_rules\norder: 950\nside: stable\nmodes: [full]\n---\nx\n"})
    spec = next(spec for spec in catalogue.load([templates]).sections if spec.id == "house_rules")
    assert spec.title == "House Rules"


def test_every_metadata_problem_of_every_file_is_shown_each_with_its_own_line(run_cli, user_dir, make_workspace):
    templates = user_dir(
        {
            "a.md.j2": "---\nid: Bad-Id\norder: ten\nside: stable\nmodes: [full]\n---\nx\n",
            "b.md.j2": "---\nid: b\norder: 951\nside: sideways\nmodes: [full, tiny]\n---\nx\n",
        }
    )
    code, out, err = run_cli("render", "--templates", templates, "--workspace", make_workspace({}))
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"promptc: error: {templates / 'a.md.j2'}:2:1: id must be snake_case, got 'Bad-Id'",
        f"promptc: error: {templates / 'a.md.j2'}:3:1: order must be a whole number, got 'ten'",
        f"promptc: error: {templates / 'b.md.j2'}:4:1: unknown side 'sideways' (expected stable or volatile)",
        f"promptc: error: {templates / 'b.md.j2'}:5:1: unknown mode 'tiny' (expected full, minimal, none)",
    ]


def test_a_duplicate_order_is_blamed_on_the_users_file_not_the_builtin(user_dir):
    safety_order = next(spec.order for spec in catalogue.load().sections if spec.id == "safety")
    templates = user_dir({"clash.md.j2": section("clash", safety_order, "x")})
    with pytest.raises(TemplateError) as info:
        catalogue.load([templates])
    assert str(info.value.location) == f"{templates / 'clash.md.j2'}:3:1"
    assert (
        info.value.message == f"duplicate section order {safety_order} (also used by 'safety' in builtin:safety.md.j2)"
    )


def test_a_new_sections_folder_is_seen_by_a_warm_compiler(tmp_path, make_workspace):
    from promptc import Compiler

    templates = tmp_path / "mytemplates"
    templates.mkdir()
    (templates / "house.md.j2").write_text(section("house", 950, "House text."), encoding="utf-8")
    with Compiler(template_dirs=[templates], workspace=make_workspace({})) as compiler:
        assert "Do not seek power," in compiler.compile().stable
        (templates / "sections").mkdir()
        (templates / "sections" / "safety.md.j2").write_text(_edited_safety(), encoding="utf-8")
        assert "Do not seek influence," in compiler.compile().stable


def test_a_section_replacing_a_builtin_may_leave_out_order_side_and_modes(user_dir):
    templates = user_dir({"safety.md.j2": "---\nid: safety\ntitle: Mine\n---\n## Mine\n"})
    spec = next(spec for spec in catalogue.load([templates]).sections if spec.id == "safety")
    assert (spec.order, spec.side, spec.modes, spec.title) == (800, "stable", frozenset({"full", "minimal"}), "Mine")
    assert spec.overrides == "builtin:safety.md.j2"


def test_a_new_section_must_still_give_order_side_and_modes(user_dir):
    templates = user_dir({"fresh.md.j2": "---\nid: fresh\n---\nhi\n"})
    with pytest.raises(TemplateError) as info:
        catalogue.load([templates])
    messages = [e.message for e in (info.value, *info.value.more)]
    assert messages == ["missing metadata key 'order'", "missing metadata key 'side'", "missing metadata key 'modes'"]
