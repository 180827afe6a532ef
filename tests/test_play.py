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
    assert code == 1 and "game stopped before the end" in out and "(unfinished)" in out
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
    assert code == 1 and "'\u00b2' is not a seat" in out and "'\u00b2' is not one of the actions listed" in out
    assert len(frecord.read_records(tmp_path / "new" / "games.jsonl")) == 1, "the unfinished game is saved"


def test_picture_of_the_persons_view(tmp_path):
    pytest.importorskip("PIL")
    picture = tmp_path / "missing" / "folder" / "view"  # issue 19: a missing folder crashed after the game
    argv = ["--game", "fruit_picking", "--seed", "1", "--seat", "0", "--no-record", "--picture", str(picture)]
    code, _ = run_play(argv, "q\n")
    assert code == 1 and picture.is_file() and picture.stat().st_size > 10_000


def test_text_play_needs_no_pillow(monkeypatch):
    """Views are plain data: the terminal game runs where Pillow is not installed."""
    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    code, out = run_play(["--game", "cherry_picking", "--seed", "3", "--seat", "0", "--no-record"], "1\nq\n")
    assert code == 1 and "view of player_0" in out and "you: play " in out


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
