"""promptc: compile agent system prompts from section templates, config and workspace files.

    from promptc import Compiler, RunFacts
    compiler = Compiler(config_paths=["config.yaml"], workspace="ws")   # once
    prompt = compiler.compile(RunFacts(channel="telegram"))            # every turn
    prompt.stable, prompt.volatile, prompt.text

`compile_prompt(Request(...))` does the same through a small cache of Compilers. Provider
payloads are plain dicts to splat into the SDK calls (`to_anthropic`, `to_openai`,
`to_responses`, `to_bedrock`), and `keep_warm_ping` is the request that keeps an idle model's
cache alive; `context_report` is the `promptc context` document as data.

Names are imported on first use (PEP 562), so `import promptc` costs almost nothing and a
command loads only what it needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._lib import resources
from ._lib.resources import version

if TYPE_CHECKING:
    from ._lib.errors import Location, PromptcError
    from .emit.context import report as context_report
    from .emit.payloads import keep_warm_ping, to_anthropic, to_bedrock, to_json, to_openai, to_responses, to_text
    from .features.bundle import Bundle
    from .inputs.runfacts import load as load_run_facts
    from .model.prompt import Prompt
    from .model.request import Request
    from .model.runfacts import RunFacts, Sandbox, Tool
    from .model.workspace import ContextFile
    from .pipeline import StateUpdate
    from .warm.compiler import Compiler, compile_pending, compile_prompt

    __version__: str
_EXPORTS: dict[str, tuple[str, str]] = {
    "Bundle": ("features.bundle", "Bundle"),
    "Compiler": ("warm.compiler", "Compiler"),
    "ContextFile": ("model.workspace", "ContextFile"),
    "Location": ("_lib.errors", "Location"),
    "Prompt": ("model.prompt", "Prompt"),
    "PromptcError": ("_lib.errors", "PromptcError"),
    "Request": ("model.request", "Request"),
    "RunFacts": ("model.runfacts", "RunFacts"),
    "Sandbox": ("model.runfacts", "Sandbox"),
    "StateUpdate": ("pipeline", "StateUpdate"),
    "Tool": ("model.runfacts", "Tool"),
    "compile_pending": ("warm.compiler", "compile_pending"),
    "compile_prompt": ("warm.compiler", "compile_prompt"),
    "context_report": ("emit.context", "report"),
    "keep_warm_ping": ("emit.payloads", "keep_warm_ping"),
    "load_run_facts": ("inputs.runfacts", "load"),
    "to_anthropic": ("emit.payloads", "to_anthropic"),
    "to_bedrock": ("emit.payloads", "to_bedrock"),
    "to_json": ("emit.payloads", "to_json"),
    "to_openai": ("emit.payloads", "to_openai"),
    "to_responses": ("emit.payloads", "to_responses"),
    "to_text": ("emit.payloads", "to_text"),
}
"""Public name -> (module below promptc, attribute)."""

__all__ = sorted([*_EXPORTS, "__version__", "version"])


def _lazy(name: str) -> Any:
    # `__version__` is looked up lazily too: reading distribution metadata costs milliseconds that
    # a runtime importing promptc on every start should not pay unless it asks.
    if name == "__version__":
        return resources.version()
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = _EXPORTS[name]
    value = getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


if not TYPE_CHECKING:  # a type checker sees the imports above, so a misspelt name is an error
    __getattr__ = _lazy


def __dir__() -> list[str]:
    return __all__
