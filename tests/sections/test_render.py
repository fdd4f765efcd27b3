"""Rendering the selected sections (sections/render.py): order and modes, the cache boundary,
stable-part byte stability, `when` gates, and the values a warm compiler's rendered parts keep apart."""

from __future__ import annotations

import dataclasses
import json

import jinja2
import pytest

from promptc import Request, RunFacts, Sandbox, Tool, compile_prompt
from promptc._lib.errors import TemplateError
from promptc.model.runfacts import ExecSession
from promptc.sections import catalogue
from promptc.warm.compiler import compile_once

from support.paths import EXAMPLES

MARKER = "<!-- PROMPT_CACHE_BOUNDARY -->"

# The catalogue order written out by hand, following OpenClaw's builder (Skills and Memory Recall
# before Self-Update; Output Directives after the bootstrap notices and Workspace Files), with
# our startup_memory block right after dynamic_context.
STABLE_ORDER = [
    "identity",
    "tooling",
    "subagent_delegation",
    "tool_call_style",
    "execution_bias",
    "safety",
    "control",
    "skills",
    "memory_recall",
    "self_update",
    "model_aliases",
    "workspace",
    "documentation",
    "sandbox",
    "date_time",
    "bootstrap_pending",
    "bootstrap_notice",
    "workspace_files",
    "output_directives",
    "reasoning_format",
    "project_context",
    "silent_replies",
    # Provider content changes with the model: it ends the stable part, in the last cache tier.
    "interaction_style",
    "provider_prefix",
]
VOLATILE_ORDER = [
    "dynamic_context",
    "startup_memory",
    "approvals",
    "authorized_senders",
    "control_ui",
    "messaging",
    "voice",
    "group_context",
    "reactions",
    "provider_suffix",
    "runtime",
    "reasoning",
]
FULL_ONLY = {
    "subagent_delegation",
    "execution_bias",
    "self_update",
    "memory_recall",
    "model_aliases",
    "documentation",
    "output_directives",
    "silent_replies",
    "authorized_senders",
    "control_ui",
    "messaging",
    "voice",
    "heartbeats",
}

EVERYTHING_CONFIG = """
agents:
  defaults:
    bootstrapMaxChars: 300
    userTimezone: Europe/Berlin
    heartbeat: {enabled: true}
    subagents: {delegationMode: prefer}
    memoryInGroups: true
    models:
      anthropic/claude-sonnet-4-5: {alias: sonnet}
"""

CONTRIBUTION = """
stable_prefix: "## Provider Notes\\nStable provider text."
dynamic_suffix: "## Provider Turn Notes\\nVolatile provider text."
section_overrides:
  interaction_style: "## Interaction Style\\nBe brief."
"""


def everything_run(**changes) -> RunFacts:
    """Run facts that switch on every gated section."""
    tools = [Tool(n, f"{n} tool") for n in ("read", "exec", "message", "gateway", "sessions_spawn")]
    facts = RunFacts(
        channel="webchat",
        chat_type="group",
        capabilities=("voice",),
        tools=tuple(tools),
        sandbox=Sandbox(True, ("/sandbox/work",), False),
        model="anthropic/claude-sonnet-4-5",
        owners=("+100",),
        extra_prompt="Group rules: be kind.",
        reactions="minimal",
        tts_hint="Speak slowly.",
        memory_tools=True,
        startup_memory="Yesterday: baked bread.",
        thinking="low",
        reasoning_tag_hint=True,
    )
    return dataclasses.replace(facts, **changes)


@pytest.fixture
def everything(make_workspace, write_yaml):
    """A request that renders every section of the catalogue in full mode."""
    ws = make_workspace(
        {
            "AGENTS.md": "Agent rules.\n",
            "SOUL.md": "Calm persona.\n" + "long line of soul text\n" * 40,
            "HEARTBEAT.md": "- [ ] water the plants\n",
            "BOOTSTRAP.md": "Ask the user for a name.\n",
            "MEMORY.md": "The user likes tea.\n",
            "skills/a/SKILL.md": "---\nname: alpha\ndescription: First skill.\n---\nbody\n",
        }
    )
    return Request(
        run=everything_run(),
        config_paths=(write_yaml("c.yaml", EVERYTHING_CONFIG),),
        workspace=ws,
        contribution_paths=(write_yaml("contrib.yaml", CONTRIBUTION),),
    )


