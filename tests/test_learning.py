"""What makes learning work: recipes, the behaviour cloning warm start and potential-based shaping."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from conftest import game_ids

from fruit_envs import get_spec
from fruit_envs.agents import make_agent
from fruit_envs.core import rng as frng
from fruit_envs.core.shaping import score_margin
from fruit_envs.training import train_ppo
from fruit_envs.training.bc import Demonstrations, demonstrations, pretrain


@pytest.mark.parametrize("name", train_ppo.recipe_names())
def test_every_recipe_loads_and_names_a_registered_game(name):
    args = train_ppo.load_recipe(name)
    assert args.recipe == name
    get_spec(args.game)  # a registered game
    assert args.total_timesteps > 0


def test_recipe_values_are_defaults_the_command_line_overrides():
    args = train_ppo.parse_args(["--recipe", "cherry_picking", "--total-timesteps", "1234"])
    recipe = train_ppo.load_recipe("cherry_picking")
    assert args.total_timesteps == 1234 and recipe.total_timesteps != 1234
    assert args.bc_games == recipe.bc_games and args.shaping == recipe.shaping


def test_recipes_cover_every_official_player_count():
    """Issue 31: a reference agent for every game at every official player count comes from a recipe."""
    from fruit_envs.core.spec import registered_games

    for spec in registered_games():
        assert set(spec.official_player_counts) <= set(train_ppo.recipe_player_counts(spec.id)), spec.id
        for n in spec.official_player_counts:
            assert train_ppo.load_recipe(spec.id, n).num_players == n


def test_expert_iteration_recipes_start_from_the_baseline_and_imitate_guided_search():
    """Issue 34, point 3: one round of expert iteration per 2-player game, as a second-stage recipe."""
    names = [name for name in train_ppo.recipe_names() if name.startswith("expert/")]
    assert sorted(names) == [
        f"expert/{g}" for g in ("cherry_picking", "fruit_picking", "juicy_fruits", "quickity_pickity")
    ]
    for name in names:
        args = train_ppo.load_recipe(name)
        assert (args.init_policy, args.bc_teacher, args.num_players) == ("ppo-baseline", "search:guided", 2)
        assert args.bc_games > 0 and args.opponent == "self-play" and "greedy" in args.league_baselines


def test_a_recipes_player_section_overrides_its_base_and_the_command_line_overrides_both(tmp_path):
    recipe = tmp_path / "r.yaml"
    recipe.write_text(
        "game: cherry_picking\nnum_players: 2\ntotal_timesteps: 100\nshaping: 0.5\n"
        "players:\n  3:\n    total_timesteps: 300\n"
    )
    assert train_ppo.recipe_player_counts(str(recipe)) == [2, 3]
    two, three = train_ppo.load_recipe(str(recipe)), train_ppo.load_recipe(str(recipe), 3)
    assert (two.num_players, two.total_timesteps) == (2, 100)
    assert (three.num_players, three.total_timesteps, three.shaping) == (3, 300, 0.5)
    four = train_ppo.load_recipe(str(recipe), 4)  # a count without a section: the base values
    assert (four.num_players, four.total_timesteps) == (4, 100)
    args = train_ppo.parse_args(["--recipe", str(recipe), "--num-players", "3", "--shaping", "0.1"])
    assert (args.num_players, args.total_timesteps, args.shaping) == (3, 300, 0.1)
    recipe.write_text("game: cherry_picking\nplayers:\n  3:\n    num_players: 4\n")
    with pytest.raises(ValueError, match=r"\(players: 3\): unknown argument\(s\) \['num_players'\]"):
        train_ppo.load_recipe(str(recipe), 3)
    recipe.write_text("game: cherry_picking\nplayers:\n  three: {}\n")
    with pytest.raises(ValueError, match="`players` must map player counts"):
        train_ppo.load_recipe(str(recipe))


def test_the_league_gives_its_fixed_agents_their_share_however_many_snapshots_it_holds(tmp_path):
    """`baseline_weight`: greedy keeps half the opponent seats as snapshots accumulate (issue 31: trained
    against a mixture, not only against greedy, nor with greedy diluted away)."""
    from types import SimpleNamespace

    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    args = train_ppo.Args(league_baselines=("greedy",), baseline_weight=0.5, latest_weight=0.25)
    league = train_ppo.League(tmp_path, spec, config, args, model=None)
    league.latest = lambda: "self"
    pool, weights = league.opponents()
    assert len(pool) == 2 and weights == [0.25, 0.75], "no snapshot yet: the baselines take its share"
    league.snapshots = [SimpleNamespace(name=f"s{k}") for k in range(4)]
    pool, weights = league.opponents()
    assert weights[0] == 0.25 and weights[-1] == 0.5 and weights[1:5] == [0.0625] * 4
    even = train_ppo.League(tmp_path, spec, config, train_ppo.Args(league_baselines=("greedy",)), model=None)
    even.latest = lambda: "self"
    even.snapshots = league.snapshots
    assert even.opponents()[1] == [0.5] + [0.1] * 5, "without baseline_weight, one share each"


class SeatingEnv:
    """Records what the trainer seats in the opponents' seats (`set_opponents` calls)."""

    def __init__(self):
        self.seated = []

    def set_opponents(self, opponent, weights=None):
        self.seated.append(opponent if weights is None else (len(opponent), weights))


