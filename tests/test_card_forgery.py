"""Forged outcomes: a forger who changes games' outcomes and recomputes every digest, Merkle root, number, rating
and aggregate with the project's own functions is caught by `verify` without `--sample` (every game replayed
through the rules from the card's games file, the references' moves checked where their agent draws nothing
but ties); what only a replay with the policy can catch is caught by `--sample`, which compares every game of
each cell it plays again and prints the seed it drew from."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from fruit_envs.agents import make_agent
from fruit_envs.agents.arena import play_games
from fruit_envs.benchmark import evaluate
from fruit_envs.benchmarks import benchmark as bm
from fruit_envs.benchmarks.benchmark import result_card as rc
from fruit_envs.benchmarks.benchmark.games_file import read_games, write_games
from fruit_envs.benchmarks.benchmark.play import cell_numbers
from fruit_envs.benchmarks.benchmark.protocol import cell_keys, load_protocol
from fruit_envs.benchmarks.benchmark.ratings import aggregate, rate_groups
from fruit_envs.benchmarks.benchmark.verify import verify_card
from fruit_envs.core.spec import get_spec

GAMES = 32


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two small runs at Cherry Picking with two players: random against greedy (it loses nearly every game),
    and random against random (no seat's moves can be checked without the policy's draws)."""
    root = tmp_path_factory.mktemp("forgery")
    out = {}
    for name, reference in (("weak", "greedy"), ("coin", "random")):
        out[name] = root / name
        evaluate(
            "random", suite="quick", games=GAMES, only=["cherry_picking:2"], references=[reference], out=out[name],
            progress=False,
        )  # fmt: skip
    return out