def rendered_ids(prompt) -> list[str]:
    return [s.id for s in prompt.sections]


def test_full_mode_renders_every_section_in_catalogue_order_around_one_boundary(everything):
    prompt = compile_prompt(everything)
    assert rendered_ids(prompt) == STABLE_ORDER + VOLATILE_ORDER
    assert prompt.text.count(MARKER) == 1
    stable, volatile = prompt.text.split("\n\n" + MARKER + "\n\n")
    assert (stable, volatile) == (prompt.stable, prompt.volatile)
    assert "\n" + MARKER + "\n" in prompt.text  # on a line of its own
    for section in prompt.sections:
        part = stable if section.side == "stable" else volatile
        assert section.text in part


def test_a_heartbeat_run_puts_heartbeats_after_the_provider_suffix_and_before_runtime(everything):
    prompt = compile_prompt(dataclasses.replace(everything, run=everything_run(session="heartbeat")))
    volatile = VOLATILE_ORDER[: VOLATILE_ORDER.index("runtime")] + ["heartbeats", "runtime", "reasoning"]
    # A heartbeat run is not the user's own session: no pending-setup section, no BOOTSTRAP.md.
    assert rendered_ids(prompt) == [i for i in STABLE_ORDER if i != "bootstrap_pending"] + volatile
    assert "## BOOTSTRAP.md" not in prompt.text


def test_minimal_mode_drops_exactly_the_full_only_sections(everything):
    prompt = compile_prompt(dataclasses.replace(everything, run=everything_run(mode="minimal")))
    expected = [i for i in STABLE_ORDER + VOLATILE_ORDER if i not in FULL_ONLY]
    assert rendered_ids(prompt) == expected
    assert "## Subagent Context" in prompt.volatile
    assert "## Conversation Context" not in prompt.volatile


def test_subagent_session_defaults_to_minimal_mode(everything):
    prompt = compile_prompt(dataclasses.replace(everything, run=everything_run(session="subagent")))
    assert prompt.mode == "minimal"


def test_none_mode_is_the_identity_line_and_the_model_line_only(everything):
    prompt = compile_prompt(dataclasses.replace(everything, run=everything_run(mode="none")))
    lines = prompt.text.split("\n")
    assert (
        lines[0]
        == "You are a personal AI assistant; the OpenClaw agent runtime hosts you and carries out your tool calls."
    )
    assert lines[1] == ""
    assert "anthropic/claude-sonnet-4-5" in lines[2]
    assert len(lines) == 3
    assert MARKER not in prompt.text and prompt.boundary is None


def test_none_mode_without_a_model_is_one_line(everything):
    prompt = compile_prompt(dataclasses.replace(everything, run=everything_run(mode="none", model=None)))
    assert (
        prompt.text
        == "You are a personal AI assistant; the OpenClaw agent runtime hosts you and carries out your tool calls."
    )


@pytest.mark.parametrize(
    "change",
    [
        {"channel": "telegram"},
        {"chat_type": "direct"},
        {"capabilities": ("voice", "buttons")},
        {"owners": ("+200", "+300")},
        {"model": "anthropic/claude-opus-4-1"},
        {"extra_prompt": "Different group rules."},
        {"reactions": "extensive"},
        {"tts_hint": "Speak fast."},
        {"thinking": "high"},
        {"reasoning": "on"},
        {"host": "other-host", "os": "macos", "arch": "x64", "python": "3.13", "shell": "zsh"},
        {"native_approvals": True},
        {"capabilities": ("inlineButtons",)},
        {"capabilities": ("richText",), "channel": "telegram"},
        {"startup_memory": "Something else."},
        {"exec_sessions": (ExecSession("s1", "running", "npm test", 42, "/srv"),)},
        {"message_tool_hints": ("Threads: reply in the thread you were asked in.",)},
    ],
    ids=lambda change: ",".join(change),
)
def test_volatile_facts_never_touch_the_stable_part(everything, change):
    before = compile_prompt(everything)
    after = compile_prompt(dataclasses.replace(everything, run=everything_run(**change)))
    assert after.stable == before.stable
    assert after.volatile != before.volatile