def test_opponents_play_greedy_through_the_curriculum_then_the_league(tmp_path):
    """Issue 55: who sits in the opponents' seats is one named part of train(): greedy alone for the first
    `greedy_timesteps`, the league from the rollout that ends the curriculum, a snapshot (and a new draw of
    the league) every `snapshot_every` rollouts; a fixed opponent instead of the league; nobody alone."""
    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    args = train_ppo.Args(greedy_timesteps=2048, num_envs=4, n_steps=256, snapshot_every=3, league_size=2)
    league = train_ppo.League(tmp_path, spec, config, args, model=None)
    league.latest = lambda: "self"
    snapshots = []
    league.add_snapshot = lambda t: (snapshots.append(t), league.snapshots.append(f"snapshot {t}"))
    env, greedy = SeatingEnv(), make_agent("greedy", spec, config)
    opponents = train_ppo.Opponents(env, args, league, greedy, solo=False)
    opponents.choose(0)
    assert env.seated == [greedy]
    opponents.after_rollout(1, 1024)  # rollouts of 4 x 256 = 1024 decisions
    assert env.seated == [greedy] and snapshots == []
    opponents.after_rollout(2, 2048)  # the curriculum ends: the league (the learner, greedy) takes over
    assert env.seated[1:] == [(2, [0.5, 0.5])] and snapshots == []
    opponents.after_rollout(3, 3072)  # the third rollout: a snapshot joins the league
    assert snapshots == [3072] and env.seated[2:] == [(3, [0.5, 0.25, 0.25])]
    opponents.after_rollout(4, 4096)
    assert len(env.seated) == 3

    fixed = SeatingEnv()
    train_ppo.Opponents(fixed, dataclasses.replace(args, opponent="random"), None, greedy, solo=False).choose(4096)
    assert fixed.seated == ["random"]
    alone = SeatingEnv()
    train_ppo.Opponents(alone, args, None, greedy, solo=True).choose(0)
    assert alone.seated == []


def test_a_bad_recipe_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: cherry_picking\nlearning_rat: 0.1\n")
    assert train_ppo.main(["--recipe", str(bad), "--runs-dir", str(tmp_path / "runs")]) == 2
    assert "unknown argument(s) ['learning_rat']" in capsys.readouterr().err
    assert train_ppo.main(["--recipe", "chess", "--runs-dir", str(tmp_path / "runs")]) == 2
    assert "unknown recipe 'chess'" in capsys.readouterr().err


@pytest.mark.parametrize("game", game_ids())
def test_demonstrations_are_the_teachers_legal_decisions_with_their_returns(game):
    spec = get_spec(game)
    config = spec.make_config()
    greedy = make_agent("greedy", spec, config)
    data = demonstrations(spec, config, greedy, 6, seed=3)
    assert data.obs.shape == (len(data), *spec.observation_shape(config))
    assert data.mask[np.arange(len(data)), data.actions].all(), "every demonstrated action is legal"
    if config.reward == "terminal":
        assert set(np.unique(data.returns)) <= {-1.0, 0.0, 1.0}
    again = demonstrations(spec, config, greedy, 6, seed=3)
    assert np.array_equal(again.actions, data.actions) and np.array_equal(again.returns, data.returns)


