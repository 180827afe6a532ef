"""Result cards and `verify`: every benchmark run writes a card and its games; `verify` recomputes what the card
derives, replays every game through the rules and plays sampled cells again; each kind of tampering fails with
a message naming what differs; bad cards are refused by name and nothing is written."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from fruit_envs.benchmark import BenchmarkError, evaluate
from fruit_envs.benchmarks import benchmark as bm
from fruit_envs.benchmarks.benchmark import result_card as rc
from fruit_envs.benchmarks.benchmark.verify import verify_card

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "agents" / "baselines" / "cherry_picking_2p.zip"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A small run of greedy: Cherry Picking with two players and the score attack, 8 games per cell."""
    out = tmp_path_factory.mktemp("card") / "greedy"
    report = evaluate(
        "greedy", suite="quick", games=8, only=["cherry_picking:2", "juicy_fruits_solo"], out=out, progress=False
    )
    return report, out


def _copy(card: dict, folder: Path, games: Path | None = None) -> Path:
    """A card written into `folder`, with the games file `games` (a folder holding one) beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / rc.CARD_FILE).write_text(rc.card_text(card))
    if games is not None:
        shutil.copy(games / "games.npz", folder / "games.npz")
    return folder


def test_every_run_writes_a_card_that_verifies_and_its_replayed_games_are_the_cards(run):
    report, out = run
    assert report["card"] == str(out / "card.json") == json.loads((out / "report.json").read_text())["card"]
    card = rc.load_card(out)
    assert card["schema"] == rc.SCHEMA and card["schema_version"] == rc.SCHEMA_VERSION and card["status"] == "complete"
    assert card["protocol"]["sha256"] == report["protocol_sha256"] and card["seed"] == report["seed"]
    assert [c["id"] for c in card["cells"]] == [
        "cherry_picking-2p-random", "cherry_picking-2p-greedy", "cherry_picking-2p-ppo-baseline",
        "cherry_picking-2p-search", "juicy_fruits_solo-1p-alone",
    ]  # fmt: skip
    for cell, stated in zip(card["cells"], report["cells"], strict=True):
        assert len(cell["digests"]) == stated["games"] == cell["numbers"]["games"]
        assert cell["numbers"] == {key: stated[key] for key in rc.NUMBER_FIELDS if key in stated}
        assert cell["merkle_root"] == rc.merkle_root(cell["digests"])
    assert set(card["rules_sha256"]) == {"cherry_picking", "juicy_fruits_solo"}
    assert card["compute"]["workers"] == 1 and card["compute"]["cell_cpu_seconds"] > 0
    assert (out / "games.npz").is_file()
    before = {path.name: path.read_bytes() for path in out.iterdir() if path.is_file()}
    result = verify_card(out, sample=3, seed=1)
    assert result["problems"] == [] and result["sample_seed"] == 1
    assert result["replayed"] and all(not r["differ"] and r["games"] == 8 for r in result["replayed"])
    assert {path.name: path.read_bytes() for path in out.iterdir() if path.is_file()} == before  # writes nothing
    summary = bm.verify_summary(result)
    assert "verified" in summary and "40 games replayed through the rules from games.npz" in summary
    assert "moves of greedy, the policy: up to ties" in summary and "moves of ppo-baseline: move by move" in summary
    assert "legal moves only" in summary and "--sample-seed 1 draws them again" in summary


def test_merkle_root_by_hand():
    """Leaves hashed with 0x00, inner nodes with 0x01, an odd node carried up: three leaves by hand."""
    leaves = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(3)]
    h = [hashlib.sha256(b"\x00" + bytes.fromhex(d)).digest() for d in leaves]
    left = hashlib.sha256(b"\x01" + h[0] + h[1]).digest()
    assert rc.merkle_root(leaves) == hashlib.sha256(b"\x01" + left + h[2]).hexdigest()
    assert rc.merkle_root(leaves[:1]) == h[0].hex() and rc.merkle_root([]) == hashlib.sha256(b"").hexdigest()


def _flip_win(card):
    cell = card["cells"][1]
    cell["winners"][0] = cell["winners"][0][::-1]


def _flip_win_and_count(card):
    _flip_win(card)
    numbers = card["cells"][1]["numbers"]
    numbers["wins"], numbers["losses"] = numbers["wins"] + 1, numbers["losses"] - 1


TAMPERING = {
    "one changed win": (_flip_win, "cell cherry_picking-2p-greedy, game 0: its key, seat, actions digest or outcome"),
    "a win and the counts": (_flip_win_and_count, "cell cherry_picking-2p-greedy, game 0"),
    "the seed": (lambda c: c.update(seed=c["seed"] + 1), "its deal keys are not those seed"),
    "an environment version": (
        lambda c: c["environments"].update(cherry_picking="cherry_picking_v1"),
        "environment of cherry_picking: the card says 'cherry_picking_v1', protocol v1 pins 'cherry_picking_v0'",
    ),
    "a game's digest": (
        lambda c: c["cells"][0]["digests"].__setitem__(2, "0" * 64),
        "cell cherry_picking-2p-random, game 2: its key, seat, actions digest or outcome do not give its digest",
    ),
    "an actions digest": (lambda c: c["cells"][0]["actions_sha256"].__setitem__(5, "1" * 64), "game 5"),
    "a cell's root": (
        lambda c: c["cells"][3].update(merkle_root="2" * 64),
        "cell cherry_picking-2p-search: the Merkle root",
    ),
    "the card's root": (lambda c: c.update(merkle_root="3" * 64), "the card's Merkle root"),
    "a rating": (
        lambda c: c["groups"][0].update(rating=1234.5),
        "group cherry_picking 2p: rating is 1234.5 on the card",
    ),
    "the aggregate": (lambda c: c["aggregate"].update(normalised=99.0), "aggregate normalised is 99.0 on the card"),
    "the protocol file": (lambda c: c["protocol"].update(sha256="4" * 64), "protocol file hash 444444444444"),
    "a mean score": (
        lambda c: c["cells"][4]["numbers"].update(mean_score=99.0),
        "cell juicy_fruits_solo-1p-alone: mean_score is 99.0 on the card",
    ),
    "the rules": (lambda c: c["rules_sha256"].update(cherry_picking="5" * 64), "rules of cherry_picking"),
    "a reference agent": (
        lambda c: c["cells"][1].update(reference_agent="random"),
        "cell cherry_picking-2p-greedy: reference agent 'random', protocol v1 plays 'greedy' as greedy",
    ),
}


@pytest.mark.parametrize("kind", list(TAMPERING))
def test_a_tampered_card_fails_naming_what_differs(run, tmp_path, kind):
    change, message = TAMPERING[kind]
    card = json.loads((run[1] / "card.json").read_text())
    change(card)
    folder = _copy(card, tmp_path / "tampered", games=run[1])
    before = (folder / "card.json").read_bytes()
    problems = verify_card(folder)["problems"]
    assert any(message in p for p in problems), problems
    assert (folder / "card.json").read_bytes() == before


def test_a_game_whose_digests_were_recomputed_for_other_actions_is_caught_without_a_sample(run, tmp_path):
    """Anyone can recompute digests for invented games; the card's games file then does not hold those actions,
    and played again the cell shows it too."""
    card = json.loads((run[1] / "card.json").read_text())
    cell = card["cells"][1]
    cell["actions_sha256"][0] = rc.actions_digest([0, 1, 2])  # another game, its digest and roots recomputed
    keys = [int(k) for k in bm.deal_keys(card["seed"], "cherry_picking", 2, 4)] * 2
    cell["digests"][0] = rc.game_digest(
        cell["id"], 0, keys[0], 0, cell["actions_sha256"][0], cell["scores"][0],
        [w == "1" for w in cell["winners"][0]], 0,
    )  # fmt: skip
    cell["merkle_root"] = rc.merkle_root(cell["digests"])
    card["merkle_root"] = rc.merkle_root([c["merkle_root"] for c in card["cells"]])
    folder = _copy(card, tmp_path / "forged")
    shutil.copy(run[1] / "games.npz", folder / "games.npz")
    assert verify_card(folder)["problems"] == [
        "cell cherry_picking-2p-greedy, game 0: its actions in games.npz do not give its actions digest"
    ]
    drawn = verify_card(folder, sample=sum(len(c["digests"]) for c in card["cells"]))  # every cell
    assert (
        "cell cherry_picking-2p-greedy, game 0: played again with the policy, it gives another game than the card's"
        in (drawn["problems"])
    )


def test_bad_cards_are_refused_by_name_and_left_as_they_were(run, tmp_path):
    card = json.loads((run[1] / "card.json").read_text())
    cases = {
        "not json": ("{not json", "is not a result card"),
        "not a card": (json.dumps({"hello": 1}), "is not a result card (its 'schema' is not"),
        "schema 2": (
            rc.card_text({**card, "schema_version": 2}),
            "card schema version 2; this fruit_envs reads version 1",
        ),
        "protocol 7": (
            rc.card_text({**card, "protocol": {**card["protocol"], "version": 7}}),
            "made under protocol version 7; this fruit_envs knows protocol version 1",
        ),
        "no cells": (rc.card_text({k: v for k, v in card.items() if k != "cells"}), "field 'cells' is missing"),
        "seed as text": (rc.card_text({**card, "seed": "20261201"}), "field 'seed' must be int, got str"),
    }
    for name, (text, message) in cases.items():
        folder = tmp_path / name.replace(" ", "_")
        folder.mkdir()
        (folder / "card.json").write_text(text)
        with pytest.raises(BenchmarkError, match=message.replace("(", r"\(").replace(")", r"\)")):
            verify_card(folder)
        assert (folder / "card.json").read_text() == text and sorted(p.name for p in folder.iterdir()) == ["card.json"]
    with pytest.raises(BenchmarkError, match="no result card at"):
        verify_card(tmp_path / "nowhere")
    with pytest.raises(BenchmarkError, match="--sample must be a non-negative"):
        verify_card(run[1], sample=-1)


def test_the_command_line_exits_0_verified_1_different_2_unreadable(run, tmp_path, capsys):
    assert bm.main(["verify", str(run[1])]) == 0
    assert "verified" in capsys.readouterr().out
    card = json.loads((run[1] / "card.json").read_text())
    _flip_win(card)
    assert bm.main(["verify", str(_copy(card, tmp_path / "t", games=run[1]))]) == 1
    out = capsys.readouterr().out
    assert "FAILED" in out and "cell cherry_picking-2p-greedy, game 0" in out
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "card.json").write_text("[]")
    assert bm.main(["verify", str(tmp_path / "bad")]) == 2
    assert "is not a result card" in capsys.readouterr().err


def test_a_model_json_policy_is_found_by_its_hash_or_given_and_refused_when_another(tmp_path):
    """A card of a policy exported as data (model.json) is played again with the model.json of its hash in its
    folder, or with `--policy`; without either it is refused naming what to give, and another model is refused
    naming the hash. A .zip in the folder is never looked at."""
    from fruit_envs.agents.weights import export_policy

    exported = export_policy(BASELINE, "cherry_picking", 2, tmp_path / "mine")
    out = tmp_path / "run"
    evaluate(
        str(exported), suite="quick", games=4, only=["cherry_picking:2"], references=["greedy"], out=out, progress=False
    )
    card = rc.load_card(out)
    assert card["policy"]["kind"] == "model" and card["policy"]["sha256"] == rc.file_sha256(exported)
    assert not card["policy"]["privileged"]
    result = verify_card(out)
    assert result["problems"] == [] and result["privileged_checked"] is False  # no model in the run's folder
    assert "moves of the policy: as legal moves only" in bm.verify_summary(result)
    with pytest.raises(BenchmarkError, match=r"in the card's folder: give it with --policy"):
        verify_card(out, sample=1)
    assert verify_card(out, sample=1, policy=str(exported))["problems"] == []
    other = export_policy(ROOT / "agents" / "baselines" / "fruit_picking_2p.zip", "fruit_picking", 2, tmp_path / "o")
    with pytest.raises(BenchmarkError, match="is not the card's"):
        verify_card(out, sample=1, policy=str(other))
    moved = _copy(copy.deepcopy(card), tmp_path / "entry", games=out)
    for name in ("model.json", "model.safetensors"):
        shutil.copy(exported.parent / name, moved / name)
    result = verify_card(moved, sample=2)
    assert result["problems"] == [] and result["replayed"] and result["privileged_checked"]
    assert "moves of greedy: up to ties" in bm.verify_summary(result)
    assert "moves of the policy: move by move" in bm.verify_summary(result)


def test_a_run_whose_cells_cannot_make_a_card_keeps_its_report(tmp_path, monkeypatch):
    """A cell resumed from a folder written before cards has no actions to digest: the report is still written,
    naming why there is no card."""

    def old_cell(cell, keys, raw):
        raise BenchmarkError(f"cell {cell} was played before result cards existed; play it again for a card")

    monkeypatch.setattr(rc, "cell_games", old_cell)
    out = tmp_path / "run"
    report = evaluate("random", suite="quick", games=2, only=["cherry_picking:2"], references=["random"], out=out)
    assert report["card"] is None and "before result cards existed" in report["card_error"]
    assert sorted(p.name for p in out.iterdir()) == ["report.json", "report.md", "report.png"]


def test_a_card_never_makes_verify_import_a_module_or_file_it_names(run, tmp_path):
    """A card may come from anywhere: a policy label naming a module or file is not imported for a replay (the
    user gives --policy), and a reference is always the protocol's agent, whatever the card says."""
    marker = tmp_path / "imported"
    (tmp_path / "planted.py").write_text(f"open({str(marker)!r}, 'w').close()\ndef make(spec, config):\n    pass\n")
    card = json.loads((run[1] / "card.json").read_text())
    card["policy"].update(label=f"{tmp_path / 'planted.py'}:make", kind="name")
    folder = _copy(card, tmp_path / "planted_card", games=run[1])
    with pytest.raises(BenchmarkError, match="give it with --policy"):
        verify_card(folder, sample=1)
    assert verify_card(folder)["problems"] == []  # the rules replay plays its moves as data
    assert not marker.exists()
    card = json.loads((run[1] / "card.json").read_text())
    card["cells"][0]["reference_agent"] = f"{tmp_path / 'planted.py'}:make"
    result = verify_card(_copy(card, tmp_path / "planted_reference", games=run[1]), sample=40, seed=0)  # every cell
    assert not marker.exists()
    assert any("reference agent" in p and "not replayed" in p for p in result["problems"])