def test_the_heartbeat_prompt_stays_out_of_the_system_prompt(everything):
    before = compile_prompt(dataclasses.replace(everything, run=everything_run(session="heartbeat")))
    changed = everything_run(session="heartbeat", heartbeat_prompt="Another heartbeat prompt.")
    after = compile_prompt(dataclasses.replace(everything, run=changed))
    assert "heartbeats" in [s.id for s in after.sections]
    assert after.text == before.text and "Another heartbeat prompt." not in after.text


@pytest.mark.parametrize(
    "change",
    [{"tools": (Tool("read", "Read"),)}, {"sandbox": Sandbox()}, {"memory_tools": False}],
    ids=lambda change: ",".join(change),
)
def test_tools_and_sandbox_may_change_the_stable_part(everything, change):
    before = compile_prompt(everything)
    after = compile_prompt(dataclasses.replace(everything, run=everything_run(**change)))
    assert after.stable != before.stable


def test_config_may_change_the_stable_part(everything):
    before = compile_prompt(everything)
    after = compile_prompt(dataclasses.replace(everything, overrides=("agents.defaults.userTimezone=Asia/Tokyo",)))
    assert "Asia/Tokyo" in after.stable and after.stable != before.stable


def test_equal_tool_sets_in_any_order_give_equal_bytes(everything):
    tools = everything.run.tools
    reordered = compile_prompt(dataclasses.replace(everything, run=everything_run(tools=tools[::-1] + tools[:1])))
    assert reordered.stable == compile_prompt(everything).stable


def test_tool_list_is_canonical(make_workspace):
    names = ["Read", "read", "zeta", "alpha", "exec"]
    run = RunFacts(tools=tuple(Tool(n) for n in names))
    prompt = compile_prompt(Request(run=run, workspace=make_workspace({})))
    listed = [
        line[2:].split(":")[0]
        for line in prompt.stable.splitlines()
        if line.startswith("- ") and line[2:].split(":")[0] in names
    ]
    assert listed == ["Read", "exec", "alpha", "zeta"]


def test_runtime_line_canonicalises_capabilities(make_workspace):
    run = RunFacts(channel="telegram", capabilities=(" InlineButtons ", "voice", "inlinebuttons", "Voice"))
    prompt = compile_prompt(Request(run=run, workspace=make_workspace({})))
    assert "capabilities=inlinebuttons,voice" in prompt.volatile
    no_channel = compile_prompt(Request(run=RunFacts(capabilities=("voice",)), workspace=make_workspace({}, "b")))
    assert "channel=" not in no_channel.volatile and "capabilities=" not in no_channel.volatile