def test_demonstrations_round_trip_and_refuse_another_game(tmp_path):
    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    data = demonstrations(spec, config, make_agent("greedy", spec, config), 4, seed=1)
    path = tmp_path / "demos.npz"
    data.save(path)
    back = Demonstrations.load(path, spec, config)
    assert np.array_equal(back.obs, data.obs) and np.array_equal(back.actions, data.actions)
    assert back.meta["game"] == "cherry_picking" and back.meta["games"] == 4
    c = 0.1
    assert np.allclose(back.value_targets(c), data.returns - c * data.potential)
    with pytest.raises(ValueError, match="demonstrations .* are of .*cherry_picking.* but this run needs"):
        Demonstrations.load(path, get_spec("fruit_picking"), get_spec("fruit_picking").make_config(2))
    with pytest.raises(ValueError, match="no such file"):
        Demonstrations.load(tmp_path / "missing.npz")


def test_a_teacher_that_needs_the_state_gets_the_games_it_decides():
    """A teacher with `needs_state` (search) is called with the true state of each live game and its seat."""
    spec = get_spec("juicy_fruits")
    config = spec.make_config(2)
    greedy = make_agent("greedy", spec, config)
    calls = []

    class Peeking:
        needs_state = True

        def act(self, obs, mask, rng, state, seats):
            assert state.batch_size == len(obs) == len(seats)
            assert np.array_equal(spec.rules.observe(state, seats), obs)
            calls.append(len(obs))
            return greedy.act(obs, mask, rng)

    data = demonstrations(spec, config, Peeking(), 3, seed=2)
    assert sum(calls) == len(data) > 0


@pytest.mark.parametrize("game", ["cherry_picking", "quickity_pickity"])  # turn-based and simultaneous play
def test_a_teacher_against_an_opponent_is_imitated_in_its_seat_alone(game):
    """With an opponent the teacher plays one seat per game, rotated, and only its own decisions are kept."""
    spec = get_spec(game)
    config = spec.make_config(2)
    last_legal = lambda mask: mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)  # noqa: E731
    asked, seats_taught = [], set()

    class Teacher:
        needs_state = True  # to be told the seats it plays

        def act(self, obs, mask, rng, state, seats):
            asked.append(len(obs))
            seats_taught.update(int(k) for k in seats)
            return last_legal(mask)

    class Opponent:
        def act(self, obs, mask, rng):
            return np.argmax(mask, axis=1)  # its first legal action: another player than the teacher

    data = demonstrations(spec, config, Teacher(), 8, seed=4, opponent=Opponent())
    assert len(data) == sum(asked) > 0 and data.meta["opponent"] == "Opponent"
    # the opponent's choices (first legal action) would differ wherever there is a choice
    assert (data.mask.sum(axis=1) > 1).any()
    assert np.array_equal(data.actions, last_legal(data.mask)), "every kept decision is the teacher's"
    assert seats_taught == {0, 1}, "seats rotate: the teacher plays each seat in some game"


def test_games_cut_off_by_a_cap_are_not_demonstrations():
    """A teacher that passes whenever it may stalls Juicy Fruits to the round cap: those games are
    truncated, pay no outcome, and none of their decisions is kept."""
    from fruit_envs.games.juicy_fruits import rules as jf

    spec = get_spec("juicy_fruits")
    config = spec.make_config(2)
    greedy = make_agent("greedy", spec, config)

    class Staller:
        def act(self, obs, mask, rng):
            return np.where(mask[:, jf.PASS], jf.PASS, greedy.act(obs, mask, rng))

    data = demonstrations(spec, config, Staller(), 2, seed=0)
    assert data.meta["truncated_games"] == 2 and len(data) == 0
    mixed = demonstrations(spec, config, greedy, 4, seed=0)
    assert mixed.meta["truncated_games"] == 0 and len(mixed) > 0


