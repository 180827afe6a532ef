"""The PPO baselines shipped in agents/baselines/: they load by name, play legally and beat greedy."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fruit_envs import get_spec
from fruit_envs.agents import make_agent
from fruit_envs.agents.ppo import BASELINES, baseline_files, load_baseline, shipped_baselines

pytest.importorskip("sb3_contrib", reason="the PPO baselines need the train extra")

SHIPPED = [(m["game"], m["num_players"]) for m in shipped_baselines()]


def test_baselines_are_shipped():
    assert SHIPPED, f"no PPO baseline in {BASELINES}"


def test_every_game_ships_a_baseline_at_every_official_player_count():
    """Issue 31: a reference agent for every game and official player count (the score attack included)."""
    from fruit_envs.core.spec import registered_games

    wanted = {(spec.id, n) for spec in registered_games() for n in spec.official_player_counts}
    assert wanted <= set(SHIPPED), f"missing: {sorted(wanted - set(SHIPPED))}"


@pytest.mark.parametrize(("game", "players"), SHIPPED, ids=[f"{g}-{n}p" for g, n in SHIPPED])
def test_shipped_baseline_beats_greedy(game, players):
    """Issues 17 and 31: loads as `ppo-baseline`, plays only legal actions (arena raises otherwise), and over
    200 games on fixed seeds, seats rotated, in one seat against greedy in every other, wins more than its
    fair share 1/n; alone (the score attack), scores more than greedy on the same games."""
    from fruit_envs.agents.arena import evaluate, evaluate_alone

    spec = get_spec(game)
    config = spec.make_config(players)
    agent = make_agent("ppo-baseline", spec, config)
    meta = json.loads(baseline_files(spec, players)[1].read_text())
    assert meta["rules_version"] == spec.version and meta["observation_shape"] == list(spec.observation_shape(config))
    weights = sum(p.numel() for p in agent.model.policy.parameters())  # float16 on disk: 2 bytes each
    size = baseline_files(spec, players)[0].stat().st_size
    assert size < 2.2 * weights + 100_000, f"weights only, in float16: {size:,} bytes for {weights:,} weights"
    if players == 1:
        ppo = evaluate_alone(spec, config, agent, 200, seed=2024)
        greedy = evaluate_alone(spec, config, make_agent("greedy", spec, config), 200, seed=2024)
        assert ppo["mean_score"] > greedy["mean_score"], (ppo, greedy)
        return
    result = evaluate(spec, config, agent, make_agent("greedy", spec, config), 200, seed=2024)
    assert result["wins"] > result["finished"] / players, result


def test_a_baseline_of_other_rules_is_refused(tmp_path, monkeypatch):
    """A shipped model records the rules version and observation size it was trained on and refuses a mismatch."""
    import fruit_envs.agents.ppo as ppo

    game, players = SHIPPED[0]
    spec = get_spec(game)
    policy, meta_path = baseline_files(spec, players)
    meta = json.loads(meta_path.read_text())
    (tmp_path / policy.name).write_bytes(policy.read_bytes())
    (tmp_path / meta_path.name).write_text(json.dumps({**meta, "rules_version": meta["rules_version"] + 1}))
    monkeypatch.setattr(ppo, "BASELINES", tmp_path)
    with pytest.raises(ValueError, match=r"trained on rules v\d+ .* installed rules are v\d+.*Retrain"):
        load_baseline(spec, spec.make_config(players))
    (tmp_path / meta_path.name).write_text(json.dumps({**meta, "observation_shape": [1]}))
    with pytest.raises(ValueError, match=r"observations of shape \(1,\)"):
        load_baseline(spec, spec.make_config(players))


def test_a_missing_baseline_names_those_shipped_and_the_retrain_command():
    """Cherry Picking's 5 and 6 players are our extension of the rulebook: no baseline ships for them."""
    spec = get_spec("cherry_picking")
    with pytest.raises(
        ValueError,
        match=r"no PPO baseline is shipped for Cherry Picking with 5 players; shipped: .*"
        r"baselines retrain --games cherry_picking --players 5",
    ):
        make_agent("ppo-baseline", spec, spec.make_config(5))


