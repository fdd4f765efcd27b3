"""OpenClaw's bundled skills (skills/bundled.py and the bundled root in skills/listing.py): a
folder named by `skills.load.bundledDir`, or `auto`'s installed `openclaw` package, listed with
the workspace's skills, filtered by their requirements. Nothing here depends on what is
installed: every test names the folder or gives its own PATH lookup."""

from __future__ import annotations

import json
import os
from pathlib import Path

from promptc.model.config import SkillsConfig

from support.factories import make_config, write_files
from support.skills import build, listed_names, skill_md


def bundled_tree(root: Path) -> Path:
    """A bundled skills folder: `shared` (also in the workspace), `gh` (needs `gh` on PATH), `zz`."""
    return write_files(
        root,
        {
            "shared/SKILL.md": skill_md("shared", "the bundled copy"),
            "gh/SKILL.md": skill_md("gh", "GitHub", "metadata:\n  openclaw:\n    requires:\n      bins: [gh]"),
            "zz/SKILL.md": skill_md("zz", "last"),
        },
    )


def workspace(root: Path) -> Path:
    return write_files(
        root,
        {
            "skills/shared/SKILL.md": skill_md("shared", "the workspace copy"),
            "skills/mine/SKILL.md": skill_md("mine", "M"),
        },
    )


def with_bundled(setting: str | None) -> SkillsConfig:
    return SkillsConfig(bundled_dir=setting)


def test_a_named_bundled_folder_is_listed_with_the_workspace_which_wins_by_name(tmp_path: Path) -> None:
    folder = bundled_tree(tmp_path / "bundled")
    block = build(workspace(tmp_path / "ws"), make_config(skills=with_bundled(str(folder))))
    assert listed_names(block) == ["mine", "shared", "zz"]  # one list, sorted by name
    assert "<description>the workspace copy</description>" in block.text
    assert f"<location>{folder}/zz/SKILL.md</location>" in block.text
    gh = next(entry for entry in block.entries if entry.name == "gh")
    assert gh.reason == "ineligible: binaries not on PATH: gh"
    assert block.bundled == f"{folder} (from skills.load.bundledDir)"


def test_a_bundled_skill_wins_over_an_extra_roots_skill_of_the_same_name(tmp_path: Path) -> None:
    folder = bundled_tree(tmp_path / "bundled")
    extra = write_files(tmp_path / "extra", {"zz/SKILL.md": skill_md("zz", "the extra copy")})
    cfg = make_config(skills=SkillsConfig(bundled_dir=str(folder), extra_dirs=(str(extra),)))
    block = build(write_files(tmp_path / "ws", {}), cfg)
    assert "<description>last</description>" in block.text and "the extra copy" not in block.text


def test_no_setting_lists_no_bundled_skills_even_with_openclaw_installed(tmp_path: Path) -> None:
    command = installed_package(tmp_path / "npm")
    block = build(workspace(tmp_path / "ws"), which=lambda name: str(command) if name == "openclaw" else None)
    assert listed_names(block) == ["mine", "shared"] and block.bundled is None


def test_a_bundled_folder_that_is_missing_is_said(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    block = build(workspace(tmp_path / "ws"), make_config(skills=with_bundled(str(missing))))
    assert f"{missing}: skills.load.bundledDir is not a directory" in block.diagnostics
    assert listed_names(block) == ["mine", "shared"]


def installed_package(prefix: Path) -> Path:
    """An npm-style global install under `prefix`: the package under lib/node_modules, its command
    a link in bin/ to the package's entry file. Returns the link."""
    package = prefix / "lib" / "node_modules" / "openclaw"
    bundled_tree(package / "skills")
    write_files(package, {"package.json": json.dumps({"name": "openclaw", "bin": {"openclaw": "openclaw.mjs"}})})
    write_files(package, {"openclaw.mjs": "#!/usr/bin/env node\n"})
    (prefix / "bin").mkdir()
    link = prefix / "bin" / "openclaw"
    os.symlink(os.path.relpath(package / "openclaw.mjs", link.parent), link)
    return link


def test_auto_finds_the_package_of_the_openclaw_command(tmp_path: Path) -> None:
    command = installed_package(tmp_path / "npm")
    block = build(
        workspace(tmp_path / "ws"),
        make_config(skills=with_bundled("auto")),
        which=lambda name: str(command) if name == "openclaw" else None,
    )
    assert listed_names(block) == ["mine", "shared", "zz"]
    folder = tmp_path / "npm" / "lib" / "node_modules" / "openclaw" / "skills"
    assert block.bundled == f"{folder} (from the `openclaw` command on PATH ({command}))"


def test_auto_takes_openclaws_own_variable_first(tmp_path: Path) -> None:
    folder = bundled_tree(tmp_path / "elsewhere")
    command = installed_package(tmp_path / "npm")
    block = build(
        workspace(tmp_path / "ws"),
        make_config(skills=with_bundled("auto")),
        env={"OPENCLAW_BUNDLED_SKILLS_DIR": str(folder)},
        which=lambda name: str(command) if name == "openclaw" else None,
    )
    assert block.bundled == f"{folder} (from $OPENCLAW_BUNDLED_SKILLS_DIR)"


def test_auto_without_an_installed_package_lists_none_and_says_nothing(tmp_path: Path) -> None:
    not_openclaw = write_files(
        tmp_path / "other",
        {"package.json": '{"name": "other"}', "skills/x/SKILL.md": skill_md("x", "X"), "bin/openclaw": ""},
    )
    block = build(
        workspace(tmp_path / "ws"),
        make_config(skills=with_bundled("auto")),
        which=lambda name: str(not_openclaw / "bin" / "openclaw") if name == "openclaw" else None,
    )
    assert listed_names(block) == ["mine", "shared"]
    assert block.bundled is None and block.diagnostics == ()


def test_the_config_key_resolves_a_relative_folder_and_keeps_auto(
    run_cli, make_workspace, write_yaml, tmp_path, monkeypatch
):
    bundled_tree(tmp_path / "shipped")
    ws = make_workspace({"AGENTS.md": "a\n"})
    relative = write_yaml("relative.yaml", "skills:\n  load:\n    bundledDir: shipped\n")
    data = json.loads(run_cli("context", "--workspace", ws, "--config", relative, "--format", "json")[1])
    assert data["skills_bundled"] == f"{tmp_path / 'shipped'} (from skills.load.bundledDir)"
    assert [s["name"] for s in data["skills"] if s["included"]] == ["shared", "zz"]
    monkeypatch.setenv("OPENCLAW_BUNDLED_SKILLS_DIR", str(tmp_path / "shipped"))
    auto = write_yaml("auto.yaml", "skills:\n  load:\n    bundledDir: auto\n")
    data = json.loads(run_cli("context", "--workspace", ws, "--config", auto, "--format", "json")[1])
    assert data["skills_bundled"] == f"{tmp_path / 'shipped'} (from $OPENCLAW_BUNDLED_SKILLS_DIR)"
    text = run_cli("context", "--workspace", ws, "--config", auto)[1]
    assert f"  bundled skills: {tmp_path / 'shipped'} (from $OPENCLAW_BUNDLED_SKILLS_DIR)" in text