def test_warm_start_imitates_the_teacher():
    """A small policy fitted to greedy's Cherry Picking decisions agrees with greedy far more often than chance."""
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO

    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv

    torch.manual_seed(0)
    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    data = demonstrations(spec, config, make_agent("greedy", spec, config), 60, seed=0)
    model = MaskablePPO("MlpPolicy", FruitSB3VecEnv("cherry_picking", num_envs=4), device="cpu", seed=0)
    history = pretrain(model.policy, data, epochs=8, batch_size=256)
    legal_share = (1.0 / data.mask.sum(axis=1)).mean()  # agreement of a uniformly random legal choice
    assert history[-1]["accuracy"] > 2 * legal_share
    assert history[-1]["policy_loss"] < history[0]["policy_loss"]


def test_shaping_telescopes_to_the_start_potential():
    """Potential-based shaping with gamma = 1 adds c * (phi(next) - phi(now)) at each step and phi = 0 at the
    end, so an episode's shaped return is its true return minus c * phi at the learner's first decision."""
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv

    c = 0.05
    env = FruitSB3VecEnv("cherry_picking", num_envs=16, num_players=2, opponent="greedy", shaping=c)
    env.seed(7)
    env.reset()
    start = score_margin(env.spec_, env.batch.state, env.batch.seats)
    shaped = np.zeros(16)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(400):
        masks = env.action_masks()
        env.step_async(np.argmax(np.where(masks, rng.random(masks.shape), -1), axis=1))
        _, rewards, dones, infos = env.step_wait()
        shaped += rewards
        for g in np.flatnonzero(dones):
            assert shaped[g] == pytest.approx(infos[g]["episode"]["r"] - c * start[g], abs=1e-4)
            checked += 1
        shaped[dones] = 0.0
        fresh = score_margin(env.spec_, env.batch.state, env.batch.seats)
        start = np.where(dones, fresh, start)
    assert checked >= 16


def test_tiny_recipe_run_with_warm_start_and_curriculum(tmp_path, capsys):
    runs = tmp_path / "runs"
    argv = ["--recipe", "cherry_picking", "--total-timesteps", "1024", "--bc-games", "20", "--bc-epochs", "1"]
    argv += ["--bc-teacher", "greedy"]
    argv += ["--greedy-timesteps", "512", "--num-envs", "8", "--n-steps", "32", "--batch-size", "64"]
    argv += ["--eval-every", "100000", "--eval-games", "8", "--net-arch", "32", "32", "--no-progress"]
    assert train_ppo.main([*argv, "--runs-dir", str(runs)]) == 0
    (run,) = list(runs.iterdir())
    bc = json.loads((run / "bc.json").read_text())
    assert bc["teacher"] == "greedy" and bc["games"] == 20 and len(bc["epochs"]) == 1
    evals = [json.loads(json.dumps(r)) for r in train_ppo.CsvLog(run / "eval.csv", train_ppo.EVAL_COLUMNS).rows()]
    assert {int(r["timesteps"]) for r in evals} >= {0}, "the warm start is evaluated before PPO starts"
    config = json.loads((run / "config.json").read_text())
    assert config["args"]["recipe"] == "cherry_picking" and config["args"]["shaping"] > 0


