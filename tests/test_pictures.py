"""Pictures of every registered game in every render mode of every API; a seat's view hides what it cannot see."""

from __future__ import annotations

import re

import gymnasium
import numpy as np
import pytest
from conftest import game_ids, game_player_params, option_params

import fruit_envs  # noqa: F401  (registers the games)
from fruit_envs.core import picture as fpicture
from fruit_envs.core import rng as frng
from fruit_envs.core.aec import FruitAECEnv, FruitParallelEnv, make_aec_env
from fruit_envs.core.spec import get_spec

pytest.importorskip("PIL", reason="pictures need the render extra (Pillow)")


def random_states(game: str, players: int, seed: int = 0, games: int = 3, every: int = 9, options: dict | None = None):
    """States along random games (batches of `games`), one every `every` decisions, and the final one."""
    spec = get_spec(game)
    rules = spec.rules
    state = rules.init(spec.make_config(players, **(options or {})), frng.keys_from_seed(seed, games))
    gen = np.random.default_rng(seed)
    states = [state]
    for t in range(spec.max_game_length(state.config) + 1):
        if state.done.all():
            break
        mask = rules.legal_mask(state)
        mask[state.done, 0] = True  # finished games ignore their action
        state, _ = rules.step(state, np.argmax(np.where(mask, gen.random(mask.shape), -1), axis=1))
        if t % every == every - 1:
            states.append(state)
    states.append(state)
    return states


def check_picture(frame, height=None, width=None):
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert 200 <= frame.shape[0] <= 2400 and 400 <= frame.shape[1] <= 2400, frame.shape
    assert frame.std() > 10, "the picture is not blank"
    if height is not None:
        assert frame.shape[:2] == (height, width), "a game's pictures keep one size (videos and GIFs need it)"


# --- every game has its own picture module --------------------------------------------------------


@pytest.mark.parametrize("game", game_ids())
def test_every_game_has_a_picture_module(game):
    spec = get_spec(game)
    module = fpicture.picture_module(spec)
    assert module is not None, (
        f"{spec.name} has no picture module: add {fpicture.picture_module_name(spec).replace('.', '/')}.py with "
        f"view(state, i, seat=None) -> dict and draw(state, i, seat=None) -> (H, W, 3) uint8 (see "
        f"fruit_envs/core/picture.py and the Cherry Picking one); until then its pictures are the generic "
        f"text-on-image of describe()"
    )
    assert callable(module.view) and callable(module.draw)


# --- every render mode of every API ---------------------------------------------------------------


def play_some(env, steps: int = 12):
    """A few legal decisions in an AEC env; returns the frames rendered after each."""
    frames = []
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
        frames.append(env.render())
    return frames


@pytest.mark.parametrize("game, players", game_player_params())
@pytest.mark.parametrize("seat", [None, 1])
def test_aec_rgb_array_full_and_seat_view(game, players, seat):
    seat = None if seat is None else min(seat, players - 1)  # a one-player game's only seat
    env = FruitAECEnv(game, num_players=players, render_mode="rgb_array", render_seat=seat)
    env.reset(seed=4)
    first = env.render()
    check_picture(first)
    for frame in play_some(env):
        check_picture(frame, *first.shape[:2])


@pytest.mark.parametrize("game", game_ids())
@pytest.mark.parametrize("mode", ["ansi", "human", "rgb_array"])
def test_every_mode_of_the_aec_and_parallel_envs(game, mode, capsys, monkeypatch):
    monkeypatch.setenv("FRUIT_ENVS_NO_WINDOW", "1")  # a terminal: human mode prints the text
    spec = get_spec(game)
    env = make_aec_env(game, render_mode=mode)
    env.reset(seed=1)
    out = env.render()
    if mode == "ansi":
        assert isinstance(out, str) and spec.name in out
    elif mode == "human":
        assert out is None and spec.name in capsys.readouterr().out
    else:
        check_picture(out)
    env.close()
    par = FruitParallelEnv(game, render_mode=mode, render_seat=0)  # every game has one (issue 29)
    obs, _ = par.reset(seed=1)
    par.step({a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()})
    out = par.render()
    if mode == "ansi":
        assert isinstance(out, str) and "view of player_0" in out
    elif mode == "human":
        assert out is None and spec.name in capsys.readouterr().out
    else:
        check_picture(out)


