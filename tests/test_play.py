"""The terminal game against agents, driven end to end through its standard input."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import game_ids

import fruit_envs  # noqa: F401  (registers the games)
from fruit_envs import play
from fruit_envs.core import narration
from fruit_envs.core import record as frecord
from fruit_envs.core import rng as frng
from fruit_envs.core.spec import get_spec

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("game", game_ids())
def test_a_whole_game_through_standard_input(game, tmp_path):
    """Bad seat, bad inputs, undo with nothing to undo, a decision, its undo, then play to the end.

    A one-player game asks no seat (there is one) and has no opponents: --opponents is ignored."""
    alone = get_spec(game).player_counts == (1,)
    seat = 0 if alone else 1
    record = tmp_path / "plays.jsonl"
    typed = ("" if alone else "x\n1\n") + "foo\n999\nu\n1\nu\n" + "1\n" * 4000
    proc = subprocess.run(
        [sys.executable, "-m", "fruit_envs.play", "--game", game, "--opponents", "greedy", "--seed", "7"]
        + ["--record", str(record)],
        input=typed,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr + out[-2000:]
    for expected in (
        "you play alone (--opponents ignored)" if alone else "'x' is not a seat",
        f"you are player_{seat}",
        "'foo' is not one of the actions listed",
        "there is no choice 999",
        "nothing to undo: you have not decided anything yet",
        "undone: your '",
        "game over",
        "game saved to",
    ):
        assert expected in out, expected
    before_end = out.split("game over")[0]
    headers = [line for line in before_end.splitlines()[1:] if line.startswith(get_spec(game).name + " - ")]
    assert headers and all(line.endswith(f"view of player_{seat}") for line in headers), "only the person's view"
    (saved,) = frecord.read_records(record)
    assert saved.players[seat] == "human" and all(p == "greedy" for k, p in enumerate(saved.players) if k != seat)
    assert saved.meta["human_seat"] == seat and saved.meta["undos"] == 1 and saved.meta["source"] == "play"
    replay = frecord.replay(saved)
    assert replay.outcome == saved.outcome and saved.outcome is not None
    scores = ", ".join(
        f"{'you' if k == seat else f'player_{k} (greedy)'} {s}" for k, s in enumerate(saved.outcome["scores"])
    )
    assert f"scores: {scores}" in out
    if alone:
        assert f"final score {saved.outcome['scores'][0]}" in out


def run_play(argv: list[str], typed: str) -> tuple[int, str]:
    out = io.StringIO()
    code = play.main(argv, stdin=io.StringIO(typed), out=out)
    return code, out.getvalue()


def test_actions_by_name_and_quitting_saves_an_unfinished_game(tmp_path, capsys):
    spec = get_spec("cherry_picking")
    rules, config = spec.rules, spec.make_config(2)
    state = rules.init(config, frng.keys_from_seed(11, 1))
    hand = [rules.action_to_string(config, a) for a in np.flatnonzero(rules.legal_mask(state, 0)[0])]
    first, second = hand[0], hand[-1]
    record = tmp_path / "plays.jsonl"
    argv = ["--game", "cherry_picking", "--opponents", "random", "--seed", "11", "--seat", "0", "--record", str(record)]
    typed = f"{first.upper()}\n" + "h\nb\n" + f"{second.removeprefix('play ')}\n" + "q\n"
    code, out = run_play(argv, typed)
    assert code == 0 and "game stopped before the end" in out and "(unfinished)" in out  # q: a chosen stop
    assert f"you: {first}" in out and "u, undo" in out
    (saved,) = frecord.read_records(record)
    assert saved.outcome is None and saved.actions[0] == rules.string_to_action(config, first)
    from fruit_envs import replay as replay_cli

    assert replay_cli.main([str(record)]) == 0
    assert "the record has no outcome to check" in capsys.readouterr().out


def test_end_of_input_mid_game_is_a_quit(tmp_path):
    argv = ["--game", "fruit_picking", "--opponents", "greedy,random", "--seed", "2", "--record", str(tmp_path / "r")]
    code, out = run_play(argv, "\n1\n")
    assert code == 1 and "you are player_0" in out and "game stopped before the end" in out
    assert "player_1 (greedy)" in out and "player_2 (random)" in out


def test_simultaneous_choices_stay_hidden_until_the_reveal():
    argv = ["--game", "cherry_picking", "--opponents", "greedy,greedy", "--seed", "5", "--seat", "2", "--no-record"]
    code, out = run_play(argv, "1\n1\n")
    assert code == 1
    first_view = out.split("your move:")[0]
    assert "player_0 (greedy) has chosen (hidden until the reveal)" in first_view
    assert "player_1 (greedy) has chosen (hidden until the reveal)" in first_view
    assert "this trick: player_0: face down | player_1: face down | player_2: -" in first_view
    assert re.search(r"revealed - player_0 \(greedy\): play .*; player_1 \(greedy\): play .*; you: play ", out)


def test_choosing_an_action():
    rules = get_spec("cherry_picking").rules
    config = get_spec("cherry_picking").make_config()
    legal = [1, 17, 18, 53 + 3]
    names = [rules.action_to_string(config, a) for a in legal]  # wildcard, cherry 1 (17), cherry 2 (18), ...
    choose = lambda text: play.choose_action(text, legal, names, rules, config)  # noqa: E731
    assert choose("2") == (17, "")
    assert choose(" Play  Wildcard ") == (1, "")
    assert choose(names[1].removeprefix("play ")) == (17, "")
    assert choose("wild") == (1, "")
    assert choose("5")[0] is None and "choose 1..4" in choose("5")[1]
    assert choose("0")[0] is None
    assert choose("ladder") == (None, "'play ladder' is not legal now")
    assert choose("cherry")[0] in (None, 56)
    assert choose("zzz")[0] is None and "not one of the actions listed" in choose("zzz")[1]
    assert choose("")[0] is None


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--game", "chess"], "unknown game 'chess'"),
        (["--game", "cherry_picking", "--opponents", "alphazero"], "unknown agent 'alphazero'"),
        (["--game", "cherry_picking", "--opponents", "greedy,random", "--num-players", "4"], "4 players need 3"),
        (["--game", "cherry_picking", "--seat", "7"], "--seat must be 0..1"),
        (["--game", "cherry_picking", "--option", "colour=red"], "unknown option"),
        (["--game", "cherry_picking", "--seat", "\u00b2"], "--seat must be 0..1"),  # issue 19: '²'.isdigit() crashed
        (["--game", "fruit_picking", "--option", "max_rounds=True"], "option max_rounds must be an int"),
        (["--game", "juicy_fruits_solo", "--option", "rounds=15.0"], "option rounds must be an int"),
    ],
)
def test_bad_arguments_say_what_is_wrong(argv, message, capsys):
    code, _ = run_play(argv, "")
    assert code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--num-players", "0"], "must be a positive integer, got '0'"),  # issue 19: taken as the default
        (["--seed", "-1"], "must be an integer >= 0"),
        (["--seed", "\u00b2"], "must be an integer, got"),
    ],
)
def test_bad_argument_values_stop_before_the_game(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        run_play(["--game", "cherry_picking", *argv], "")
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_paths_are_checked_before_the_game(tmp_path, capsys):
    """Issue 19: `--record FOLDER` or an unusable `--picture` path crashed after the whole game, losing it."""
    (tmp_path / "file").write_text("")
    for argv, message in (
        (["--record", str(tmp_path)], "is a folder; give a file name"),
        (["--picture", str(tmp_path / "file" / "view.png"), "--no-record"], "is a file, so no folder"),
    ):
        code, out = run_play(["--game", "cherry_picking", "--seat", "0", *argv], "1\n")
        assert code == 2 and message in capsys.readouterr().err and "your move" not in out


def test_a_non_ascii_digit_at_a_prompt_asks_again(tmp_path):
    """Issue 19: '²' at any prompt crashed (`isdigit()` then `int()`), and the game was lost."""
    argv = ["--game", "cherry_picking", "--seed", "3", "--record", str(tmp_path / "new" / "games.jsonl")]
    code, out = run_play(argv, "\u00b2\n0\n\u00b2\nq\n")
    assert code == 0 and "'\u00b2' is not a seat" in out and "'\u00b2' is not one of the actions listed" in out
    assert len(frecord.read_records(tmp_path / "new" / "games.jsonl")) == 1, "the unfinished game is saved"


def test_picture_of_the_persons_view(tmp_path):
    pytest.importorskip("PIL")
    picture = tmp_path / "missing" / "folder" / "view"  # issue 19: a missing folder crashed after the game
    argv = ["--game", "fruit_picking", "--seed", "1", "--seat", "0", "--no-record", "--picture", str(picture)]
    code, _ = run_play(argv, "q\n")
    assert code == 0 and picture.is_file() and picture.stat().st_size > 10_000


def test_text_play_needs_no_pillow(monkeypatch):
    """Views are plain data: the terminal game runs where Pillow is not installed."""
    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    code, out = run_play(["--game", "cherry_picking", "--seed", "3", "--seat", "0", "--no-record"], "1\nq\n")
    assert code == 0 and "view of player_0" in out and "you: play " in out


def test_an_unwritable_record_or_picture_path_stops_before_the_game(capsys):
    """Issue 29: as root, `--record /proc/nope/x.jsonl` passed the `os.access` check, the game was played,
    then lost to a FileNotFoundError; `--picture` there failed with a traceback at the first render."""
    for option in ("--record", "--picture"):
        argv = ["--game", "cherry_picking", "--seed", "1", "--seat", "0", option, "/proc/fruit_envs_nope/x.png"]
        code, out = run_play(argv, "q\n")
        err = capsys.readouterr().err
        assert code == 2 and f"error: {option} '/proc/fruit_envs_nope/x.png'" in err, err
        assert "you are player_0" not in out, "refused before the first move"


def test_a_record_path_that_breaks_during_the_game_loses_nothing(tmp_path, monkeypatch, capsys):
    """The record file was writable when the game began but is not at its end: the game goes elsewhere."""
    write = frecord.write_records
    target = tmp_path / "plays.jsonl"

    def refuse_the_chosen_path(path, records):
        if Path(path) == target:
            raise PermissionError(13, "Permission denied")
        return write(path, records)

    monkeypatch.setattr(frecord, "write_records", refuse_the_chosen_path)
    code, out = run_play(["--game", "cherry_picking", "--seed", "4", "--seat", "0", "--record", str(target)], "1\nq\n")
    err = capsys.readouterr().err
    assert code == 1 and "cannot be written now" in err
    saved = Path(re.search(r"game saved to (\S+)", out).group(1))
    (record,) = frecord.read_records(saved)
    assert len(record.actions) >= 1 and record.meta["source"] == "play"
    saved.unlink()


# --- narration: what each decision did, as the person's seat may know it (issue 54) ------------------

# For each game, a line the scripted session below must show: an automatic consequence (a reveal
# resolved, a card coming up, a tile turned, fruit collected, the rival's turn) naming who and what.
NARRATED = {
    "cherry_picking": r"^  (you|player_1 \(greedy\)) harvested (a ladder|a wildcard|\w+ \d) at the \w+ plant and left "
    r"(a ladder|a wildcard|\w+ \d) there$",
    "fruit_picking": r"^  player_1 \(greedy\) bought [\w ()]+ for \d+ seeds? from the House; .*\n  [\w ()]+ came up from "
    r"the stack into the market$",
    "quickity_pickity": r"^  player_1 \(greedy\) took (sweet|sour) \w+ \w+$",
    "juicy_fruits": r"^  player_1 \(greedy\) collected \d+ (banana|lime|pomegranate|orange|mangosteen)$",
    "juicy_fruits_solo": r"^  the rival returned [\w /+()-]+ from row \d to the box\n  the display refilled row \d with ",
}


def test_every_game_is_narrated():
    assert sorted(NARRATED) == sorted(game_ids()), "add the new game's narration line to NARRATED"


@pytest.mark.parametrize("game", game_ids())
def test_play_tells_what_a_reveal_or_an_automatic_step_did(game):
    """Issue 54: after a reveal or any automatic resolution play says which card went where and who
    harvested or took what (before, only the decisions themselves were announced)."""
    alone = get_spec(game).player_counts == (1,)
    argv = ["--game", game, "--seed", "3", "--seat", "0", "--no-record"] + ([] if alone else ["--opponents", "greedy"])
    _, out = run_play(argv, "1\n" * 120)
    assert re.search(NARRATED[game], out, re.MULTILINE), out[-3000:]
    if game == "cherry_picking":  # the harvests follow the reveal that set them off
        assert re.search(r"^revealed - .*\n  (you|player_1 \(greedy\)) harvested ", out, re.MULTILINE)


LEAKY_OPTIONS = {"market_operation": True, "umbrella": True}  # cards drawn two at a time, one put back unseen


def narrations_hide(
    game: str, players: int, narrate=narration.narrate, seed: int = 0, every: int = 3, options: dict | None = None
) -> int:
    """A seat's narration of a decision is the same whatever it cannot see, whenever its views before and
    after are the same: what it cannot see is re-dealt (`redeal_hidden`) and the seat to move, if another,
    takes any legal decision there (a hidden choice must not be told); returns how many were compared."""
    from fruit_envs.core import picture as fpicture

    spec = get_spec(game)
    rules = spec.rules
    state = rules.init(spec.make_config(players, **(options or {})), frng.keys_from_seed(seed, 1))
    gen, anyone = np.random.default_rng(seed), np.random.default_rng(seed + 1)
    compared = 0
    for t in range(spec.max_game_length(state.config)):
        if state.done[0]:
            break
        action = int(gen.choice(np.flatnonzero(rules.legal_mask(state)[0])))
        after, _ = rules.step(state, np.array([action]))
        if t % every == 0:
            for seat in range(players):
                other = rules.redeal_hidden(state, seat, frng.keys_from_seed(1000 * t + seat, 1))
                other_action = action
                if int(state.to_move[0]) != seat:
                    other_action = int(anyone.choice(np.flatnonzero(rules.legal_mask(other)[0])))
                other_after, _ = rules.step(other, np.array([other_action]))
                if fpicture.dumps(fpicture.view(after, 0, seat)) != fpicture.dumps(fpicture.view(other_after, 0, seat)):
                    continue  # the decision showed the seat something that differs: it may be told so
                mine = narrate(state, after, action, 0, seat)
                theirs = narrate(other, other_after, other_action, 0, seat)
                assert mine == theirs, f"seat {seat} is told what it cannot see at decision {t}:\n{mine}\n{theirs}"
                compared += 1
        state = after
    return compared


@pytest.mark.parametrize(
    "game, options",
    [pytest.param(game, {}, id=game) for game in game_ids()]
    + [pytest.param("fruit_picking", LEAKY_OPTIONS, id="fruit_picking-market_operation")],
)
def test_a_seats_narration_does_not_leak_what_it_cannot_see(game, options):
    players = get_spec(game).default_num_players if game != "cherry_picking" else 3
    every = 1 if options else 3  # every decision: a card put back under the stack unseen is rare
    assert narrations_hide(game, players, seed=2 if options else 0, every=every, options=options) > 10


def test_a_leaky_narration_is_caught():
    """The check above has teeth: a narration that names another seat's card before the reveal fails it."""
    rules = get_spec("cherry_picking").rules

    def leaky(before, after, action, i, seat):
        return [rules.action_to_string(before.config, action)] if int(before.to_move[i]) != seat else []

    with pytest.raises(AssertionError, match="is told what it cannot see"):
        narrations_hide("cherry_picking", 3, narrate=leaky)


