"""The side-by-side agent benchmark (`benchmarks/agent_speed.py`): its measuring child runs in a checkout and
reports every figure the table shows; bad arguments are refused by name. (The measurements themselves are
figures, not asserts: docs/performance.md.)"""

from __future__ import annotations

import pytest

from fruit_envs.benchmarks import agent_speed


def test_the_child_measures_a_game_in_this_checkout():
    arena = agent_speed.child(agent_speed.ROOT, "arena", "fruit_picking")
    assert set(arena) == {f"{name}_ms_per_game_b{b}" for name in ("random", "greedy") for b in (16, 256)}
    assert all(value > 0 for value in arena.values())
    result = {"games": {"fruit_picking": {"arena_old": arena, "arena_new": arena}}}
    table = agent_speed.table(result)
    ratio = arena["greedy_ms_per_game_b16"] / arena["random_ms_per_game_b16"]
    row = next(line for line in table.splitlines() if line.startswith("| fruit_picking | "))
    assert row.startswith(f"| fruit_picking | {ratio:.2f}x | {ratio:.2f}x | ")


def test_bad_arguments_are_refused_by_name(capsys):
    with pytest.raises(SystemExit):
        agent_speed.main(["--old", "8a76e26", "--jobs", "everything"])
    assert "--jobs 'everything': choose from" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="neither a folder nor a revision"):
        agent_speed.checkout("no-such-revision-anywhere")


def test_updating_the_docs_keeps_the_long_jobs_table_a_short_run_did_not_measure(tmp_path, monkeypatch):
    page = tmp_path / "docs" / "performance.md"
    page.parent.mkdir()
    long_table = f"{agent_speed.LONG_HEADER}\n|---|---:|---:|---:|\n| benchmark standard suite, ppo-baseline | 567 | 143 | 4.0x |"
    page.write_text(f"intro\n{agent_speed.DOCS_BEGIN}\nold table\n\n{long_table}\n\n{agent_speed.DOCS_END}\nafter\n")
    monkeypatch.setattr(agent_speed, "ROOT", tmp_path)
    agent_speed.update_docs("| new arena table |\n", "python -m fruit_envs.benchmarks.agent_speed --old 8a76e26")
    text = page.read_text()
    assert "| new arena table |" in text and long_table in text and "old table" not in text
    assert "kept from an earlier run" in text and text.startswith("intro\n") and text.endswith("after\n")
