"""`promptc cache simulate|diff`: what the provider prompt caches make of a session, and which
edit invalidated which cache tier."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

from .. import tiers as cache_tiers
from .._lib.errors import UsageError
from ..emit import payloads
from ..features.cache import diff, optimize, replay, report, retention, trace
from ..inputs import pricing
from ..inputs.pricing import RULE_SETS
from ..model.prompt import Prompt
from ..model.request import Request
from ..model.runfacts import RunFacts
from ..model.units import DYNAMIC_UNIT
from ..warm import compiler as engine
from .common import (
    EXIT_FOUND,
    EXIT_OK,
    add_input_flags,
    emit,
    request_from_args,
    run_fact_flags,
    run_facts,
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add `cache simulate|diff`."""
    parser.set_defaults(handler=_no_command)
    sub = parser.add_subparsers(title="cache commands", parser_class=type(parser))
    simulate = sub.add_parser("simulate", help="replay a session trace against the providers' cache rules")
    _add_trace(simulate)
    simulate.add_argument("--format", choices=["text", "json"], default="text", help="output format (default: text)")
    simulate.add_argument(
        "--html", type=Path, metavar="FILE", help="also write the per-turn timeline and the layouts compared, as HTML"
    )
    simulate.add_argument(
        "--keep-warm",
        type=_minutes,
        default=retention.KEEP_WARM_MINUTES,
        metavar="MINUTES",
        help=f"the keep-warm ping interval the retention comparison prices (default: {retention.KEEP_WARM_MINUTES})",
    )
    add_input_flags(simulate)
    simulate.set_defaults(handler=_simulate)
    best = sub.add_parser("optimize", help="search the cache layouts for the cheapest on a session trace")
    _add_trace(best)
    best.add_argument(
        "--budget",
        type=_positive,
        default=optimize.DEFAULT_BUDGET,
        metavar="N",
        help=f"price at most N layouts in the search (default: {optimize.DEFAULT_BUDGET})",
    )
    best.add_argument(
        "--provider",
        choices=[name for name, rules in RULE_SETS.items() if rules.explicit],
        default="anthropic",
        help="whose cache rules and prices (default: anthropic)",
    )
    add_input_flags(best)
    best.set_defaults(handler=_optimize)
    compare = sub.add_parser("diff", help="say which cache tiers two compiles do not share, and why")
    which = compare.add_mutually_exclusive_group(required=True)
    which.add_argument("--runs", nargs=2, type=Path, metavar=("BEFORE", "AFTER"), help="two run-fact files")
    which.add_argument(
        "--workspaces", nargs=2, type=Path, metavar=("BEFORE", "AFTER"), help="a workspace before and after an edit"
    )
    which.add_argument(
        "--bundle", type=Path, metavar="DIR", help="the bundle's variant for these run facts vs the current templates"
    )
    add_input_flags(compare)
    compare.set_defaults(handler=_diff)


def _add_trace(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--trace", type=Path, required=True, metavar="FILE", help="JSONL session trace (one event per turn)"
    )


def _positive(text: str) -> int:
    """A whole number of at least 1 (argparse reports the error)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def _minutes(text: str) -> int:
    """A whole number of minutes from 1 to 59 (argparse reports the error)."""
    if not text.isdigit() or not 1 <= int(text) <= 59:
        raise argparse.ArgumentTypeError(f"expected whole minutes from 1 to 59, got {text!r}")
    return int(text)


def _no_command(_args: argparse.Namespace) -> int:
    raise UsageError("choose a cache command: simulate or diff")


# --------------------------------------------------------------------------- simulate


def _simulate(args: argparse.Namespace) -> int:
    events = trace.load(args.trace)
    request = request_from_args(args)
    replayed = replay.replay(request, events, args.trace)
    options = retention.compare(replayed, args.keep_warm)
    data = report.document(replayed, report.simulate_all(replayed), str(args.trace), options)
    emit(payloads.dumps(data) if args.format == "json" else report.text(data), None)
    if args.html is not None:
        from ..features.report import simpage

        emit(simpage.page(request, events, args.trace, replayed), args.html)
    return EXIT_OK


# --------------------------------------------------------------------------- optimize


def _optimize(args: argparse.Namespace) -> int:
    events = trace.load(args.trace)
    outcome = optimize.optimize(request_from_args(args), events, args.trace, RULE_SETS[args.provider], args.budget)
    emit(_optimize_text(outcome, str(args.trace)), None)
    return EXIT_OK


def _optimize_text(outcome: optimize.Outcome, path: str) -> str:
    """The best layout as a config layer, its predicted cost beside the others' as comments."""
    rules = outcome.rules
    lines = [
        f"# promptc cache optimize: the cheapest of {outcome.tried} layouts tried on {path} ({outcome.turns} turns),",
        f"# under {rules.name}'s cache rules; money at the prices of templates/pricing.yaml as of {rules.as_of}.",
        f"# Predicted cost per {optimize.TURNS:,} turns (base-input units, {rules.currency}):",
    ]
    width = max(len(p.label) for p in outcome.priced)
    for priced in outcome.priced:
        units, money = priced.per_turns(outcome.turns)
        lines.append(f"#   {priced.label:<{width}}  {units:>14,.0f} units  {pricing.shown(money, rules.currency):>10}")
    return "\n".join([*lines, *outcome.best.snippet()]) + "\n"