def test_an_opponents_hidden_choice_is_not_narrated():
    """Before the reveal, the person hears only that the others have chosen, never what."""
    argv = ["--game", "cherry_picking", "--opponents", "greedy,greedy", "--seed", "5", "--seat", "2", "--no-record"]
    _, out = run_play(argv, "1\n")
    before_my_move = out.split("your move:")[0]
    assert "has chosen (hidden until the reveal)\nplayer_1 (greedy) has chosen" in before_my_move
    assert "harvested" not in before_my_move


def test_cherry_picking_narration_agrees_with_the_rules():
    """The harvests narrated after a reveal or a plant choice are the rules' own: every seat's pile gains
    what it is said to harvest and the plants end as told (checked wherever the set goes on)."""
    from fruit_envs.games.cherry_picking import text

    spec = get_spec("cherry_picking")
    rules = spec.rules
    checked = 0
    for seed in range(3):
        state = rules.init(spec.make_config(4), frng.keys_from_seed(seed, 1))
        gen = np.random.default_rng(seed)
        while not state.done[0]:
            action = int(gen.choice(np.flatnonzero(rules.legal_mask(state)[0])))
            after, _ = rules.step(state, np.array([action]))
            mover, played = int(state.to_move[0]), state.played[0].astype(np.int64).copy()
            if after.set_index[0] == state.set_index[0] and (state.phase[0] == 1 or mover == 3):
                if state.phase[0] == 0:
                    played[mover] = action
                    events, plants = text.resolution(state.plants[0], played)
                else:
                    events, plants = text.resolution(state.plants[0], played, mover, action - rules.CHOOSE_BASE)
                gained = after.piles[0].astype(int) - state.piles[0]
                told = np.zeros_like(gained)
                for event in events:
                    if event[0] == "harvest":
                        told[event[1], event[2]] += 1
                    elif event[0] == "pile":
                        told[event[1], event[2]] += 1
                assert np.array_equal(plants, after.plants[0]) and np.array_equal(told, gained)
                checked += 1
            state = after
    assert checked > 50