def test_demonstrations_command_checks_its_arguments_before_playing(tmp_path, capsys):
    """`python -m fruit_envs.training.bc`: a bad game or teacher is a clear error (exit 2), a good call writes the file."""
    from fruit_envs.training import bc

    out = tmp_path / "demos.npz"
    assert bc.main(["--game", "chess", "--out", str(out)]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err
    assert bc.main(["--game", "cherry_picking", "--teacher", "nobody", "--out", str(out)]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bc.main(["--game", "cherry_picking", "--games", "0", "--out", str(out)])
    assert not out.exists()
    assert bc.main(["--game", "cherry_picking", "--games", "3", "--out", str(out)]) == 0
    assert Demonstrations.load(out).meta["games"] == 3


def test_demonstrations_played_in_parallel_merge_into_one_file(tmp_path, capsys):
    """`bc --merge`: files of the same game and teacher with different seeds join (decisions and games add
    up, in order); another teacher, a repeated seed, another game or a file that is not one is refused."""
    from fruit_envs.training import bc

    a, b, c, out = (tmp_path / f"{name}.npz" for name in ("a", "b", "c", "all"))
    assert bc.main(["--game", "cherry_picking", "--games", "3", "--seed", "1", "--out", str(a)]) == 0
    assert bc.main(["--game", "cherry_picking", "--games", "2", "--seed", "2", "--out", str(b)]) == 0
    assert (
        bc.main(["--game", "cherry_picking", "--games", "2", "--seed", "3", "--teacher", "random", "--out", str(c)])
        == 0
    )
    assert bc.main(["--game", "cherry_picking", "--merge", str(a), str(b), "--out", str(out)]) == 0
    first, second, merged = Demonstrations.load(a), Demonstrations.load(b), Demonstrations.load(out)
    assert len(merged) == len(first) + len(second) and merged.meta["games"] == 5 and merged.meta["seed"] == [1, 2]
    assert np.array_equal(merged.obs, np.concatenate([first.obs, second.obs]))
    assert np.array_equal(merged.actions, np.concatenate([first.actions, second.actions]))
    capsys.readouterr()
    assert bc.main(["--game", "cherry_picking", "--merge", str(a), str(c), "--out", str(out)]) == 2
    assert "only like demonstrations merge" in capsys.readouterr().err
    assert bc.main(["--game", "cherry_picking", "--merge", str(a), str(a), "--out", str(out)]) == 2
    assert "share a seed" in capsys.readouterr().err
    assert bc.main(["--game", "fruit_picking", "--merge", str(a), str(b), "--out", str(out)]) == 2
    assert "not fruit_picking" in capsys.readouterr().err
    text = tmp_path / "notes.npz"
    text.write_text("not demonstrations")
    assert bc.main(["--game", "cherry_picking", "--merge", str(a), str(text), "--out", str(out)]) == 2
    assert "error:" in capsys.readouterr().err
    assert Demonstrations.load(out).meta["games"] == 5  # a refused merge leaves the earlier file as it was
    both, d = tmp_path / "both.npz", tmp_path / "d.npz"
    assert bc.main(["--game", "cherry_picking", "--merge", str(out), str(c), "--out", str(both)]) == 2  # teacher
    assert bc.main(["--game", "cherry_picking", "--games", "1", "--seed", "4", "--out", str(d)]) == 0
    assert bc.main(["--game", "cherry_picking", "--merge", str(out), str(d), "--out", str(both)]) == 0  # merges again
    assert Demonstrations.load(both).meta["seed"] == [1, 2, 4]


def test_a_teacher_improved_by_an_expert_on_some_kinds_of_decision(tmp_path, capsys):
    """Issue 31: demonstrations of an agent whose decisions of some kinds an expert makes instead
    (`agents.base.Handed`): on the positions the agent itself meets, the demonstrated action is the
    expert's where the agent chose one of those kinds, and the agent's own elsewhere."""
    from fruit_envs.agents.base import Handed, action_kinds
    from fruit_envs.training import bc

    spec = get_spec("quickity_pickity")
    config = spec.make_config(2)
    kinds = np.array(action_kinds(spec, config))

    class Last:
        """The highest legal action: deterministic, and a take wherever a fruit lies face up."""

        name = "last"

        def act(self, obs, mask, rng):
            return mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)

    last, rand = Last(), make_agent("random", spec, config)
    hybrid = Handed(last, rand, spec, config, ("take",))
    data = demonstrations(spec, config, hybrid, 4, seed=2, opponent=make_agent("greedy", spec, config))
    own = last.act(data.obs, data.mask, None)
    took = kinds[own] == "take"
    assert took.any() and (~took).any()
    assert np.array_equal(data.actions[~took], own[~took]), "the agent decides where it chose no take"
    assert (data.actions[took] != own[took]).mean() > 0.3, "random decides where the agent took"
    assert data.mask[np.arange(len(data)), data.actions].all()
    with pytest.raises(ValueError, match=r"must name kinds of action, from \['flip', 'place', 'take', 'wait'\]"):
        Handed(last, rand, spec, config, ("jump",))
    out = tmp_path / "demos.npz"
    assert bc.main(["--game", "quickity_pickity", "--expert-decides", "take", "--out", str(out)]) == 2
    assert "need an expert agent" in capsys.readouterr().err
    assert (
        bc.main(["--game", "quickity_pickity", "--expert", "random", "--expert-decides", "jump", "--out", str(out)])
        == 2
    )
    assert "got ['jump']" in capsys.readouterr().err
    args = ["--game", "quickity_pickity", "--teacher", "greedy", "--expert", "random", "--expert-decides", "take"]
    assert bc.main([*args, "--games", "2", "--out", str(out)]) == 0
    assert Demonstrations.load(out).meta["teacher"] == "greedy+random@take"
    runs = ["--runs-dir", str(tmp_path / "runs")]
    assert train_ppo.main(["--game", "quickity_pickity", "--bc-expert", "search", *runs]) == 2
    assert "they need --bc-games N > 0" in capsys.readouterr().err
    bad = ["--bc-games", "2", "--bc-expert", "random", "--bc-expert-decides", "jump"]
    assert train_ppo.main(["--game", "quickity_pickity", *bad, *runs]) == 2
    assert "got ['jump']" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists(), "refused before the run folder exists"


def test_the_row_encoder_shares_weights_across_rows_and_ignores_absent_ones():
    """Issue 31: Quickity Pickity's set rows through one shared network. Swapping two rows swaps their
    per-row features and leaves the pooled summary alone; a row of zeros (no set) changes nothing."""
    import gymnasium
    import torch

    from fruit_envs.agents.networks import RowEncoder

    space = gymnasium.spaces.Box(-1, 1, (3 + 4 * 2,))
    torch.manual_seed(0)
    encoder = RowEncoder(space, [(3, 11, 2)], hidden=8, per_row=2)
    assert encoder.features_dim == 3 + 2 * 8 + 4 * 2
    obs = torch.tensor([[1.0, 2.0, 3.0, 0.5, 0.1, 0.9, -0.3, 0.0, 0.0, 0.2, 0.7]])
    swapped = obs.clone()
    swapped[0, 3:5], swapped[0, 5:7] = obs[0, 5:7], obs[0, 3:5]
    a, b = encoder(obs)[0], encoder(swapped)[0]
    assert torch.equal(a[:3], obs[0, :3]), "the rest passes through"
    assert torch.allclose(a[3:19], b[3:19]), "mean and max over rows: no reordering changes them"
    assert torch.allclose(a[19:21], b[21:23]) and torch.allclose(a[21:23], b[19:21]), "per-row features move"
    assert torch.equal(a[23:25], torch.zeros(2)), "an absent row adds nothing"
    with pytest.raises(ValueError, match="does not fit"):
        RowEncoder(space, [(3, 12, 2)])


def test_row_encoder_is_refused_for_a_game_without_rows(tmp_path, capsys):
    assert train_ppo.main(["--game", "cherry_picking", "--row-encoder", "--runs-dir", str(tmp_path)]) == 2
    assert "--row-encoder: Cherry Picking declares no blocks of like rows" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_checkpoint_averaging_means_the_weights_and_refuses_what_cannot_be_averaged(tmp_path, capsys):
    """`training.average`: the averaged model's policy weights are the mean of the checkpoints' (from a run
    folder's step range or from files), it loads and plays; another network, one checkpoint, an existing
    output or a folder that is no run is refused with the reason, and nothing is overwritten."""
    import torch
    from sb3_contrib import MaskablePPO

    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv
    from fruit_envs.training import average

    env = FruitSB3VecEnv("cherry_picking", num_envs=4, num_players=2, opponent="random")
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    models = []
    for k, step in enumerate((100, 200, 300)):
        model = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=32, seed=k, policy_kwargs={"net_arch": [16]})
        model.save(run / "checkpoints" / f"step_{step:012d}.zip")
        models.append(model)
    other = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=32, policy_kwargs={"net_arch": [8]})
    other.save(tmp_path / "other.zip")
    out = tmp_path / "avg" / "model.zip"
    assert average.main([str(run), "--from-step", "200", "--out", str(out)]) == 0
    averaged = MaskablePPO.load(out, device="cpu").policy.state_dict()
    for name, value in models[1].policy.state_dict().items():
        expected = (value.double() + models[2].policy.state_dict()[name].double()) / 2
        assert torch.allclose(averaged[name].double(), expected.to(averaged[name].dtype).double(), atol=1e-6), name
    assert json.loads(out.with_suffix(".json").read_text())["averaged"][0].endswith("step_000000000200.zip")
    spec = get_spec("cherry_picking")
    agent = make_agent(f"ppo:{out}", spec, spec.make_config())
    state = spec.rules.init(spec.make_config(), frng.keys_from_seed(0, 4))
    mask = spec.rules.legal_mask(state)
    actions = agent.act(spec.rules.observe(state, state.to_move.astype(np.int64)), mask, np.random.default_rng(0))
    assert mask[np.arange(4), actions].all()
    before = out.read_bytes()
    capsys.readouterr()
    assert average.main([str(run), "--out", str(out)]) == 2
    assert "exists" in capsys.readouterr().err and out.read_bytes() == before
    first = run / "checkpoints" / "step_000000000100.zip"
    assert average.main([str(first), str(tmp_path / "other.zip"), "--out", str(tmp_path / "x.zip")]) == 2
    assert "another network" in capsys.readouterr().err
    assert average.main([str(run), "--from-step", "300", "--out", str(tmp_path / "y.zip")]) == 2
    assert "at least two" in capsys.readouterr().err
    assert average.main([str(tmp_path / "avg"), "--out", str(tmp_path / "z.zip")]) == 2
    assert "not a training run folder" in capsys.readouterr().err
    assert not any((tmp_path / f"{n}.zip").exists() for n in "xyz")