def test_baseline_is_an_opponent_everywhere_an_agent_name_is():
    """`opponent="ppo-baseline"` in the Gymnasium env, like any agent name."""
    import gymnasium

    game, players = SHIPPED[0]
    spec = get_spec(game)
    env = gymnasium.make(spec.gym_id, num_players=players, opponent="ppo-baseline")
    obs, info = env.reset(seed=0)
    mask = info["action_mask"].astype(bool)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
    assert obs.shape == spec.observation_shape(spec.make_config(players))


def test_retrain_trains_a_recipe_and_exports_half_precision_weights(tmp_path, capsys):
    """`fruit-envs-baselines retrain` trains from a recipe and exports weights only, in float16, with the
    metadata the loader checks; the exported policy plays as the run's own model does."""
    import torch

    from fruit_envs.agents.ppo import PPOAgent
    from fruit_envs.training import baselines

    recipe = tmp_path / "tiny.yaml"
    recipe.write_text(
        "game: cherry_picking\nnum_players: 2\ntotal_timesteps: 256\nnum_envs: 8\nn_steps: 16\nbatch_size: 64\n"
        "n_epochs: 1\nnet_arch: [32, 32]\neval_every: 256\neval_games: 8\nopponent: greedy\nprogress: false\n"
    )
    out = tmp_path / "baselines"
    assert (
        baselines.main(["retrain", "--games", str(recipe), "--runs-dir", str(tmp_path / "runs"), "--out", str(out)])
        == 0
    )
    meta = json.loads((out / "cherry_picking_2p.json").read_text())
    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    assert meta["rules_version"] == spec.version and meta["observation_shape"] == list(spec.observation_shape(config))
    assert meta["weights"] == "float16" and meta["timesteps"] >= 256 and meta["training_seconds"] > 0
    assert set(meta["final_eval"]) == {"random", "greedy"} and meta["recipe"] == str(recipe)
    saved = torch.load(out / "cherry_picking_2p.zip", weights_only=False)
    assert {t.dtype for t in saved["state_dict"].values() if t.is_floating_point()} == {torch.float16}

    run = next((tmp_path / "runs").iterdir())
    full = PPOAgent(run / "model.zip", spec, config)
    half = PPOAgent(out / "cherry_picking_2p.zip", spec, config)
    state = spec.rules.init(config, np.arange(64, dtype=np.uint64))
    obs, mask = spec.rules.observe(state, state.to_move), spec.rules.legal_mask(state)
    rng = np.random.default_rng(0)
    assert (full.act(obs, mask, rng) == half.act(obs, mask, rng)).mean() > 0.95
    assert not list(out.glob("*.tmp*")), "written through temporary names"

    # a second stage (a run started from that baseline) records where it started
    from fruit_envs.training import train_ppo

    second = train_ppo.load_recipe(str(recipe), 2)
    second.init_policy, second.runs_dir, second.exp_name = str(out / "cherry_picking_2p.zip"), tmp_path / "runs2", "two"
    stage = baselines.export(Path(train_ppo.train(second)["run_dir"]), out)
    assert stage["started_from"]["policy"] == "ppo-baseline", "the baseline it replaced, named by its file"
    assert {k: stage["started_from"][k] for k in ("recipe", "run", "timesteps")} == {
        k: meta[k] for k in ("recipe", "run", "timesteps")
    }
    assert "started_from" not in meta


def test_retrain_runs_the_expert_stage_a_shipped_baseline_came_from(tmp_path):
    """Issue 34: a baseline exported from a second stage (`expert/<recipe>`, `finetune/<recipe>`) is
    retrained as it was made: its recipe, then that stage from the result; any other by its recipe alone."""
    from fruit_envs.training import baselines

    out = tmp_path / "baselines"
    out.mkdir()
    assert baselines.stage_of("cherry_picking", 2, out) is None  # nothing shipped there
    (out / "cherry_picking_2p.json").write_text(json.dumps({"recipe": "expert/cherry_picking"}))
    assert baselines.stage_of("cherry_picking", 2, out) == "expert/cherry_picking"
    assert baselines.stage_of("cherry_picking", 3, out) is None  # no stage for 3 players
    (out / "cherry_picking_2p.json").write_text(json.dumps({"recipe": "cherry_picking"}))
    assert baselines.stage_of("cherry_picking", 2, out) is None
    (out / "juicy_fruits_2p.json").write_text(json.dumps({"recipe": "finetune/juicy_fruits"}))
    assert baselines.stage_of("juicy_fruits", 2, out) == "finetune/juicy_fruits"  # any stage recipe
    (out / "juicy_fruits_2p.json").write_text(json.dumps({"recipe": "finetune/cherry_picking"}))
    assert baselines.stage_of("juicy_fruits", 2, out) is None  # another game's stage
    shipped = {(m["game"], m["num_players"]): m for m in shipped_baselines()}
    for (game, _), m in shipped.items():
        if "/" in str(m["recipe"]):  # a second stage, started from the baseline its game's recipe made
            assert m["started_from"]["policy"] == "ppo-baseline" and m["started_from"]["recipe"] == game, game


