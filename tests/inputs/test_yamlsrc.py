"""YAML config (inputs/yamlsrc.py): aliases and merge keys, the bounds on aliases and nesting, and
parsing that keeps nothing of a document once it is read."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc._lib.errors import ConfigError
from promptc.inputs import layers as config

from support.paths import EXAMPLES


@pytest.mark.parametrize(
    "text, message",
    [
        ("agents: &a {defaults: *a}\n", "an alias refers to a value that contains it"),
        (
            "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
            "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
            "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
            "too many values after expanding aliases",
        ),
    ],
)
def test_hostile_aliases_are_refused_quickly(write_yaml, text, message):
    with pytest.raises(ConfigError, match=message):
        config.load([write_yaml("c.yaml", text)])


def test_aliases_of_a_long_text_are_bounded_by_their_expanded_size_not_their_count(write_yaml):
    # 64 KiB repeated 300 times: 300 values, far under the value cap, but 19.7 million characters.
    text = "prompt:\n  values:\n    big: &b " + "x" * 65_536 + "\n    copies: [" + ", ".join(["*b"] * 300) + "]\n"
    with pytest.raises(ConfigError) as info:
        config.load([write_yaml("c.yaml", text)])
    assert info.value.message == "too much text after expanding aliases (limit 16,777,216 characters)"
    # Under the limit the same document is read: 200 copies are 13.1 million characters.
    fewer = text.replace(", ".join(["*b"] * 300), ", ".join(["*b"] * 200)).replace("copies", "c")
    values = config.resolve(config.load([write_yaml("d.yaml", fewer)]), None).lookup("prompt.values")
    assert len(values["c"]) == 200 and values["c"][199] == "x" * 65_536


def test_merge_keys_are_supported(write_yaml):
    path = write_yaml("c.yaml", "agents:\n  defaults:\n    <<: {bootstrapMaxChars: 777}\n    userTimezone: UTC\n")
    assert config.resolve(config.load([path]), "main").budgets.max_chars == 777


def test_yaml_nested_past_the_limit_is_a_located_error(write_yaml):
    path = write_yaml("c.yaml", "agents: " + "[" * 150 + "]" * 150 + "\n")
    with pytest.raises(ConfigError, match="nested more than 100 levels deep") as info:
        config.load([path])
    assert info.value.location.path == str(path)


# --------------------------------------------------------------------------- parser state


def _live_yaml_state() -> tuple[int, int]:
    """(live YAML nodes, values remembered by live YAML constructors) in this process."""
    import gc

    import yaml

    gc.collect()
    objects = gc.get_objects()
    nodes = sum(isinstance(o, yaml.Node) for o in objects)
    remembered = sum(len(o.constructed_objects) for o in objects if isinstance(o, yaml.constructor.BaseConstructor))
    return nodes, remembered


def test_parsing_many_documents_keeps_nothing_of_them(write_yaml, tmp_path):
    from promptc import load_run_facts

    run = write_yaml("run.yaml", (EXAMPLES / "run.yaml").read_text(encoding="utf-8"))
    cfg = write_yaml("c.yaml", "agents:\n  defaults:\n    bootstrapMaxChars: 1234\n    models: {a/b: {alias: x}}\n")
    load_run_facts(run), config.load([cfg])  # whatever a first parse sets up once
    before = _live_yaml_state()
    for index in range(200):
        cfg.write_text(f"agents:\n  defaults:\n    bootstrapMaxChars: {1000 + index}\n", encoding="utf-8")
        assert load_run_facts(run).channel == "telegram"
        assert config.resolve(config.load([cfg]), "main").budgets.max_chars == 1000 + index
    assert _live_yaml_state() == before == (before[0], 0)


def test_every_value_is_located_at_its_key_and_list_items_at_themselves():
    from promptc._lib.errors import Location
    from promptc.inputs import yamlsrc

    located = yamlsrc.parse('a:\n  b: 1\n  c:\n    - x\n    - "caf\\u00e9"\n  d: !!str 12\n', "f.yaml")
    assert located.value == {"a": {"b": 1, "c": ["x", "caf\u00e9"], "d": "12"}}
    assert located.where(("a",)) == Location("f.yaml", 1, 1)
    assert located.where(("a", "b")) == Location("f.yaml", 2, 3)
    assert located.where(("a", "c", 1)) == Location("f.yaml", 5, 7)
    assert located.where(("a", "c", 1, "deeper")) == Location("f.yaml", 5, 7)


def test_a_bad_value_points_at_the_value_not_its_key():
    from promptc.inputs import yamlsrc

    with pytest.raises(ConfigError) as caught:
        yamlsrc.parse("a:\n  b: !!int x\n", "f.yaml", ConfigError)
    assert str(caught.value.location) == "f.yaml:2:6"
    assert caught.value.message.startswith("cannot read this value")


_PLAIN_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_PLAIN_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**30), 10**30), st.floats(allow_nan=False), _PLAIN_TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_PLAIN_TEXT, inner, max_size=3)),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(_PLAIN_VALUES, st.booleans())
def test_a_document_reads_as_pyyaml_reads_it(value, flow):
    from promptc._lib.errors import PromptcError
    from promptc.inputs import yamlsrc

    text = yaml.safe_dump(value, allow_unicode=True, default_flow_style=flow)
    try:
        expected = yaml.load(text, Loader=yamlsrc.FAST_LOADER)
    except yaml.YAMLError:
        with pytest.raises(PromptcError):
            yamlsrc.parse(text, "f.yaml")
        return
    assert yamlsrc.parse(text, "f.yaml").value == expected
