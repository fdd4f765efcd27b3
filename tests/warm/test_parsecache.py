"""The on-disk cache of parsed SKILL.md and section metadata (warm/parsecache.py): what it
keeps, that a later process uses it, and that no state of it can change an output except an
entry someone wrote into the user's own private directory."""

from __future__ import annotations

import hashlib
import inspect
import json
import os
from pathlib import Path

import pytest

from promptc import Compiler, RunFacts
from promptc.warm import parsecache

from support.factories import write_files

SKILL = (
    '---\nname: weather\ndescription: Look up the forecast\nmetadata: {"openclaw": {"emoji": "sun"}}\n---\n# Weather\n'
)
NESTED = "---\nname: notes\ndescription: >\n  Keep notes\n  in folders\ntags: [a, b]\n---\nbody\n"
SECTION = (
    "---\nid: house_rules\norder: 1555\nside: stable\nmodes: [full]\ntitle: House rules\n---\nBe kind to the plants.\n"
)
ENV = {"PATH": "/usr/bin:/bin"}


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """A fresh, private cache directory for this test."""
    directory = tmp_path / "cache"
    monkeypatch.setenv(parsecache.ENV_VAR, str(directory))
    return directory


@pytest.fixture
def workspace(tmp_path) -> Path:
    root = tmp_path / "ws"
    write_files(root, {"AGENTS.md": "# Agents\n", "skills/weather/SKILL.md": SKILL, "skills/notes/SKILL.md": NESTED})
    return root


@pytest.fixture
def templates(tmp_path) -> Path:
    root = tmp_path / "templates"
    write_files(root, {"house_rules.md.j2": SECTION})
    return root


def fresh_text(workspace: Path, templates: Path) -> str:
    """A prompt from a Compiler of its own (as a new process has: nothing in memory)."""
    with Compiler(workspace=workspace, template_dirs=[templates], env=ENV) as compiler:
        return compiler.compile(RunFacts()).text


def stored(directory: Path, kind: str) -> tuple[Path, dict]:
    (path,) = directory.glob(f"{kind}-*.json")
    return path, json.loads(path.read_text())


def test_a_compile_stores_its_parses_and_the_next_one_gives_the_same_prompt(cache, workspace, templates):
    first = fresh_text(workspace, templates)
    _, skill_file = stored(cache, "skills")
    _, section_file = stored(cache, "sections")
    assert len(skill_file["entries"]) == 2
    assert any(entry["id"] == "house_rules" for entry in section_file["entries"].values())
    assert fresh_text(workspace, templates) == first
    assert "Keep notes in folders" in first and "Be kind to the plants." in first


def test_a_later_compiler_takes_the_metadata_from_the_disk_entry(cache, workspace, templates):
    """Shown by editing the stored entries (only the owner can: the directory is private): the
    next Compiler lists what the entry says, not what a parse of the file would."""
    fresh_text(workspace, templates)
    path, data = stored(cache, "skills")
    digest = hashlib.sha256(SKILL.encode()).hexdigest()
    data["entries"][digest][0]["description"] = "From the disk entry"
    path.write_text(json.dumps(data))
    section_path, sections = stored(cache, "sections")
    for entry in sections["entries"].values():
        if entry["id"] == "house_rules":
            entry["source"] = entry["source"].replace("plants", "cacti")
    section_path.write_text(json.dumps(sections))
    text = fresh_text(workspace, templates)
    assert "From the disk entry" in text and "Look up the forecast" not in text
    assert "Be kind to the cacti." in text


def test_an_edited_skill_is_parsed_again(cache, workspace, templates):
    fresh_text(workspace, templates)
    (workspace / "skills/weather/SKILL.md").write_text(SKILL.replace("the forecast", "the sky tomorrow"))
    assert "Look up the sky tomorrow" in fresh_text(workspace, templates)
    assert len(stored(cache, "skills")[1]["entries"]) == 3


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"[]",
        json.dumps({"format": parsecache.FORMAT + 1, "entries": {}}).encode(),
        json.dumps({"format": parsecache.FORMAT, "entries": []}).encode(),
    ],
    ids=["not-json", "not-an-object", "other-format", "entries-not-a-map"],
)
def test_an_unreadable_store_is_ignored_whole(cache, workspace, templates, content):
    expected = fresh_text(workspace, templates)
    for path in cache.glob("*.json"):
        path.write_bytes(content)
    assert fresh_text(workspace, templates) == expected


@pytest.mark.parametrize(
    "damage",
    [
        lambda entry: entry.pop(),  # one item, not two
        lambda entry: entry.__setitem__(0, ["a list"]),  # metadata not a mapping
        lambda entry: entry.__setitem__(1, 7),  # problem not text
    ],
    ids=["short", "metadata-list", "problem-number"],
)
def test_a_skill_entry_of_the_wrong_shape_is_a_miss(cache, workspace, templates, damage):
    expected = fresh_text(workspace, templates)
    path, data = stored(cache, "skills")
    for entry in data["entries"].values():
        damage(entry)
    path.write_text(json.dumps(data))
    assert fresh_text(workspace, templates) == expected