# --------------------------------------------------------------------------- diff


def _diff(args: argparse.Namespace) -> int:
    request = request_from_args(args)
    if args.bundle is not None:
        after = _compile(request)
        before_stable, before_tiers, before_id = _bundle_variant(args.bundle, after, request.run)
        changes = diff.compare(before_tiers, cache_tiers.entries(after.tiers, after.units))
        before_texts = cache_tiers.unit_texts(before_stable, before_tiers)  # a bundle keeps stable parts only
        identities = (before_id, _identity(request.run, before_id))
    else:
        if args.runs is not None:
            flags = run_fact_flags(args)
            pair = [dataclasses.replace(request, run=run_facts(path, flags)) for path in args.runs]
        else:  # both name the second directory, so only the files' contents can differ
            shown = f"agents.defaults.workspace={json.dumps(str(args.workspaces[1].absolute()))}"
            overrides = (*request.overrides, shown)
            pair = [dataclasses.replace(request, workspace=path, overrides=overrides) for path in args.workspaces]
        before, after = (_compile(r) for r in pair)
        changes = diff.compare_prompts(before, after)
        before_texts = {u.name: u.text for u in before.units}
        identities = (_identity(pair[0].run), _identity(pair[1].run))
    switched = diff.switch(*identities)
    if switched is not None:
        changes = diff.rewritten(cache_tiers.entries(after.tiers, after.units), switched[0])
    text = _diff_text(changes, before_texts, after)
    emit(text if switched is None else switched[1] + "\n" + text, None)
    return EXIT_FOUND if any(c.changed for c in changes) else EXIT_OK


def _identity(run: RunFacts, fallback: diff.Identity | None = None) -> diff.Identity:
    """The provider and model a run's requests go to (a fact the run leaves unset: `fallback`'s)."""
    provider = run.provider if run.provider is not None or fallback is None else fallback.provider
    model = run.model if run.model is not None or fallback is None else fallback.model
    return diff.Identity(provider, model)


def _compile(request: Request) -> Prompt:
    """A compile that writes no state (neither side of a diff is a real turn)."""
    with engine.Compiler.from_request(request) as compiler:
        prompt, _ = compiler.compile_pending(request.run)
    return prompt


def _diff_text(changes: tuple[diff.TierChange, ...], before: dict[str, str], after: Prompt) -> str:
    """Each tier's verdict; under the first tier a change starts in, the diff of its first cause."""
    now = {u.name: u.text for u in after.units}
    lines: list[str] = []
    shown = False
    for change in changes:
        lines.append(diff.describe(change))
        if change.own and not shown and not change.switch:
            name = next(n for n in change.causes if before.get(n) != now.get(n))
            if name == DYNAMIC_UNIT and name not in before:
                lines.append("  (the bundle keeps no volatile text to compare with)")
            else:
                lines += ["  " + line for line in diff.unit_diff(name, before.get(name), now.get(name))]
            shown = True
    return "\n".join(lines) + "\n"


def _bundle_variant(path: Path, prompt: Prompt, run: RunFacts) -> tuple[str, list[dict[str, Any]], diff.Identity]:
    """The stored stable text and tiers of the bundle's variant for these run facts: the facts the
    run sets pick it, and when several variants fit, the error names the facts to choose with."""
    from ..features.bundle import Bundle

    opened = Bundle.open(path)
    given = {"agent": prompt.agent, "session": run.session, "mode": run.effective_mode if run.mode else None}
    given |= {name: getattr(run, name) for name in ("provider", "model", "channel", "chat_type")}
    variant = opened.variant(**{name: value for name, value in given.items() if value is not None})
    return opened.stable_text(variant), opened.tiers(variant), diff.Identity(variant.provider, variant.model)
