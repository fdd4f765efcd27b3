"""`promptc templates list` and `templates eject`: start a section from a built-in."""

from __future__ import annotations

import pytest


@pytest.fixture
def workspace(tmp_path):
    directory = tmp_path / "ws"
    directory.mkdir()
    return directory


def test_list_names_each_builtin_with_its_order_side_and_modes(run_cli):
    code, out, _ = run_cli("templates", "list")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["id", "order", "side", "modes", "file"]
    assert ["safety", "800", "stable", "full,minimal", "builtin:safety.md.j2"] in [line.split() for line in lines]


def test_an_ejected_section_renders_byte_identically_and_one_edited_word_is_the_only_change(
    run_cli, tmp_path, workspace
):
    _, before, _ = run_cli("render", "--workspace", workspace, "--no-state")
    target = tmp_path / "mine"
    code, out, _ = run_cli("templates", "eject", "safety", "--to", target)
    assert (code, out) == (0, f"wrote {target / 'safety.md.j2'}\n")
    _, after, _ = run_cli("render", "--workspace", workspace, "--templates", target, "--no-state")
    assert after == before
    section = target / "safety.md.j2"
    section.write_text(section.read_text(encoding="utf-8").replace("Never copy", "Never ever copy"), encoding="utf-8")
    _, edited, _ = run_cli("render", "--workspace", workspace, "--templates", target, "--no-state")
    assert "Never copy" in before
    assert edited == before.replace("Never copy", "Never ever copy")


def test_eject_copies_the_partials_a_section_uses(run_cli, tmp_path):
    code, out, _ = run_cli("templates", "eject", "project_context", "--to", tmp_path)
    assert code == 0
    assert out.splitlines() == [
        f"wrote {tmp_path / 'project_context.md.j2'}",
        f"wrote {tmp_path / 'partials' / 'workspace_file.md.j2'}",
    ]
    assert "{% macro" in (tmp_path / "partials" / "workspace_file.md.j2").read_text(encoding="utf-8")


def test_eject_never_overwrites_and_names_an_unknown_id(run_cli, tmp_path):
    (tmp_path / "safety.md.j2").write_text("mine\n", encoding="utf-8")
    code, out, err = run_cli("templates", "eject", "safety", "--to", tmp_path)
    assert (code, out) == (2, "")
    assert err.startswith(f"promptc: error: will not overwrite {tmp_path / 'safety.md.j2'}")
    assert (tmp_path / "safety.md.j2").read_text(encoding="utf-8") == "mine\n"
    code, _, err = run_cli("templates", "eject", "safty")
    assert code == 2
    assert err == "promptc: error: no built-in section 'safty' (did you mean 'safety'?)\n"