class _Valuing:
    """A teacher that keeps a value of each action it weighs (as search does): it weighs the legal
    actions of rows whose first legal action is even, values action a at -a / 10, and takes the best."""

    name = "valuing"
    last_values = None

    def act(self, obs, mask, rng):
        values = np.where(mask, -np.arange(mask.shape[1]) / 10.0, np.nan)
        values[np.argmax(mask, axis=1) % 2 == 1] = np.nan  # rows it does not weigh
        self.last_values = values
        return np.argmax(mask, axis=1)


def _softmax_of_legal(mask: np.ndarray, temperature: float) -> np.ndarray:
    scaled = np.where(mask, -np.arange(mask.shape[1]) / 10.0 / temperature, -np.inf)
    p = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


def test_a_teacher_that_keeps_action_values_gives_soft_targets(tmp_path):
    """Learning from search's value of each action, not its choice alone: the values a teacher keeps
    (`last_values`) are recorded per decision, saved, and turned into soft targets: a softmax of the
    values where it weighed two or more actions, its choice elsewhere."""
    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    data = demonstrations(spec, config, _Valuing(), 6, seed=5, opponent=make_agent("greedy", spec, config))
    weighed = np.argmax(data.mask, axis=1) % 2 == 0
    assert data.values.shape == data.mask.shape and weighed.any() and (~weighed).any()
    assert np.array_equal(np.isfinite(data.values), data.mask & weighed[:, None]), "values where it weighed"
    soft = data.soft_targets(0.05)
    assert np.allclose(soft.sum(axis=1), 1.0) and (soft[~data.mask] == 0).all()
    several = weighed & (data.mask.sum(axis=1) >= 2)
    assert np.allclose(soft[several], _softmax_of_legal(data.mask[several], 0.05), atol=1e-6)
    one_hot = np.eye(data.mask.shape[1], dtype=np.float32)[data.actions]
    assert np.array_equal(soft[~several], one_hot[~several]), "its choice where it weighed fewer than two"
    half = data.soft_targets(0.05, weight=0.5)
    assert np.allclose(half[several], 0.5 * one_hot[several] + 0.5 * soft[several], atol=1e-6)
    assert np.array_equal(data.soft_targets(0.05, weight=0.0), one_hot)
    for temperature, weight in ((0.0, 1.0), (np.nan, 1.0), (0.1, 1.5)):
        with pytest.raises(ValueError, match="temperature > 0 and a weight in"):
            data.soft_targets(temperature, weight)
    path, plain = tmp_path / "valued.npz", tmp_path / "plain.npz"
    data.save(path)
    back = Demonstrations.load(path, spec, config)
    assert np.array_equal(back.values, data.values, equal_nan=True)
    demonstrations(spec, config, make_agent("greedy", spec, config), 2, seed=6).save(plain)
    assert Demonstrations.load(plain).values is None and Demonstrations.load(plain).soft_targets(0.1).max() == 1.0
    stripped = dataclasses.replace(back, values=None, meta={**back.meta, "seed": 99})  # as saved before values
    with pytest.raises(ValueError, match=r"\['old'\] hold no teacher values"):
        Demonstrations.merge([back, stripped], [str(path), "old"])
    assert Demonstrations.merge([back, dataclasses.replace(stripped, values=back.values)], ["a", "b"]).values.shape == (
        2 * len(back),
        back.mask.shape[1],
    )


