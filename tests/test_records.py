"""Game records from every API replay exactly; other rules versions and altered records are refused."""

from __future__ import annotations

import json
import re

import gymnasium
import numpy as np
import pytest
from conftest import game_ids, game_player_params

import fruit_envs  # noqa: F401  (registers the games)
from fruit_envs import replay as replay_cli
from fruit_envs.agents import make_agent
from fruit_envs.agents.arena import evaluate, evaluate_alone, play_games
from fruit_envs.core import record as frecord
from fruit_envs.core.aec import FruitAECEnv, FruitParallelEnv, make_aec_env
from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv
from fruit_envs.core.spec import get_spec


def random_aec_game(env, seed: int) -> None:
    env.reset(seed=seed)
    gen = np.random.default_rng(seed)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(gen.choice(np.flatnonzero(obs["action_mask"]))))


def replays_exactly(record: frecord.GameRecord) -> frecord.Replay:
    replay = frecord.replay(record)  # raises ReplayMismatch on any difference
    assert record.outcome is not None and replay.outcome == record.outcome
    return replay


# --- recording from every API ---------------------------------------------------------------------


@pytest.mark.parametrize("game, players", game_player_params())
def test_aec_records_replay_exactly(game, players, tmp_path):
    path = tmp_path / "games.jsonl"
    env = FruitAECEnv(game, num_players=players, record=path)
    for seed in range(3):
        random_aec_game(env, seed)
        assert env.game_record().outcome is not None
    records = frecord.read_records(path)
    assert len(records) == 3
    for record in records:
        assert record.game == game and record.rules_version == get_spec(game).version and record.key is not None
        replay = replays_exactly(record)
        assert replay.outcome["length"] == len(record.actions)
    line = path.read_text().splitlines()[0]
    assert len(line) < 400 + 6 * len(records[0].actions), "one compact line per game"
    assert json.loads(line)["format_version"] == frecord.FORMAT_VERSION


@pytest.mark.parametrize("game", game_ids())
def test_parallel_env_records_replay_exactly(game):
    """Every game's parallel env (the turn-based ones' added wait action is never recorded: it is no move)."""
    records = []
    env = FruitParallelEnv(game, num_players=min(3, max(get_spec(game).player_counts)), record=records)
    gen = np.random.default_rng(0)
    for seed in range(2):
        obs, _ = env.reset(seed=seed)
        while env.agents:
            obs, *_ = env.step({a: int(gen.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})
    assert len(records) == 2
    for record in records:
        replays_exactly(record)


@pytest.mark.parametrize("game", game_ids())
def test_gymnasium_single_and_vector_records_replay_exactly(game, tmp_path):
    spec = get_spec(game)
    path = tmp_path / "gym.jsonl"
    env = gymnasium.make(spec.gym_id, opponent=["random", "greedy"], record=path)
    _, info = env.reset(seed=0)
    episodes = 0
    while episodes < 2:
        _, _, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        if term or trunc:
            episodes += 1
            _, info = env.reset()
    players = 3 if 3 in spec.player_counts else spec.default_num_players  # a one-player game: alone
    envs = gymnasium.make_vec(spec.gym_id, num_envs=6, opponent="greedy", num_players=players, record=path)
    _, info = envs.reset(seed=1)
    gen = np.random.default_rng(1)
    finished = 0
    for _ in range(400):
        mask = info["action_mask"]
        _, _, term, trunc, info = envs.step(np.argmax(np.where(mask, gen.random(mask.shape), -1), axis=1))
        finished += int((term | trunc).sum())
    assert finished >= 6
    records = frecord.read_records(path)
    assert len(records) == 2 + finished
    for record in records:
        replays_exactly(record)
        assert record.players.count("learner") == 1 and record.meta["source"] in ("FruitEnv", "FruitVectorEnv")


def test_sb3_vec_env_records_and_illegal_endings(tmp_path):
    """An illegal learner action ends the game as a loss; the record says so and still replays."""
    records = []
    venv = FruitSB3VecEnv("cherry_picking", num_envs=4, opponent="random", record=records)
    venv.seed(0)
    venv.reset()
    venv.step(np.full(4, 59))  # 'wait' is never legal for the learner
    assert len(records) == 4
    for record in records:
        illegal = record.outcome["illegal"]
        learner = record.players.index("learner")
        assert illegal == {"seats": [learner], "actions": [59]} and learner not in record.outcome["winners"]
        replays_exactly(record)


def test_pettingzoo_classic_illegal_ending_is_recorded():
    records = []
    env = make_aec_env("cherry_picking", record=records)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0]))
    assert len(records) == 1 and records[0].outcome["illegal"]["seats"] == [0]
    replays_exactly(records[0])