@pytest.mark.parametrize("game", game_ids())
@pytest.mark.parametrize("mode", ["ansi", "human", "rgb_array"])
def test_every_mode_of_the_gymnasium_envs(game, mode, capsys, monkeypatch):
    monkeypatch.setenv("FRUIT_ENVS_NO_WINDOW", "1")
    spec = get_spec(game)
    env = gymnasium.make(spec.gym_id, render_mode=mode, render_seat="learner", opponent="greedy")
    obs, info = env.reset(seed=0)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    out = env.render()
    if mode == "ansi":
        assert isinstance(out, str) and f"view of player_{info['seat']}" in out
    elif mode == "human":
        assert out is None and spec.name in capsys.readouterr().out
    else:
        check_picture(out)
    env.close()
    if mode == "human":
        return  # vector envs have ansi and rgb_array
    envs = gymnasium.make_vec(spec.gym_id, num_envs=3, render_mode=mode, opponent="random")
    envs.reset(seed=0)
    out = envs.render()
    if mode == "ansi":
        assert isinstance(out, str) and spec.name in out
    else:
        assert isinstance(out, tuple) and len(out) == 3
        for frame in out:
            check_picture(frame, *out[0].shape[:2])


def test_render_arguments_are_checked():
    with pytest.raises(ValueError, match=r"render_seat must be None \(full view\) or an int in 0..1"):
        FruitAECEnv("cherry_picking", render_seat=2)
    with pytest.raises(ValueError, match="render_seat must be None"):
        gymnasium.make("fruit_envs/CherryPicking-v0", render_seat="everyone")
    with pytest.raises(ValueError, match="seat must be None"):
        fpicture.picture(get_spec("cherry_picking").rules.init(get_spec("cherry_picking").make_config(), [1]), 0, 5)


def test_human_mode_opens_a_window_when_there_is_a_display(monkeypatch, capsys):
    pytest.importorskip("pygame")
    monkeypatch.delenv("FRUIT_ENVS_NO_WINDOW", raising=False)
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # an off-screen display
    monkeypatch.setattr(fpicture, "display_available", lambda: True)
    env = FruitAECEnv("cherry_picking", render_mode="human")
    env.reset(seed=0)
    env.render()
    assert env._window._backend == "pygame" and capsys.readouterr().out == "", "the picture went to the window"
    env.close()


def test_missing_pillow_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    env = FruitAECEnv("cherry_picking", render_mode="rgb_array")
    env.reset(seed=0)
    with pytest.raises(ImportError, match=r"pip install 'fruit_envs\[render\]'"):
        env.render()


# --- hidden information ---------------------------------------------------------------------------


def assert_views_hide(
    game: str, players: int, seat_view=fpicture.view, seed: int = 0, options: dict | None = None, every: int = 9
) -> int:
    """A seat's view and picture are unchanged when what it cannot see is re-dealt; returns how many
    positions looked different in the full view (the re-deal changed something hidden there)."""
    spec = get_spec(game)
    rules = spec.rules
    changed = 0
    for n, state in enumerate(random_states(game, players, seed, every=every, options=options)):
        for seat in range(players):
            other = rules.redeal_hidden(state, seat, frng.keys_from_seed(1000 * n + seat, state.batch_size))
            for g in range(state.batch_size):
                mine, theirs = seat_view(state, g, seat), seat_view(other, g, seat)
                assert fpicture.dumps(mine) == fpicture.dumps(theirs), (
                    f"seat {seat}'s view of game {g} changed when hidden information was re-dealt:\n"
                    f"{fpicture.dumps(mine)}\n{fpicture.dumps(theirs)}"
                )
                if g == 0 and n % 2 == 0:
                    picture, after = fpicture.picture(state, g, seat), fpicture.picture(other, g, seat)
                    assert np.array_equal(picture, after), f"seat {seat}'s picture shows something it cannot see"
                    changed += fpicture.dumps(fpicture.view(state, g)) != fpicture.dumps(fpicture.view(other, g))
    return changed


@pytest.mark.parametrize("game, players", game_player_params())
def test_seat_view_and_picture_hide_what_the_seat_cannot_see(game, players):
    changed = assert_views_hide(game, players)
    if get_spec(game).hidden_information:
        assert changed > 0, "the re-deals never changed the full view: the test would not notice a leak"


@pytest.mark.parametrize("game, option, value", option_params())
def test_seat_views_hide_in_every_variant(game, option, value):
    assert_views_hide(game, get_spec(game).default_num_players, options={option: value}, every=5)


def test_a_leaky_view_is_caught():
    """The check above has teeth: a seat 'view' that is the full view fails it."""
    with pytest.raises(AssertionError, match="view of game"):
        assert_views_hide("cherry_picking", 2, seat_view=lambda state, g, seat: fpicture.view(state, g))


@pytest.mark.parametrize("game", game_ids())
def test_generic_picture_of_a_game_without_a_picture_module(game, monkeypatch):
    """A new game gets a text-on-image picture of its describe(); a seat sees only the public part."""
    monkeypatch.setattr(fpicture, "picture_module", lambda game: None)
    spec = get_spec(game)
    players = 2 if 2 in spec.player_counts else spec.default_num_players
    seat = players - 1
    state = random_states(game, players, every=30)[1]
    check_picture(fpicture.picture(state, 0))
    check_picture(fpicture.picture(state, 0, seat=seat))
    assert "hidden" not in fpicture.view(state, 0, seat=seat) and "rng_key" not in fpicture.view(state, 0, seat=seat)
    assert_views_hide(game, players, seat_view=fpicture.view)