@pytest.mark.parametrize("game", game_ids())
def test_rules_help_inside_play(game):
    """Issue 54: `rules` (or `?`) at the prompt prints the game's rules in brief and how it is scored,
    taken from the game's documentation page; the game goes on."""
    alone = get_spec(game).player_counts == (1,)
    argv = ["--game", game, "--seed", "1", "--seat", "0", "--no-record"] + ([] if alone else ["--opponents", "random"])
    code, out = run_play(argv, "rules\n?\nq\n")
    text = narration.rules_help(game)
    assert code == 0 and out.count("the rules in brief:") == 2 and narration.wrap(text) in out
    assert text.startswith("Play: ") and re.search(r"scor|win", text, re.IGNORECASE), text
    assert "not one of the actions listed" not in out and "rules, ?" in play.HELP


def test_the_record_keeps_why_each_agent_moved(tmp_path):
    """Issue 58: `play --record` keeps the agents' reasons (greedy's scores), None for the person's moves."""
    record = tmp_path / "plays.jsonl"
    argv = ["--game", "cherry_picking", "--opponents", "greedy", "--seed", "3", "--seat", "1", "--record", str(record)]
    code, _ = run_play(argv, "1\n1\n1\nq\n")
    (saved,) = frecord.read_records(record)
    assert saved.decisions is not None and len(saved.decisions) == len(saved.actions)
    kinds = [None if d is None else d["kind"] for d in saved.decisions]
    assert "heuristic score" in kinds and None in kinds