def test_a_forged_illegal_ending_does_not_replay(tmp_path, capsys):
    """Records are data: an `outcome.illegal` must be what the replay shows (the blamed seat could act there
    and its action was not legal for it), so a record cannot pin a loss on a seat that did nothing wrong."""
    records = []
    env = make_aec_env("fruit_picking", record=records)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0]))
    honest = records[0]
    assert honest.outcome["illegal"]["seats"] == [0]
    replays_exactly(honest)

    def copy(record):
        return frecord.GameRecord.from_dict(json.loads(record.to_json()))

    blamed = copy(honest)
    blamed.outcome["illegal"]["seats"] = [1]
    blamed.outcome["winners"] = [0]
    with pytest.raises(frecord.ReplayMismatch, match="blames player_1, but player_0 was to move"):
        frecord.replay(blamed)
    legal = copy(honest)
    legal.outcome["illegal"]["actions"] = [int(np.flatnonzero(env.unwrapped.rules.legal_mask(
        frecord.start_state(honest))[0])[0])]  # fmt: skip
    with pytest.raises(frecord.ReplayMismatch, match="which is legal for it there"):
        frecord.replay(legal)
    path = tmp_path / "forged.jsonl"
    frecord.write_records(path, [honest, blamed])
    assert replay_cli.main([str(path), "--summary"]) == 1
    assert "#1 DIFFERS" in capsys.readouterr().out


def test_records_claiming_another_ending_or_seating_are_refused(one_record):
    """A record whose ending or labels contradict its replay is refused by name: an illegal ending claimed
    after the game was over, a finished game recorded as unfinished, more labels than seats."""
    record = frecord.read_records(one_record)[0]
    late = frecord.GameRecord.from_dict(json.loads(record.to_json()))
    late.outcome["illegal"] = {"seats": [0], "actions": [59]}
    with pytest.raises(frecord.ReplayMismatch, match="but it was already over"):
        frecord.replay(late)
    unfinished = frecord.GameRecord.from_dict({**record.to_dict(), "outcome": None})
    with pytest.raises(frecord.ReplayMismatch, match="says the game is not over, but the replayed game ended"):
        frecord.replay(unfinished)
    with pytest.raises(frecord.RecordError, match="players lists 3 labels for 2 seats"):
        frecord.GameRecord.from_dict({**record.to_dict(), "players": ["a", "b", "c"]})


def test_a_game_from_a_set_up_position_replays():
    env = FruitAECEnv("cherry_picking", num_players=3)
    env.reset(seed=5)
    for _ in range(7):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    records = []
    other = FruitAECEnv("cherry_picking", num_players=3, record=records)
    other.reset(seed=0)
    other.load_state(env.game_state)
    for _agent in other.agent_iter():
        obs, _, term, trunc, _ = other.last()
        other.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))
    assert records[0].key is None and records[0].start["step_count"] == 7
    replays_exactly(records[0])