def test_an_agent_handing_decisions_to_a_valuing_expert_keeps_its_values():
    """`Handed` passes on the expert's values on the rows the expert decided, NaN on the agent's own."""
    from fruit_envs.agents.base import Handed, action_kinds

    spec = get_spec("quickity_pickity")
    config = spec.make_config(2)
    kinds = np.array(action_kinds(spec, config))
    data = demonstrations(spec, config, make_agent("greedy", spec, config), 2, seed=1)
    greedy, expert = make_agent("greedy", spec, config), _Valuing()
    hybrid = Handed(greedy, expert, spec, config, ("take",))
    chosen = hybrid.act(data.obs, data.mask, np.random.default_rng(0))
    handed = kinds[greedy.act(data.obs, data.mask, np.random.default_rng(0))] == "take"
    assert handed.any() and (~handed).any()
    assert np.isnan(hybrid.last_values[~handed]).all()
    assert np.array_equal(hybrid.last_values[handed], expert.last_values, equal_nan=True)
    assert np.array_equal(chosen[handed], np.argmax(data.mask[handed], axis=1))
    keeps_none = Handed(greedy, make_agent("random", spec, config), spec, config, ("take",))
    assert not hasattr(keeps_none, "last_values"), "an expert without values: nothing to keep"
    assert demonstrations(spec, config, keeps_none, 2, seed=1).values is None


