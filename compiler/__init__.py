"""promptc: compile agent system prompts from section templates, config and workspace files.

    from compiler import Request, RunFacts, compile_prompt
    prompt = compile_prompt(Request(run=RunFacts(channel="telegram"), workspace=Path("ws")))
    prompt.stable, prompt.volatile, prompt.text
"""

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
    "compile_pending",
    "compile_prompt",
]
