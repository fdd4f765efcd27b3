"""What `promptc snapshot check` says on drift (features/snapshot/report.py): a unified diff per
drifted file, and which cache tier of which scenario an edit invalidated and why."""

from __future__ import annotations

from support.guardrails import SCENARIOS


def test_one_word_in_a_stable_template_is_drift_in_stable_md(run_cli, snapshots, edited_safety):
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots, "--templates", edited_safety)
    assert code == 1
    assert "telegram-direct/stable.md: differs from the generated output; the STABLE part changed" in out
    assert "cache invalidation" in out
    assert "--- telegram-direct/stable.md (committed)" in out
    assert "-- Do not seek power, resources" in out
    assert "+- Do not seek influence, resources" in out
    # The safety section is stable and absent from none mode: those files cannot drift.
    assert "telegram-direct/volatile.md" not in out
    assert "none-mode/" not in out
    invalidated = [name for name in SCENARIOS if name != "none-mode"]
    assert out.splitlines()[-1] == f"cache invalidated: the stable part changed in {', '.join(invalidated)}"


def test_a_drifted_stable_part_names_the_cache_tier_and_the_file_behind_it(run_cli, snapshots):
    user = snapshots / "_fixtures" / "household" / "USER.md"
    user.write_text(user.read_text(encoding="utf-8") + "- Prefers tea after six.\n", encoding="utf-8")
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 1
    lines = out.splitlines()
    assert (
        "telegram-direct/stable.md: cache tier 2 invalidated by USER.md; cache tier 3 invalidated by USER.md (in an earlier tier)"
        in lines
    )


def test_a_template_change_names_the_section_in_the_first_tier(run_cli, snapshots, edited_safety):
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots, "--templates", edited_safety)
    assert code == 1
    assert "cron-job/stable.md: cache tier 1 invalidated by section safety;" in out