def test_warm_start_fits_soft_targets_and_refuses_a_teacher_without_values(tmp_path, capsys):
    """`pretrain(soft_temperature=T)` fits the soft targets (their cross-entropy falls, and the policy's
    probabilities near them); `train_ppo --bc-soft-temperature` refuses warm starts that keep no values."""
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO

    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv

    torch.manual_seed(0)
    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    data = demonstrations(spec, config, _Valuing(), 30, seed=0)
    model = MaskablePPO("MlpPolicy", FruitSB3VecEnv("cherry_picking", num_envs=4), device="cpu", seed=0)
    history = pretrain(model.policy, data, epochs=8, batch_size=256, soft_temperature=0.2)
    assert history[-1]["policy_loss"] < 0.8 * history[0]["policy_loss"]
    targets = data.soft_targets(0.2)
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(data.obs), action_masks=data.mask)
        probs = dist.distribution.probs.numpy()
    assert np.abs(probs - targets).sum(axis=1).mean() < 0.5, "the policy's probabilities near its targets"
    plain = tmp_path / "plain.npz"
    demonstrations(spec, config, make_agent("greedy", spec, config), 2, seed=6).save(plain)
    runs = ["--game", "cherry_picking", "--total-timesteps", "64", "--runs-dir", str(tmp_path / "runs")]
    assert train_ppo.main([*runs, "--bc-data", str(plain), "--bc-soft-temperature", "0.1"]) == 2
    assert f"--bc-data {plain} holds none" in capsys.readouterr().err
    assert train_ppo.main([*runs, "--bc-games", "4", "--bc-soft-temperature", "0.1"]) == 2
    assert "the teacher greedy keeps none" in capsys.readouterr().err
    assert train_ppo.main([*runs, "--bc-soft-temperature", "0.1"]) == 2
    assert "needs --bc-games N > 0 or --bc-data FILE" in capsys.readouterr().err
    assert train_ppo.main([*runs, "--bc-soft-weight", "1.5"]) == 2
    assert "--bc-soft-weight in [0, 1]" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists(), "refused before the run folder exists"
