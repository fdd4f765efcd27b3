"""`promptc cache simulate|diff`: what the provider prompt caches make of a session, and which
edit invalidated which cache tier."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .._lib.errors import UsageError
from ..emit import payloads
from ..features.cache import diff, optimize, pair, replay, report, retention, trace
from ..inputs import pricing
from ..inputs.pricing import RULE_SETS
from ..model.prompt import Prompt
from ..model.runfacts import RunFacts
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
        metavar="MINUTES",
        help="the keep-warm ping interval the retention comparison prices: under 5 on 5-minute breakpoints, "
        "otherwise on one-hour ones (default: 4 and 55)",
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
        after = pair.compile_without_state(request)
        compared = pair.stored(after, request.run, *_bundle_variant(args.bundle, after, request.run))
    elif args.runs is not None:
        flags = run_fact_flags(args)
        compared = pair.runs(request, *(run_facts(path, flags) for path in args.runs))
    else:
        compared = pair.workspaces(request, *args.workspaces)
    emit(compared.text(), None)
    return EXIT_FOUND if compared.found else EXIT_OK


def _bundle_variant(path: Path, prompt: Prompt, run: RunFacts) -> tuple[str, list[dict[str, Any]], diff.Identity]:
    """The stored stable text, tiers and cache identity of the bundle's variant for these run
    facts: the facts the run sets pick it, and when several variants fit, the error names the
    facts to choose with."""
    from ..features.bundle import Bundle

    opened = Bundle.open(path)
    given = {"agent": prompt.agent, "session": run.session, "mode": run.effective_mode if run.mode else None}
    given |= {name: getattr(run, name) for name in ("provider", "model", "channel", "chat_type")}
    variant = opened.variant(**{name: value for name, value in given.items() if value is not None})
    return opened.stable_text(variant), opened.tiers(variant), diff.Identity(variant.provider, variant.model)
