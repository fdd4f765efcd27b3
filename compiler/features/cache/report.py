"""What `promptc cache simulate` reports: per rule set, the tokens read, written and sent
uncached, the cost against sending everything uncached, and the cost of every write by cause.

Every cost is given twice: in base-input units (uncached input tokens' worth, comparable across
models) and in money at each turn's model's prices, with the price table's date."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...inputs.pricing import RULE_SETS, Rules, shown, with_retention
from ...model.units import label as unit_label
from .replay import Replay
from .retention import Option
from .simulate import Result, Write, simulate


def simulate_all(replay: Replay, rule_sets: Sequence[Rules] = tuple(RULE_SETS.values())) -> dict[str, Result]:
    """The replay under every rule set, by name (automatic caching with the retention the config asks for)."""
    chosen = [r if r.explicit else with_retention(r, replay.openai_retention or r.retention) for r in rule_sets]
    return {rules.name: simulate(replay.turns(rules), rules) for rules in chosen}


def cause_of(write: Write) -> str:
    """A write's cause as a person reads it: `expired`, `first use`, or `changed USER.md`."""
    if not write.changed:
        return write.cause
    return f"{write.cause}: {', '.join(unit_label(u) for u in write.changed)}"


def prices(rules: Rules) -> dict[str, str]:
    """Where money figures come from: the price table's date and currency."""
    return {"table": "templates/pricing.yaml", "as_of": rules.as_of, "currency": rules.currency}


def document(
    replay: Replay, results: Mapping[str, Result], trace: str, options: Sequence[Option] = ()
) -> dict[str, Any]:
    """The whole report as data (`--format json`); `options`: the retention comparison."""
    lines = [c.event.line for c in replay.events]
    first = next(iter(results.values()), None)
    return {
        "trace": trace,
        "turns": len(replay.events),
        "token_method": replay.token_method,
        "prices": prices(first.rules) if first else {},
        "volatile_fact_changed_stable": {"count": len(replay.leaks), "lines": list(replay.leaks)},
        "providers": {name: _provider(result, lines) for name, result in results.items()},
        "retention": [_option(option) for option in options],
    }


def _option(option: Option) -> dict[str, Any]:
    result = option.result
    return {
        "name": option.name,
        "provider": option.provider,
        "cost": round(result.cost, 3),
        "money": round(result.money, 6),
        "cost_ratio": round(option.cost_ratio, 6),
        "pings": option.pings,
        "ping_money": round(result.ping_money, 6),
    }


def _provider(result: Result, lines: Sequence[int]) -> dict[str, Any]:
    total = result.total_tokens
    return {
        "rules": list(result.rules.notes),
        "read": result.read,
        "written": result.written,
        "uncached": result.uncached,
        "total_tokens": total,
        "cached_share": round(result.cached_share, 6),
        "cost": round(result.cost, 3),
        "cost_without_cache": total,
        "cost_ratio": round(result.cost / total, 6) if total else 0.0,
        "money": round(result.money, 6),
        "money_without_cache": round(result.money_without_cache, 6),
        "pings": len(result.pings),
        "ping_read": sum(t.read for t in result.pings),
        "ping_money": round(result.ping_money, 6),
        "causes": _causes(result.writes),
        "writes": [_write(w, lines) for w in result.writes],
    }


def _write(write: Write, lines: Sequence[int]) -> dict[str, Any]:
    return {
        "turn": write.turn + 1,
        "line": lines[write.turn],
        "tier": write.tier,
        "tokens": write.tokens,
        "cost": round(write.cost, 3),
        "money": round(write.money, 6),
        "cause": write.cause,
        "changed": list(write.changed),
    }


def _causes(writes: Sequence[Write]) -> list[dict[str, Any]]:
    """Writes grouped by cause (and the units that changed), costliest first."""
    groups: dict[str, dict[str, Any]] = {}
    for write in writes:
        empty = {"cause": cause_of(write), "writes": 0, "tokens": 0, "cost": 0.0, "money": 0.0}
        group = groups.setdefault(cause_of(write), empty)
        group["writes"] += 1
        group["tokens"] += write.tokens
        group["cost"] += write.cost
        group["money"] += write.money
    total = sum(g["cost"] for g in groups.values()) or 1.0
    ordered = sorted(groups.values(), key=lambda g: (-g["cost"], g["cause"]))
    return [
        {**g, "cost": round(g["cost"], 3), "money": round(g["money"], 6), "share": round(g["cost"] / total, 6)}
        for g in ordered
    ]


def text(data: Mapping[str, Any]) -> str:
    """The report for a person."""
    leaks = data["volatile_fact_changed_stable"]
    currency = data["prices"].get("currency", "USD")
    out = [
        f"trace {data['trace']}: {data['turns']} turns; tokens: {data['token_method']}",
        f"cost in base-input units (uncached input tokens' worth); money at the prices of "
        f"{data['prices'].get('table')} as of {data['prices'].get('as_of')} ({currency}, each turn's model)",
        f"stable part changed by a volatile fact: {leaks['count']} of {data['turns']} turns"
        + (f" (trace lines {', '.join(map(str, leaks['lines']))})" if leaks["lines"] else ""),
    ]
    for name, p in data["providers"].items():
        out += [
            "",
            f"{name}: cost {p['cost']:,.1f} units ({shown(p['money'], currency)}) of "
            f"{p['cost_without_cache']:,} uncached ({shown(p['money_without_cache'], currency)}) "
            f"({p['cost_ratio']:.3f}x); {p['cached_share']:.1%} of prompt tokens read from cache",
            f"  read {p['read']:,}, written {p['written']:,}, uncached {p['uncached']:,} tokens",
        ]
        if p["pings"]:
            pinged = shown(p["ping_money"], currency)
            out.append(
                f"  keep-warm pings (prompt.cache.keepWarm): {p['pings']}, in the figures above: "
                f"{p['ping_read']:,} of the tokens read, {pinged} of the cost"
            )
        out.append("  writes by cause (share of write cost):")
        out += [
            f"    {g['share']:6.1%}  {g['cost']:>12,.1f}  {shown(g['money'], currency):>10}  {g['writes']:>3} x  "
            f"{g['cause']}"
            for g in p["causes"]
        ]
    if data["retention"]:
        out += ["", "how long to keep the cache (the same trace; costs include the pings):"]
        for o in data["retention"]:
            pinged = f"; {o['pings']} pings, {shown(o['ping_money'], currency)} of it" if o["pings"] else ""
            out.append(
                f"  {o['provider']:9} {o['name']:58} {o['cost']:>12,.1f} units  {shown(o['money'], currency):>10}"
                f"  ({o['cost_ratio']:.3f}x){pinged}"
            )
    return "\n".join(out) + "\n"