FAULTY = """
import numpy as np


class Illegal:
    def act(self, obs, mask, rng):
        return np.array([int(np.flatnonzero(~mask[0])[0])])


class Flaky:
    calls = 0

    def act(self, obs, mask, rng):
        Flaky.calls += 1
        if Flaky.calls == 3:
            raise KeyError("lost its table")
        return np.array([int(np.flatnonzero(mask[0])[0])])


def illegal(spec, config):
    return Illegal()


def flaky(spec, config):
    return Flaky()
"""


@pytest.mark.parametrize(
    "factory, message",
    [
        ("illegal", r"agent '.*faulty_play_illegal\.py:illegal' in seat 1 of this Fruit Picking game at step \d+ chose action "
         r"\d+, which is not legal there \(legal actions: \["),
        ("flaky", r"agent '.*faulty_play_flaky\.py:flaky' in seat 1 of this Fruit Picking game at step \d+ raised KeyError: "
         r"'lost its table' \(legal actions: \["),
    ],
)  # fmt: skip
def test_a_faulty_agent_is_reported_by_name_and_the_game_is_saved(tmp_path, capsys, factory, message):
    """A user's agent that chooses an illegal action or raises stops the game with one line naming it, its seat,
    the step and the legal actions (no traceback), and the game so far is saved as a record that replays."""
    module = tmp_path / f"faulty_play_{factory}.py"  # one module name per test: a name is imported once
    module.write_text(FAULTY)
    record = tmp_path / "games.jsonl"
    argv = ["--game", "fruit_picking", "--opponents", f"{module}:{factory}", "--seed", "1", "--seat", "0",
            "--record", str(record)]  # fmt: skip
    typed = "".join(f"{k}\n" for k in [1] * 40)
    code, out = run_play(argv, typed)
    err = capsys.readouterr().err
    assert code == 1 and re.search(message, err) and "Traceback" not in err
    assert "game stopped before the end: an agent failed" in out
    (saved,) = frecord.read_records(record)
    assert saved.outcome is None and frecord.replay(saved).outcome is None
