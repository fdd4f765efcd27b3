"""The on-disk cache of parsed SKILL.md and section metadata (warm/parsecache.py): what it
keeps, that a later process uses it, and that no state of it can change an output except an
entry someone wrote into the user's own private directory."""

from __future__ import annotations

import hashlib
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


def test_the_fingerprint_follows_every_file_it_covers(tmp_path):
    files = []
    for name in ("parser.py", "deep/inner/checks.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("one")
        files.append((name, tmp_path / name))
    before = parsecache.fingerprint(files)
    assert parsecache.fingerprint(files) == before
    (tmp_path / "deep/inner/checks.py").write_text("two!")
    assert parsecache.fingerprint(files) != before
    (tmp_path / "parser.py").unlink()
    assert parsecache.fingerprint(files) not in (before, parsecache.fingerprint(files[1:]))


def test_the_file_key_follows_whether_pyyaml_has_libyaml(monkeypatch):
    import yaml

    before = parsecache.file_key()
    monkeypatch.setattr(yaml, "__with_libyaml__", not yaml.__with_libyaml__)
    assert parsecache.file_key() != before


def test_the_package_fingerprint_covers_every_module_and_template():
    """Among them the modules that decide whether a skill is valid or how a text is cleaned, which
    a list of parser modules had left out: none has to be named."""
    import promptc
    from promptc._lib import checks, resources, text
    from promptc.skills import skillfile

    covered = {path.resolve() for _, path in parsecache.package_files()}
    package = Path(promptc.__file__).resolve().parent
    assert {path.resolve() for path in package.rglob("*.py") if "__pycache__" not in path.parts} == covered - {
        path.resolve() for path in resources.templates_root().rglob("*")
    }
    assert {Path(module.__file__).resolve() for module in (checks, text, skillfile)} <= covered
    assert (resources.templates_root() / "defaults.yaml").resolve() in covered


def test_a_change_to_the_package_starts_a_fresh_store(cache, workspace, templates, monkeypatch):
    """A cache filled by one version of the code is not read by another: the edited description in
    the old file would be listed if it were."""
    fresh_text(workspace, templates)
    path, data = stored(cache, "skills")
    digest = hashlib.sha256(SKILL.encode()).hexdigest()
    data["entries"][digest][0]["description"] = "What the old code decided"
    path.write_text(json.dumps(data))
    assert "What the old code decided" in fresh_text(workspace, templates)  # the same code reads it
    monkeypatch.setattr(parsecache, "package_fingerprint", lambda: "as if checks.py had changed")
    text = fresh_text(workspace, templates)
    assert "What the old code decided" not in text and "Look up the forecast" in text
    assert len(list(cache.glob("skills-*.json"))) == 2


# --------------------------------------------------------------------------- each file checked


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="file ownership is checked only where POSIX has it")
@pytest.mark.parametrize("kind", ["link to a world-writable file", "world-writable", "group-writable", "fifo"])
def test_a_store_file_that_is_not_this_users_alone_is_not_read(cache, workspace, templates, tmp_path, kind):
    expected = fresh_text(workspace, templates)
    path, data = stored(cache, "sections")
    planted = json.dumps(data).replace("Be kind to the plants.", "Planted by someone else.")
    assert "Planted by someone else." in planted
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path, 0o600)
    elif kind.startswith("link"):
        target = tmp_path / "shared.json"
        target.write_text(planted)
        target.chmod(0o666)
        path.symlink_to(target)
    else:
        path.write_text(planted)
        path.chmod(0o646 if kind == "world-writable" else 0o660)
    assert fresh_text(workspace, templates) == expected


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