@pytest.mark.parametrize("game", game_ids())
def test_arena_and_evaluation_records_replay_exactly(game, tmp_path):
    spec = get_spec(game)
    alone = spec.player_counts == (1,)  # a one-player game: each agent alone, evaluated by its mean score
    config = spec.make_config(1 if alone else 3)
    agents = [make_agent("random", spec, config), make_agent("greedy", spec, config)]
    seating = np.array([[0], [1], [1], [0]]) if alone else np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0], [0, 0, 1]])
    result = play_games(spec, config, agents, seating, seed=3, record_to=tmp_path / "arena.jsonl")
    records = frecord.read_records(tmp_path / "arena.jsonl")
    assert len(records) == 4 and records[0].players == (["random"] if alone else ["random", "greedy", "greedy"])
    for g, record in enumerate(records):
        replay = replays_exactly(record)
        assert replay.outcome["scores"] == result.scores[g].tolist()
    kept = []
    if alone:
        evaluate_alone(spec, config, agents[1], num_games=6, seed=2, record_to=kept, record_meta={"timesteps": 10})
    else:
        evaluate(spec, config, agents[1], agents[0], num_games=6, seed=2, record_to=kept, record_meta={"timesteps": 10})
    assert len(kept) == 6 and kept[0].meta["source"] == "evaluation" and kept[0].meta["timesteps"] == 10
    for record in kept:
        replays_exactly(record)


def test_tournament_records_and_replay_cli_summary(tmp_path, capsys):
    from fruit_envs.benchmarks import tournament

    path = tmp_path / "tournament.jsonl"
    code = tournament.main(
        ["--game", "cherry_picking", "--agents", "random", "greedy", "--games", "2", "--out", str(tmp_path / "t")]
        + ["--no-progress", "--record", str(path)]
    )
    assert code == 0 and "games recorded in" in capsys.readouterr().out
    assert replay_cli.main([str(path), "--summary"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 4 and all(line.endswith("reproduced") for line in lines)


# --- refusing what cannot be replayed -------------------------------------------------------------


@pytest.fixture
def one_record(tmp_path):
    env = FruitAECEnv("cherry_picking", record=tmp_path / "one.jsonl")
    random_aec_game(env, 0)
    return tmp_path / "one.jsonl"


def test_another_rules_version_is_refused(one_record, capsys):
    d = json.loads(one_record.read_text())
    d["rules_version"] = 7
    one_record.write_text(json.dumps(d) + "\n")
    record = frecord.read_records(one_record)[0]
    message = r"made with Cherry Picking rules v7 \(cherry_picking_v7\), but this fruit_envs has v0"
    with pytest.raises(frecord.RecordError, match=message):
        frecord.replay(record)
    assert replay_cli.main([str(one_record)]) == 2
    assert re.search(message, capsys.readouterr().err)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(format_version=99), "record format version 99 is newer"),
        (lambda d: d.pop("format"), "not a fruit_envs game record"),
        (lambda d: d.update(game="chess"), "unknown game 'chess'"),
        (lambda d: d.pop("actions"), "malformed record"),
    ],
)
def test_unreadable_records_are_refused(one_record, change, message):
    d = json.loads(one_record.read_text())
    change(d)
    one_record.write_text(json.dumps(d) + "\n")
    with pytest.raises(frecord.RecordError, match=message):
        frecord.check_version(frecord.read_records(one_record)[0])


def started_record(tmp_path):
    """A record of a game from a set-up position (with a `start`), as a dict."""
    env = FruitAECEnv("cherry_picking")
    env.reset(seed=5)
    records = []
    other = FruitAECEnv("cherry_picking", record=records)
    other.load_state(env.game_state)
    for _agent in other.agent_iter():
        obs, _, term, trunc, _ = other.last()
        other.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    return records[0].to_dict()


EDITS = {
    "a negative key": (lambda d: d.update(key="-5"), "key must be a decimal string"),
    "a key of 2**64": (lambda d: d.update(key=str(2**64)), "key must be a decimal string"),
    "outcome not a dict": (lambda d: d.update(outcome=[1, 2]), "outcome must be an object"),
    "outcome scores not ints": (lambda d: d["outcome"].update(scores="high"), "outcome.scores must be a list"),
    "illegal seats out of range": (
        lambda d: d["outcome"].update(illegal={"seats": [7], "actions": [0]}),
        "outcome.illegal",
    ),
    "config without num_players": (lambda d: d["config"].pop("num_players"), "config.num_players must be"),
    "config not a dict": (lambda d: d.update(config=2), "config must be an object"),
    "num_players a bool": (lambda d: d["config"].update(num_players=True), "config.num_players must be"),
    "players: 3": (lambda d: d.update(players=3), "players must be a list"),
    "players not labels": (lambda d: d.update(players=[1, 2]), "players must be a list of agent labels"),
    "an action 3.7": (lambda d: d["actions"].__setitem__(2, 3.7), r"actions\[2\]: 3.7 \(float\) is not an action"),
    "an action True": (lambda d: d["actions"].__setitem__(0, True), r"actions\[0\]: True \(bool\) is not an action"),
    "an action '5'": (lambda d: d["actions"].__setitem__(1, "5"), r"actions\[1\]: '5' \(str\) is not an action"),
    "actions not a list": (lambda d: d.update(actions="1,2"), "actions must be a list"),
    "meta not a dict": (lambda d: d.update(meta=[]), "meta must be an object"),
    "rules_version a string": (lambda d: d.update(rules_version="0"), "rules_version must be an integer"),
    "format_version 0": (lambda d: d.update(format_version=0), "format_version must be a positive integer"),
}