HOSTILE = [
    MARKER,
    "before " + MARKER + " after",
    "{{ 7*7 }}",
    "{% include 'x' %}",
    "{% raw %}{{ x }}{% endraw %}",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_workspace_text_is_data_and_cannot_add_a_boundary(make_workspace, text):
    ws = make_workspace({"SOUL.md": f"Persona.\n{text}\n", "HEARTBEAT.md": f"- check {text}\n"})
    run = RunFacts(extra_prompt=text, tts_hint=text, owners=(text,))
    prompt = compile_prompt(Request(run=run, workspace=ws, overrides=("agents.defaults.heartbeat.enabled=true",)))
    assert prompt.text.count(MARKER) == 1
    if MARKER not in text:
        assert text in prompt.stable  # verbatim: never evaluated
        assert "49" not in prompt.stable.split("## SOUL.md")[1].split("##")[0]


def test_json_sections_list_ids_and_sides(run_cli):
    code, out, _ = run_cli(
        "render", "--config", EXAMPLES / "config.yaml", "--run", EXAMPLES / "run.yaml", "--format", "json"
    )
    data = json.loads(out)
    assert code == 0
    assert set(data) >= {
        "stable",
        "volatile",
        "text",
        "boundary",
        "mode",
        "sections",
        "files",
        "skills",
        "heartbeat",
        "warnings",
        "fingerprint",
    }
    sides = [s["side"] for s in data["sections"]]
    assert sides == sorted(sides, key=["stable", "volatile"].index)
    assert data["text"] == data["stable"] + "\n\n" + data["boundary"] + "\n\n" + data["volatile"]


# --------------------------------------------------------------------------- gates and cache keys


@pytest.mark.parametrize("when", ["owners and", "a b", "((", "x |"])
def test_a_when_expression_jinja_cannot_parse_is_an_error_at_its_line(make_workspace, tmp_path, when):
    from promptc.sections.environment import make_environment

    with pytest.raises(jinja2.TemplateSyntaxError) as jinja:
        make_environment().compile_expression(when)
    templates = tmp_path / "tpl"
    templates.mkdir()
    text = f"---\nid: gated\norder: 3350\nside: volatile\nmodes: [full]\nwhen: {json.dumps(when)}\n---\nGated.\n"
    (templates / "gated.md.j2").write_text(text, encoding="utf-8")
    with pytest.raises(TemplateError) as info:
        compile_prompt(Request(workspace=make_workspace({}), template_dirs=(templates,)))
    assert info.value.message == f"invalid 'when' expression: {jinja.value.message}"
    assert str(info.value.location) == f"{templates / 'gated.md.j2'}:6:1"


SHOWN_VALUES = [1, 1.0, True, 0.0, -0.0, "1", None, [1], [1.0], [True], [[1]], [[True]], {"a": 1, "b": 2}]
SHOWN_VALUES += [{"b": 2, "a": 1}, {"a": True}, {"a": [0.0]}, {"a": [-0.0]}]
"""Values that are equal to Python, or nearly, but that a template prints differently."""


@pytest.mark.parametrize("side", ["stable", "volatile"])
def test_a_warm_compiler_never_gives_one_value_the_text_of_another(make_workspace, write_yaml, tmp_path, side):
    """A warm compiler keys its turns and its rendered parts on the values they read: each compile
    must give the text of the one-pass pipeline, which keeps nothing."""
    from promptc import Compiler

    templates = tmp_path / "tpl"
    templates.mkdir()
    body = "Value: {{ vars.v }}, text: {{ vars.v is string }}"
    text = f"---\nid: shown\norder: {950 if side == 'stable' else 3350}\nside: {side}\nmodes: [full]\n---\n{body}\n"
    (templates / "shown.md.j2").write_text(text, encoding="utf-8")
    config = write_yaml("config.yaml", f"prompt:\n  variables:\n    v: {{side: {side}}}\n")
    workspace = make_workspace({})
    request = Request(config_paths=(config,), template_dirs=(templates,), workspace=workspace)
    cold = [compile_once(dataclasses.replace(request, run=RunFacts(vars={"v": v})))[0].text for v in SHOWN_VALUES]
    assert len(set(cold)) == len(SHOWN_VALUES)
    with Compiler(config_paths=[config], template_dirs=[templates], workspace=workspace) as compiler:
        for _ in range(2):
            assert [compiler.compile(RunFacts(vars={"v": v})).text for v in SHOWN_VALUES] == cold


def test_a_warm_compiler_sees_a_user_variable_declared_volatile_after_a_stable_section_read_its_default(
    make_workspace, write_yaml, tmp_path
):
    """The stable part's `vars` has the same values before and after; what it does for a name it
    lacks (its default, or an error for a volatile variable) changes, and so must the render."""
    from promptc import Compiler

    templates = tmp_path / "tpl"
    templates.mkdir()
    text = "---\nid: house\norder: 950\nside: stable\nmodes: [full]\n---\nTone: {{ vars.get('tone', 'calm') }}\n"
    (templates / "house.md.j2").write_text(text, encoding="utf-8")
    declared = "prompt:\n  variables:\n    company: {side: stable}\n  values:\n    company: Acme\n"
    config = write_yaml("config.yaml", declared)
    request = Request(config_paths=(config,), template_dirs=(templates,), workspace=make_workspace({}))
    with Compiler.from_request(request) as compiler:
        assert "Tone: calm" in compiler.compile().stable
        config.write_text(
            declared.replace("\n  values:", "\n    tone: {side: volatile, default: friendly}\n  values:"),
            encoding="utf-8",
        )
        with pytest.raises(TemplateError) as fresh:
            compile_once(request)
        with pytest.raises(TemplateError) as warm:
            compiler.compile()
    assert str(warm.value) == str(fresh.value) and "reads volatile user variable 'vars.tone'" in str(warm.value)


# --------------------------------------------------------------------------- bare-name gates

GATE_VALUES = [0, 1, "", "x", [], ["a"], (), None, False, True, {}, {"k": 1}, 0.0, 2.5]


@pytest.mark.parametrize("value", GATE_VALUES, ids=repr)
@pytest.mark.parametrize("when", ["flag", "not flag", "not   flag"])
def test_a_bare_name_gate_is_true_exactly_when_jinja_says_so(when, value):
    """Bare-name gates skip compiling an expression (compiler/sections/render.py): the answer is
    the one Jinja's own expression gives, for every kind of value."""
    from promptc.sections.environment import make_environment
    from promptc.sections.render import Renderer

    gated = dataclasses.replace(catalogue.load().sections[0], when=when)
    jinja = bool(make_environment().compile_expression(when, undefined_to_none=False)(flag=value))
    assert Renderer(bytecode_cache=False).gate_passes(gated, {"flag": value}) is jinja


def test_a_bare_name_gate_the_context_lacks_is_jinjas_located_error():
    from promptc.sections.render import Renderer

    spec = catalogue.load().sections[0]
    gated = dataclasses.replace(spec, when="not no_such_fact")
    with pytest.raises(TemplateError) as info:
        Renderer(bytecode_cache=False).gate_passes(gated, {"flag": 1})
    assert "no_such_fact" in info.value.message and info.value.location.path == spec.path


NONDETERMINISTIC = {
    "lipsum": ("{{ lipsum(1) }}", "'lipsum()' makes new random text on every render"),
    "random": ("{{ ['a', 'b'] | random }}", "the 'random' filter picks anew on every render"),
    "method": ("{{ 'x'.format_map }}", "this prints the function or method 'format_map' itself, not a value"),
    "object": ("{{ cycler('a', 'b') }}", "this prints a Python object, not a value (its text holds a memory address)"),
    "inside-a-list": ("{{ [range] }}", "this prints a Python object, not a value"),
}


@pytest.mark.parametrize("body, message", NONDETERMINISTIC.values(), ids=NONDETERMINISTIC)
def test_text_that_changes_between_renders_is_refused_at_its_line(make_workspace, tmp_path, run_cli, body, message):
    templates = tmp_path / "t"
    templates.mkdir()
    section = templates / "odd.md.j2"
    section.write_text("---\nid: odd\norder: 947\nside: stable\nmodes: [full]\n---\nFirst.\n" + body + "\n")
    code, out, err = run_cli("render", "--no-state", "--workspace", make_workspace({}), "--templates", templates)
    assert (code, out) == (2, "")
    assert err.startswith(f"promptc: error: {section}:8:1: {message}") and err.count("\n") == 1


def test_printing_values_and_calling_methods_still_works(make_workspace, tmp_path, run_cli):
    templates = tmp_path / "t"
    templates.mkdir()
    (templates / "fine.md.j2").write_text(
        "---\nid: fine\norder: 947\nside: stable\nmodes: [full]\n---\n"
        "{% set c = cycler('a', 'b') %}{{ c.next() }}{{ c.next() }} {{ '{x}'.format_map({'x': 1}) }}"
        " {{ [1, 'two'] }} {{ {'k': none} }} {{ 2.5 }}\n"
    )
    code, out, err = run_cli("render", "--no-state", "--workspace", make_workspace({}), "--templates", templates)
    assert code == 0, err
    assert "ab 1 [1, 'two'] {'k': None} 2.5" in out


RECURSION = {
    "include-loop": (
        '{% include "partials/loop.md.j2" %}',
        "partials/loop.md.j2",
        "partials include each other without end",
    ),
    "macro-in-a-partial": (
        '{% include "partials/macro.md.j2" %}',
        "partials/macro.md.j2",
        "this runs too deep for Python (a macro that calls itself without end",
    ),
    "macro-in-the-section": (
        "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}",
        "odd.md.j2",
        "this runs too deep for Python (a macro that calls itself without end",
    ),
}


@pytest.mark.parametrize("body, where, message", RECURSION.values(), ids=RECURSION)
def test_too_deep_says_what_went_too_deep(make_workspace, tmp_path, run_cli, body, where, message):
    templates = tmp_path / "t"
    (templates / "partials").mkdir(parents=True)
    (templates / "partials" / "loop.md.j2").write_text('{% include "partials/loop.md.j2" %}\n')
    (templates / "partials" / "macro.md.j2").write_text("{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}\n")
    (templates / "odd.md.j2").write_text("---\nid: odd\norder: 947\nside: stable\nmodes: [full]\n---\n" + body + "\n")
    code, out, err = run_cli("render", "--no-state", "--workspace", make_workspace({}), "--templates", templates)
    assert (code, out) == (2, "")
    assert err.startswith(f"promptc: error: {templates / where}:") and f": {message}" in err, err