@pytest.mark.parametrize(
    "damage",
    [
        lambda entry: entry.__setitem__("order", "1500"),
        lambda entry: entry.__setitem__("modes", "full"),
        lambda entry: entry.__setitem__("key_lines", [["id", "2"]]),
        lambda entry: entry.pop("title"),
        lambda entry: entry.__setitem__("extra", 1),
        lambda entry: entry.__setitem__("overrides", "builtin:x.md.j2"),
    ],
    ids=["order-text", "modes-text", "line-text", "missing-key", "extra-key", "overrides-set"],
)
def test_a_section_entry_of_the_wrong_shape_is_a_miss(cache, workspace, templates, damage):
    expected = fresh_text(workspace, templates)
    path, data = stored(cache, "sections")
    for entry in data["entries"].values():
        entry["source"] = entry["source"].replace("plants", "cacti")  # would show if the entry were used
        damage(entry)
    path.write_text(json.dumps(data))
    assert fresh_text(workspace, templates) == expected


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="directory ownership is checked only where POSIX has it")
def test_a_directory_others_can_write_to_is_neither_read_nor_written(cache, workspace, templates):
    fresh_text(workspace, templates)  # fills the cache
    path, data = stored(cache, "skills")
    digest = hashlib.sha256(SKILL.encode()).hexdigest()
    data["entries"][digest][0]["description"] = "Planted by someone else"
    path.write_text(json.dumps(data))
    cache.chmod(0o777)
    before = {p.name: p.read_bytes() for p in cache.iterdir()}
    (workspace / "skills/notes/SKILL.md").write_text(NESTED.replace("notes", "jottings"))
    text = fresh_text(workspace, templates)
    assert "Planted by someone else" not in text and "Look up the forecast" in text
    assert {p.name: p.read_bytes() for p in cache.iterdir()} == before  # the new parse was not written


def test_an_empty_setting_turns_the_disk_cache_off(tmp_path, monkeypatch, workspace, templates):
    monkeypatch.setenv(parsecache.ENV_VAR, "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert parsecache.cache_dir() is None
    assert "Look up the forecast" in fresh_text(workspace, templates)
    assert not (tmp_path / "xdg").exists()


def test_without_a_setting_the_cache_is_under_xdg_cache_home(tmp_path):
    assert parsecache.cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "promptc"
    assert parsecache.cache_dir({"XDG_CACHE_HOME": "relative"}) == Path.home() / ".cache" / "promptc"


def test_no_home_directory_means_no_disk_cache_not_a_crash(monkeypatch, workspace, templates):
    def nowhere() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(nowhere))
    monkeypatch.delenv(parsecache.ENV_VAR, raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert parsecache.cache_dir() is None
    assert "Look up the forecast" in fresh_text(workspace, templates)


def test_a_cache_path_that_cannot_be_a_directory_costs_nothing_but_speed(tmp_path, monkeypatch, workspace, templates):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv(parsecache.ENV_VAR, str(blocker / "cache"))
    assert "Look up the forecast" in fresh_text(workspace, templates)
    assert blocker.read_text() == "not a directory"


def test_a_value_json_would_not_give_back_exactly_is_not_stored(tmp_path):
    store = parsecache.Store(tmp_path, "kind", "key")
    store.put("tuple", ({"a": 1}, None))  # a tuple comes back a list
    store.put("nan", [float("nan")])
    store.put("set", [{1}])
    store.put("plain", [{"a": [1, 1.5, True, None, "x"]}, None])
    store.flush()
    assert set(json.loads((tmp_path / "kind-key.json").read_text())["entries"]) == {"plain"}


def test_the_file_key_follows_the_parser_sources(tmp_path):
    source = tmp_path / "parser.py"
    source.write_text("one")
    before = parsecache.file_key([str(source)])
    assert parsecache.file_key([str(source)]) == before
    source.write_text("two!")
    assert parsecache.file_key([str(source)]) != before


def test_the_file_key_follows_whether_pyyaml_has_libyaml(monkeypatch):
    import yaml

    before = parsecache.file_key([])
    monkeypatch.setattr(yaml, "__with_libyaml__", not yaml.__with_libyaml__)
    assert parsecache.file_key([]) != before


def test_each_store_key_follows_the_sources_of_the_code_that_decides_its_entries(monkeypatch, workspace):
    from promptc._lib import checks, frontmatter, text
    from promptc.inputs import yamlsrc
    from promptc.sections import sectionfile
    from promptc.skills import skillfile

    keys: dict[str, tuple] = {}
    monkeypatch.setattr(parsecache, "file_key", tuple)
    monkeypatch.setattr(parsecache, "Store", lambda directory, kind, key, *more: keys.setdefault(kind, key))
    Compiler(workspace=workspace, env=ENV)
    deciders = {
        "sections": [sectionfile.read_section, sectionfile.DELIMITERS.closing_line, yamlsrc.parse],
        "skills": [skillfile.read, frontmatter.metadata, frontmatter.parse_block],
    }
    for code in deciders.values():
        code += [checks.long_number_text, text.replace_surrogates]  # what a reading is refused or cleaned by
    for kind, code in deciders.items():
        assert {inspect.getsourcefile(function) for function in code} <= set(keys[kind]), kind


def test_a_full_store_keeps_the_entries_used_last(tmp_path):
    store = parsecache.Store(tmp_path, "kind", "key", max_entries=3)
    for index in range(4):
        store.put(f"d{index}", [index])
    assert store.get("d1") == [1]  # used again: now the newest
    store.put("d4", [4])
    assert len(store.entries) == 3  # bounded in memory too, not only in the file
    store.flush()
    assert list(json.loads((tmp_path / "kind-key.json").read_text())["entries"]) == ["d3", "d1", "d4"]


def test_old_files_of_other_keys_are_removed_when_one_is_written(tmp_path):
    old, recent, other_kind = tmp_path / "kind-old.json", tmp_path / "kind-recent.json", tmp_path / "else-old.json"
    for path in (old, recent, other_kind):
        path.write_text("{}")
    week_ago = os.stat(old).st_mtime - parsecache.STALE_SECONDS - 60
    os.utime(old, (week_ago, week_ago))
    os.utime(other_kind, (week_ago, week_ago))
    store = parsecache.Store(tmp_path, "kind", "key")
    store.put("d", [1])
    store.flush()
    assert not old.exists() and recent.exists() and other_kind.exists()