@pytest.mark.parametrize("edit", EDITS)
def test_edited_records_are_refused_naming_the_field(edit, one_record, capsys):
    """Issue 19: 44 of 214 edits of records gave a traceback in `python -m fruit_envs.replay`, and an action
    3.7 replayed as 3 and reported 'reproduced'."""
    change, message = EDITS[edit]
    d = json.loads(one_record.read_text())
    change(d)
    one_record.write_text(json.dumps(d) + "\n")
    with pytest.raises(frecord.RecordError, match=message):
        frecord.replay(frecord.read_records(one_record)[0])
    assert replay_cli.main([str(one_record)]) == 2
    assert re.search(message, capsys.readouterr().err)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda start: start.update(plants=5), "start: Cherry Picking description: field 'plants': must be a dict"),
        (lambda start: start.pop("plants"), "field 'plants': missing"),
        (lambda start: start["hidden"]["hands"].update(player_0=["melon 3"]), "unknown Cherry Picking card 'melon 3'"),
        (lambda start: start.update(to_move="player_5"), "field 'to_move': must be one of"),
    ],
)
def test_a_malformed_start_position_is_a_record_error(change, message, tmp_path, capsys):
    """Issue 19: from_description's own ValueError escaped replay, which caught only RecordError."""
    d = started_record(tmp_path)
    frecord.replay(frecord.GameRecord.from_dict(d))
    change(d["start"])
    path = tmp_path / "started.jsonl"
    path.write_text(json.dumps(d) + "\n")
    assert replay_cli.main([str(path)]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--every", "0"], "must be a positive integer"),
        (["--frames", "-2"], "must be a positive integer"),
        (["--fps", "0"], "must be a positive number"),
        (["--index", "-1"], "must be an integer >= 0"),
        (["--seat", "\u00b2"], "must be an integer"),
    ],
)
def test_replay_refuses_bad_numbers(argv, message, one_record, capsys):
    with pytest.raises(SystemExit) as exit_:
        replay_cli.main([str(one_record), *argv])
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_replay_checks_picture_paths_before_replaying(one_record, tmp_path, capsys):
    with pytest.raises(SystemExit):
        replay_cli.main([str(one_record), "--gif", str(tmp_path)])
    assert "is a folder; give a file name" in capsys.readouterr().err


def test_records_that_are_not_text_or_not_json_are_record_errors(tmp_path):
    path = tmp_path / "games.jsonl"
    for content in (b"\xff\xfe\x00", b"[" * 100_000, b'{"format": 1' + b"9" * 5000 + b"}"):
        path.write_bytes(content)
        with pytest.raises(frecord.RecordError):
            frecord.read_records(path)


def test_altered_records_do_not_replay(one_record, capsys):
    record = frecord.read_records(one_record)[0]
    wrong_score = frecord.GameRecord.from_dict(record.to_dict())
    wrong_score.outcome["scores"][0] += 1
    with pytest.raises(frecord.ReplayMismatch, match="differs from the record in scores"):
        frecord.replay(wrong_score)
    swapped = frecord.GameRecord.from_dict(record.to_dict())
    swapped.actions[0], swapped.actions[1] = swapped.actions[1], swapped.actions[0]
    with pytest.raises(frecord.ReplayMismatch):
        frecord.replay(swapped)
    illegal = frecord.GameRecord.from_dict(record.to_dict())
    illegal.actions[0] = 59  # wait
    with pytest.raises(frecord.ReplayMismatch, match=r"action 1 \(59\) by player_0 is not legal here"):
        frecord.replay(illegal)
    frecord.write_records(one_record, [wrong_score])
    assert replay_cli.main([str(one_record), "--summary"]) == 1
    out = capsys.readouterr().out
    assert "#0 cherry_picking" in out and "reproduced" in out and "#1 DIFFERS" in out