def reforge(card: dict) -> dict:
    """Every digest, root, number, rating and aggregate of `card` recomputed from its outcomes and actions
    digests with the project's own functions, as a forger would."""
    proto = load_protocol(card["protocol"]["version"])
    raws: dict = {}
    for cell in card["cells"]:
        scores, winners, truncated, seats = rc.cell_outcomes(cell)
        keys = cell_keys(card["seed"], cell["game"], cell["players"], len(scores) // cell["players"])
        cell["digests"] = [
            rc.game_digest(
                cell["id"], g, keys[g], seats[g], cell["actions_sha256"][g], scores[g], winners[g], truncated[g]
            )
            for g in range(len(scores))
        ]
        cell["merkle_root"] = rc.merkle_root(cell["digests"])
        numbers = cell_numbers(scores, winners, truncated, seats, 0.0)
        cell["numbers"] = {key: numbers[key] for key in rc.NUMBER_FIELDS if key in numbers}
        raw = {"scores": scores, "winners": winners, "truncated": truncated, "policy_seat": seats}
        raws.setdefault((cell["game"], cell["players"]), []).append((cell["reference"], raw))
    groups = rate_groups(raws, proto)
    card["groups"] = [
        {"game": g["game"], "players": g["players"], **{k: g.get(k) for k in rc.GROUP_FIELDS}} for g in groups
    ]
    whole = aggregate(groups)
    card["aggregate"] = {key: whole.get(key) for key in rc.AGGREGATE_FIELDS}
    card["merkle_root"] = rc.merkle_root([c["merkle_root"] for c in card["cells"]])
    return json.loads(rc.card_text(card))


def losses(cell: dict) -> list[int]:
    """The games of a two-player cell the policy lost."""
    _, winners, truncated, seats = rc.cell_outcomes(cell)
    return [g for g in range(len(seats)) if not truncated[g] and not winners[g, seats[g]] and winners[g].any()]


def write(card: dict, folder: Path, games_from: Path | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / rc.CARD_FILE).write_text(rc.card_text(card))
    if games_from is not None:
        shutil.copy(games_from / "games.npz", folder / "games.npz")
    return folder


def test_flipping_losses_into_wins_with_everything_recomputed_is_caught_without_a_sample(runs, tmp_path):
    """31 of 32 losses turned into wins (scores and winners swapped), every digest and number recomputed: the
    card is consistent, and its games' actions give the true outcomes."""
    card = json.loads((runs["weak"] / "card.json").read_text())
    cell = card["cells"][0]
    lost = losses(cell)
    assert len(lost) >= GAMES // 2
    flipped = lost[1:]
    for g in flipped:
        cell["scores"][g] = cell["scores"][g][::-1]
        cell["winners"][g] = cell["winners"][g][::-1]
    forged = reforge(card)
    assert forged["cells"][0]["numbers"]["wins"] >= len(flipped)
    folder = write(forged, tmp_path / "flipped", runs["weak"])
    result = verify_card(folder)
    named = [p for p in result["problems"] if "not the card's outcome" in p]
    assert named and named[0].startswith(f"cell cherry_picking-2p-greedy, game {flipped[0]}: its actions give scores")
    assert any(p.endswith(f"and {len(flipped) - 3} more games like these") for p in result["problems"])
    assert bm.main(["verify", str(folder)]) == 1


def test_invented_games_against_a_weaker_reference_are_caught_by_the_references_moves(runs, tmp_path):
    """The forger also writes the games file: legal games on the card's deals, won by playing greedy against a
    random reference. Their actions, outcomes and digests all agree; greedy's seat did not play as greedy does."""
    card = json.loads((runs["weak"] / "card.json").read_text())
    cell = card["cells"][0]
    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    [games] = read_games(runs["weak"], [len(cell["digests"])], [spec.max_game_length(config) + 1])
    keys = cell_keys(card["seed"], "cherry_picking", 2, GAMES // 2)
    _, _, _, seats = rc.cell_outcomes(cell)
    strong, weak = make_agent("greedy", spec, config), make_agent("random", spec, config)
    for g in losses(cell)[:3]:
        seating = np.array([[0, 1]]) if seats[g] == 0 else np.array([[1, 0]])
        result = play_games(spec, config, [strong, weak], seating, seed=g, keys=keys[g : g + 1], record=True)
        games[g] = np.array([int(step[0]) for step in result.actions if step[0] >= 0])
        cell["actions_sha256"][g] = rc.actions_digest(games[g])
        cell["scores"][g] = result.scores[0].tolist()
        cell["winners"][g] = "".join("1" if w else "0" for w in result.winners[0])
    folder = write(reforge(card), tmp_path / "invented")
    write_games(folder, [games])
    problems = verify_card(folder)["problems"]
    assert problems and all("greedy would not play" in p for p in problems), problems


def test_what_only_the_policy_shows_is_caught_by_a_sample_that_compares_every_game_of_its_cells(runs, tmp_path):
    """Random against random: no seat's moves can be checked without the policy's draws, so another legal game
    with recomputed digests passes the rules replay; playing its cell again shows it, and the sample names the
    seed it drew from so the same draw can be repeated."""
    card = json.loads((runs["coin"] / "card.json").read_text())
    cell = card["cells"][0]
    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    [games] = read_games(runs["coin"], [len(cell["digests"])], [spec.max_game_length(config) + 1])
    keys = cell_keys(card["seed"], "cherry_picking", 2, GAMES // 2)
    coin = make_agent("random", spec, config)
    result = play_games(spec, config, [coin, coin], np.array([[0, 1]]), seed=99, keys=keys[5:6], record=True)
    games[5] = np.array([int(step[0]) for step in result.actions if step[0] >= 0])
    cell["actions_sha256"][5] = rc.actions_digest(games[5])
    cell["scores"][5] = result.scores[0].tolist()
    cell["winners"][5] = "".join("1" if w else "0" for w in result.winners[0])
    folder = write(reforge(card), tmp_path / "coin")
    write_games(folder, [games])
    assert verify_card(folder)["problems"] == []  # consistent, legal, outcomes from the rules
    drawn = verify_card(folder, sample=1)
    assert isinstance(drawn["sample_seed"], int) and drawn["replayed"][0]["games"] == GAMES
    assert drawn["problems"] == [
        "cell cherry_picking-2p-random, game 5: played again with the policy, it gives another game than the card's"
    ]
    again = verify_card(folder, sample=1, seed=drawn["sample_seed"])
    assert again["replayed"] == drawn["replayed"] and again["sample_seed"] == drawn["sample_seed"]


def test_the_command_line_prints_the_sample_seed_and_repeats_it(runs, capsys):
    assert bm.main(["verify", str(runs["coin"]), "--sample", "3"]) == 0
    out = capsys.readouterr().out
    seed = int(out.split("--sample-seed ")[1].split()[0])
    assert (
        f"sample seed {seed}" in out and "played again with the policy: 1 cells (32 games), 32 games identical" in out
    )
    assert bm.main(["verify", str(runs["coin"]), "--sample", "3", "--sample-seed", str(seed)]) == 0
    assert f"sample seed {seed}:" in capsys.readouterr().out
    assert bm.main(["verify", str(runs["coin"]), "--sample", "3", "--seed", str(seed)]) == 0  # the older spelling
    assert f"sample seed {seed}:" in capsys.readouterr().out


def test_a_card_without_its_games_fails_as_unbound(runs, tmp_path, capsys):
    card = json.loads((runs["coin"] / "card.json").read_text())
    folder = write(card, tmp_path / "bare")
    [problem] = verify_card(folder)["problems"]
    assert problem.startswith("no games.npz beside the card") and "(outcomes unbound)" in problem
    assert bm.main(["verify", str(folder)]) == 1
    assert "FAILED: 1 difference" in capsys.readouterr().out


class _Marker:
    """Unpickling this writes a file: a games file must never be unpickled."""

    path = ""

    def __reduce__(self):
        return (open, (self.path, "w"))


def _npz(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def _npy(array: np.ndarray, allow_pickle: bool = False) -> bytes:
    import io

    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def test_a_games_file_is_read_as_bounded_data_never_unpickled(runs, tmp_path):
    card = json.loads((runs["coin"] / "card.json").read_text())
    marker = tmp_path / "unpickled"
    _Marker.path = str(marker)
    lengths = np.full(GAMES, 3, dtype="<u4")
    payload = np.empty(1, dtype=object)
    payload[0] = _Marker()
    header = _npy(np.zeros(3, dtype="|u1"))[:128]
    cases = {
        "pickled": ({"lengths.npy": _npy(lengths), "actions.npy": _npy(payload, allow_pickle=True)}, "must be one row"),
        "huge shape": (
            {"lengths.npy": _npy(lengths), "actions.npy": header.replace(b"(3,)", b"(99999999999,)")},
            "games.npz",
        ),
        "another member": ({"lengths.npy": _npy(lengths), "x.npy": b""}, "holds ['lengths.npy', 'x.npy']"),
        "lengths of another type": (
            {"lengths.npy": _npy(lengths.astype("<f8")), "actions.npy": b""},
            "must be one row",
        ),
        "too few games": (
            {"lengths.npy": _npy(lengths[:3]), "actions.npy": _npy(np.zeros(9, dtype="|u1"))},
            "holds 3 games, the card 32",
        ),
    }
    for name, (members, message) in cases.items():
        folder = write(card, tmp_path / name.replace(" ", "_"))
        _npz(folder / "games.npz", members)
        problems = verify_card(folder)["problems"]
        assert len(problems) == 1 and "games.npz" in problems[0] and message in problems[0], (name, problems)
    folder = write(card, tmp_path / "not_a_zip")
    (folder / "games.npz").write_bytes(b"PK\x03\x04 not a zip")
    assert "games.npz is not a games file" in verify_card(folder)["problems"][0]
    assert not marker.exists()