# --- files ----------------------------------------------------------------------------------------


def test_gif_and_strip(tmp_path):
    from PIL import Image, ImageSequence

    states = random_states("cherry_picking", 2, games=1, every=20)
    frames = [fpicture.picture(s, 0, 0) for s in states]
    gif = fpicture.save_gif(frames, tmp_path / "game.gif", fps=4)
    with Image.open(gif) as image:
        assert sum(1 for _ in ImageSequence.Iterator(image)) == len(frames)
    tiled = fpicture.strip(frames[:5], columns=2, captions=[str(k) for k in range(5)])
    check_picture(tiled)
    assert tiled.shape[1] > frames[0].shape[1] * 0.5 * 2


def test_pictures_command_refuses_a_file_as_its_folder(tmp_path, capsys):
    from fruit_envs import pictures

    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit):
        pictures.main([str(tmp_path / "file")])
    assert "is a file, not a folder" in capsys.readouterr().err


# --- replay frames: the agents on their seats, the last decision below (issue 54) -------------------

LABELS = ["greedy", "random", "ppo:runs/x/model.zip", "search"]


def labelled_replay(game: str = "cherry_picking", players: int = 3, seed: int = 4):
    """A random game recorded with agent labels on its seats, replayed."""
    from fruit_envs.core import record as frecord

    spec = get_spec(game)
    rules = spec.rules
    config = spec.make_config(players)
    keys = frng.keys_from_seed(seed, 1)
    state = rules.init(config, keys)
    gen = np.random.default_rng(seed)
    actions = []
    while not state.done[0]:
        actions.append(int(gen.choice(np.flatnonzero(rules.legal_mask(state)[0]))))
        state, _ = rules.step(state, np.array([actions[-1]]))
    record = frecord.record_from_states(spec, config, actions, state, key=int(keys[0]), players=LABELS[:players])
    return frecord.replay(record)


@pytest.mark.parametrize("game", game_ids())
def test_pictures_and_text_carry_the_agents_labels(game):
    spec = get_spec(game)
    players = spec.default_num_players
    state = random_states(game, players, games=1, every=30)[1]
    labels = LABELS[:players]
    for seat in (None, players - 1):
        labelled, plain = fpicture.picture(state, 0, seat, labels=labels), fpicture.picture(state, 0, seat)
        assert labelled.shape == plain.shape and not np.array_equal(labelled, plain), "the labels are drawn"
    text = fpicture.text(state, 0, players - 1, labels=labels)
    assert all(f"player_{k} ({label})" in text for k, label in enumerate(labels)), text
    assert "(greedy)" not in fpicture.text(state, 0, players - 1), "no labels unless given"


def test_replay_frames_carry_labels_and_a_caption_of_the_last_decision():
    from fruit_envs import replay as replay_cli

    replay = labelled_replay()  # cherry picking, 3 players: seats commit 0, 1, 2, then the reveal
    rules = get_spec("cherry_picking").rules
    played = rules.action_to_string(replay.final.config, replay.record.actions[1])
    assert replay_cli.caption(replay, 0) == [
        "start: player_0 (greedy), player_1 (random), player_2 (ppo:runs/x/model.zip)"
    ]
    assert replay_cli.caption(replay, 2)[0] == f"2. player_1 (random): {played}  (commit)", "the referee sees all"
    assert replay_cli.caption(replay, 2, seat=0) == ["2. player_1 (random) has chosen (hidden until the reveal)"]
    reveal = replay_cli.caption(replay, 3, seat=0)
    assert reveal[0].startswith("3. player_2 (ppo:runs/x/model.zip): play ") and len(reveal) > 1
    assert re.search(r"harvested|to choose a plant|each played", " ".join(reveal[1:])), reveal
    shots = replay_cli.frames(replay, 0, every=3, limit=4)
    plain = fpicture.picture(replay.states[0], 0, 0)
    assert len({frame.shape for _, frame in shots}) == 1, "one size for every frame (GIFs need it)"
    for t, frame in shots:
        height = plain.shape[0]
        assert frame.shape[0] > height and frame.shape[1] == plain.shape[1], "a caption band below the picture"
        assert not np.array_equal(frame[:height], fpicture.picture(replay.states[t], 0, 0)), "the labels are drawn"
        assert frame[height:].std() > 5, "the caption is written"
    bands = [frame[plain.shape[0] :] for _, frame in shots]
    assert not np.array_equal(bands[1], bands[2]), "each frame tells its own last decision"