# --- the replay command ---------------------------------------------------------------------------


def test_replay_prints_every_move_by_name(one_record, capsys):
    record = frecord.read_records(one_record)[0]
    rules = get_spec("cherry_picking").rules
    assert replay_cli.main([str(one_record)]) == 0
    out = capsys.readouterr().out
    config = get_spec("cherry_picking").make_config()
    assert f"    1  player_0: {rules.action_to_string(config, record.actions[0])}" in out
    assert f"{len(record.actions):5d}  player_" in out and "reproduced" in out
    assert replay_cli.main([str(one_record), "--board", "--seat", "1"]) == 0
    assert "view of player_1" in capsys.readouterr().out


def test_replay_writes_gif_and_png(one_record, tmp_path, capsys):
    pytest.importorskip("PIL")
    from PIL import Image, ImageSequence

    record = frecord.read_records(one_record)[0]
    gif, png = tmp_path / "game.gif", tmp_path / "game.png"
    args = [str(one_record), "--index", "0", "--gif", str(gif), "--every", "10", "--png", str(png), "--scale", "0.4"]
    assert replay_cli.main(args + ["--seat", "0", "--frames", "6"]) == 0
    with Image.open(gif) as image:
        frames = sum(1 for _ in ImageSequence.Iterator(image))
    assert frames == len(range(0, len(record.actions) + 1, 10)) + (len(record.actions) % 10 != 0)
    with Image.open(png) as image:
        assert image.width > 400 and image.height > 100
    assert "wrote" in capsys.readouterr().out
    frecord.write_records(one_record, [record])
    assert replay_cli.main([str(one_record), "--gif", str(gif)]) == 2, "two games: --index is needed"
    assert replay_cli.main([str(tmp_path / "missing.jsonl")]) == 2


# --- narration and choosing games by agent or seating (issue 54) ------------------------------------


def test_replay_tells_what_each_decision_did_as_a_seat_saw_it(tmp_path, capsys):
    env = FruitAECEnv("cherry_picking", num_players=3, record=tmp_path / "three.jsonl")
    random_aec_game(env, 1)
    path = tmp_path / "three.jsonl"
    assert replay_cli.main([str(path)]) == 0
    referee = capsys.readouterr().out
    assert re.search(
        r"^    2  player_1: play .*\n    3  player_2: play .*\n         (player_\d harvested|next: )", referee, re.M
    )
    assert replay_cli.main([str(path), "--seat", "0"]) == 0
    seat = capsys.readouterr().out
    assert "    2  player_1 has chosen (hidden until the reveal)" in seat, "a hidden card stays hidden from seat 0"
    assert re.search(r"^    3  player_2: play ", seat, re.M), "the last card of a trick reveals the trick"


@pytest.fixture
def seated_records(one_record):
    """One game recorded four times under different seatings (labels do not change a replay)."""
    record = frecord.read_records(one_record)[0]
    path = one_record.parent / "seated.jsonl"
    for players in (
        ["greedy", "random"],
        ["random", "greedy"],
        ["greedy", "greedy"],
        ["search:rollouts=8,depth=2", "x"],
    ):
        frecord.write_records(path, [frecord.GameRecord.from_dict({**record.to_dict(), "players": players})])
    return path


