"""promptc: compile agent system prompts from section templates, config and workspace files.

    from promptc import Request, RunFacts, compile_prompt
    prompt = compile_prompt(Request(run=RunFacts(channel="telegram"), workspace=Path("ws")))
    prompt.stable, prompt.volatile, prompt.text

Provider payloads are plain dicts to splat into the SDK calls (`to_anthropic`, `to_openai`,
`to_responses`, `to_bedrock`); `context_report` is the `promptc context` document as data.
"""

from __future__ import annotations

from typing import Any

from .config.runfacts import load as load_run_facts
from .emit.context import report as context_report
from .emit.payloads import to_anthropic, to_bedrock, to_json, to_openai, to_responses, to_text
from .errors import Location, PromptcError
from .model import ContextFile, Prompt, RunFacts, Sandbox, Tool
from .pipeline import Request, StateUpdate, compile_pending, compile_prompt

__all__ = [
    "ContextFile",
    "Location",
    "Prompt",
    "PromptcError",
    "Request",
    "RunFacts",
    "Sandbox",
    "StateUpdate",
    "Tool",
    "__version__",
    "compile_pending",
    "compile_prompt",
    "context_report",
    "load_run_facts",
    "to_anthropic",
    "to_bedrock",
    "to_json",
    "to_openai",
    "to_responses",
    "to_text",
    "version",
]


def version() -> str:
    """The installed distribution's version (read from its metadata on first use)."""
    from importlib import metadata

    try:
        return metadata.version("promptc")
    except metadata.PackageNotFoundError:  # imported from a checkout that was never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    # `__version__` is looked up lazily: reading distribution metadata costs milliseconds that a
    # runtime importing promptc on every start should not pay unless it asks.
    if name == "__version__":
        return version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