def test_retrain_ships_the_mean_of_several_seeds_checkpoints_when_the_recipe_says_so(tmp_path, capsys):
    """A recipe's `ship:` section: `retrain` trains one run per seed and ships the mean weights of their
    checkpoints from `average_from` on, evaluated afresh (Quickity Pickity's 2-player baseline is made so)."""
    import torch

    from fruit_envs.agents.ppo import load_model
    from fruit_envs.training import baselines, train_ppo

    recipe = tmp_path / "soup.yaml"
    recipe.write_text(
        "game: cherry_picking\nnum_players: 2\ntotal_timesteps: 256\nnum_envs: 8\nn_steps: 16\nbatch_size: 64\n"
        "n_epochs: 1\nnet_arch: [32, 32]\neval_every: 256\neval_games: 8\nopponent: greedy\nprogress: false\n"
        "checkpoint_every: 128\nship:\n  seeds: [3, 4]\n  average_from: 128\n"
    )
    assert train_ppo.load_recipe(str(recipe), 2).total_timesteps == 256, "a run ignores the ship section"
    out, runs = tmp_path / "baselines", tmp_path / "runs"
    assert baselines.main(["retrain", "--games", str(recipe), "--runs-dir", str(runs), "--out", str(out)]) == 0
    meta = json.loads((out / "cherry_picking_2p.json").read_text())
    made = sorted(runs.iterdir())
    assert [json.loads((r / "config.json").read_text())["args"]["seed"] for r in made] == [3, 4]
    assert meta["averaged"] == {"runs": [made[0].name, made[1].name], "from_step": 128, "checkpoints": 4}
    assert set(meta["final_eval"]) == {"random", "greedy"} and meta["final_eval"]["greedy"]["games"] == 8
    ckpts = [load_model(p).policy.state_dict() for r in made for p in sorted((r / "checkpoints").glob("step_*.zip"))]
    shipped = torch.load(out / "cherry_picking_2p.zip", weights_only=False)["state_dict"]
    for key, value in shipped.items():
        if value.is_floating_point():
            mean = torch.stack([c[key].double() for c in ckpts]).mean(0)
            assert torch.allclose(value.double(), mean, atol=2e-3), key

    with pytest.raises(ValueError, match="pass --average-from"):
        baselines.export(made[0], tmp_path / "other", also=(made[1],))
    assert baselines.main(["export", str(made[0]), str(made[1]), "--out", str(tmp_path / "o2")]) == 2
    assert "pass --average-from" in capsys.readouterr().err
    recipe.write_text("game: cherry_picking\nship:\n  seeds: [3, 4]\n")
    with pytest.raises(ValueError, match="needed for several seeds"):
        train_ppo.recipe_shipping(str(recipe))
    shipped = {name: train_ppo.recipe_shipping(name) for name in train_ppo.recipe_names()}  # all well formed
    assert shipped["expert/quickity_pickity"]["seeds"] == [3, 4], "the recipe that made the shipped baseline"
    for wrong in ("  seed: 3\n", "  - 3\n", "  seeds: [-1]\n"):
        recipe.write_text("game: cherry_picking\nship:\n" + wrong)
        with pytest.raises(ValueError, match="`ship` takes `seeds`"):
            train_ppo.recipe_shipping(str(recipe))


def test_export_refuses_what_is_not_a_finished_run(tmp_path, capsys):
    from fruit_envs.training import baselines

    assert baselines.main(["export", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "is not a finished run folder" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_list_names_every_shipped_baseline(capsys):
    from fruit_envs.training import baselines

    assert baselines.main(["list"]) == 0
    listed = capsys.readouterr().out
    assert all(f"{game} {players}p: rules v" in listed for game, players in SHIPPED)