@pytest.mark.parametrize(
    "argv, games",
    [
        (["--agent", "greedy"], [0, 1, 2]),
        (["--agent", "random"], [0, 1]),
        (["--agent", "greedy", "--agent-seat", "1"], [1, 2]),
        (["--seating", "greedy,*"], [0, 2]),
        (["--seating", "random,greedy"], [1]),
        (["--seating", "search:rollouts=8,depth=2,*"], [3]),
        (["--agent", "greedy", "--index", "1"], [1]),
        (["--seating", "greedy,*", "--index", "1"], [2]),
        (["--index", "3"], [3]),
    ],
)
def test_replay_picks_the_games_of_an_agent_or_a_seating(seated_records, argv, games, capsys):
    assert replay_cli.main([str(seated_records), "--summary", *argv]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [int(line.split()[0][1:]) for line in lines] == games, lines


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--agent", "ppo"], "no game matches --agent 'ppo'; the records' agents are ['greedy', 'random', "),
        (
            ["--agent", "random", "--agent-seat", "0", "--seating", "greedy,*"],
            "no game matches --agent 'random' in seat 0",
        ),
        (["--seating", "greedy"], "no game matches --seating 'greedy'; the records' agents are"),
        (["--agent-seat", "1"], "--agent-seat needs --agent"),
        (["--agent", "random", "--index", "2"], "--index 2: 2 games match (0..1)"),
    ],
)
def test_a_filter_that_matches_nothing_is_a_clear_error(seated_records, argv, message, capsys):
    assert replay_cli.main([str(seated_records), *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_picture_of_an_agents_game_draws_the_first_match_or_the_chosen_one(seated_records, tmp_path, capsys):
    pytest.importorskip("PIL")
    png = tmp_path / "game.png"
    assert replay_cli.main([str(seated_records), "--agent", "random", "--png", str(png), "--frames", "2"]) == 0
    out = capsys.readouterr().out
    assert "2 games match; drawing the first, #0" in out and out.count("#1 Cherry Picking") == 0 and png.is_file()
    assert replay_cli.main([str(seated_records), "--agent", "random", "--index", "1", "--png", str(png)]) == 0
    assert "#1 Cherry Picking" in capsys.readouterr().out


def test_decisions_are_an_optional_versioned_field_checked_on_reading(one_record):
    """Issue 58: a record may keep why each agent chose its action; an unknown version is ignored, a malformed
    item is refused naming it, and the game replays the same either way."""
    d = json.loads(one_record.read_text())
    n = len(d["actions"])
    item = {"kind": "probability", "value": 0.25, "actions": [[d["actions"][0], 0.9]]}
    d["decisions"] = {"version": 1, "items": [item] + [None] * (n - 1)}
    kept = frecord.GameRecord.from_dict(d)
    assert kept.decisions[0] == item and frecord.GameRecord.from_dict(kept.to_dict()) == kept
    assert (
        frecord.replay(kept).outcome
        == frecord.replay(frecord.GameRecord.from_dict(json.loads(one_record.read_text()))).outcome
    )
    assert frecord.GameRecord.from_dict({**d, "decisions": {"version": 2, "items": "new"}}).decisions is None
    for action in (999, -1):  # an item may speak only of the actions legal at its step
        named = {"kind": "probability", "value": None, "actions": [[action, 0.5]]}
        wrong = frecord.GameRecord.from_dict({**d, "decisions": {"version": 1, "items": [named] + [None] * (n - 1)}})
        with pytest.raises(frecord.RecordError, match=f"decisions item 0 names action {action}, not a legal action"):
            frecord.replay(wrong)
    for bad, message in [
        ({"version": 1, "items": [None]}, f"one per action, {n} in all"),
        ({"version": 1, "items": [{"kind": "vibes", "value": None, "actions": []}] + [None] * (n - 1)}, "item 0"),
        ({"version": 1, "items": [{"kind": "probability", "value": "x", "actions": []}] + [None] * (n - 1)}, "item 0"),
        (
            {"version": 1, "items": [{"kind": "probability", "value": float("nan"), "actions": []}] + [None] * (n - 1)},
            "finite number",
        ),
        (
            {
                "version": 1,
                "items": [{"kind": "probability", "value": None, "actions": [[0, float("inf")]]}] + [None] * (n - 1),
            },
            "item 0",
        ),
        ([1, 2], "decisions must be"),
    ]:
        with pytest.raises(frecord.RecordError, match=re.escape(message)):
            frecord.GameRecord.from_dict({**d, "decisions": bad})
