"""Every field the leaderboard shows is checked by `verify` or shown as claimed: the privileged flag against the
policy's kind, the rules' digests covering every game played, the deviations against the card's seed, suite and
cells, every number's type and the winners' alphabet; the date, compute, code and exploitability bounds a card
states are listed as claimed. Malformed cards are one line and exit 2, never a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fruit_envs.benchmark import BenchmarkError, evaluate
from fruit_envs.benchmarks import benchmark as bm
from fruit_envs.benchmarks.benchmark import result_card as rc
from fruit_envs.benchmarks.benchmark.verify import verify_card


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Small runs at Cherry Picking with two players against greedy: random with another seed than the
    protocol's, and a cheap search (privileged)."""
    root = tmp_path_factory.mktemp("claims")
    common = {"suite": "quick", "games": 4, "only": ["cherry_picking:2"], "references": ["greedy"], "progress": False}
    evaluate("random", seed=7, out=root / "seeded", **common)
    evaluate("search:rollouts=4,depth=2", out=root / "search", **common)
    return root


def _card(runs: Path, name: str) -> dict:
    return json.loads((runs / name / "card.json").read_text())


def _write(card: dict | str, folder: Path, games: Path | None) -> Path:
    folder.mkdir(parents=True)
    (folder / "card.json").write_text(card if isinstance(card, str) else rc.card_text(card))
    if games is not None:
        shutil.copy(games / "games.npz", folder / "games.npz")
    return folder


def test_the_runs_verify_and_say_what_they_only_claim(runs):
    seeded = verify_card(runs / "seeded")
    assert seeded["problems"] == [] and "seed 7 instead of 20261201" in _card(runs, "seeded")["deviations"]
    assert seeded["claimed"] == ["created", "code", "packages", "compute"] and seeded["privileged_checked"]
    searched = verify_card(runs / "search")
    assert searched["problems"] == [] and searched["privileged_checked"] and "privileged" not in searched["claimed"]
    assert "claimed, not checked: created, code, packages, compute" in bm.verify_summary(searched)


def test_a_privileged_flag_against_the_policys_kind(runs, tmp_path):
    card = _card(runs, "search")
    assert card["policy"]["privileged"]
    card["policy"]["privileged"] = False
    [problem] = verify_card(_write(card, tmp_path / "search", runs / "search"))["problems"]
    assert problem == "policy.privileged is false on the card; search:rollouts=4,depth=2 reads the true state"
    card = _card(runs, "seeded")
    card["policy"]["privileged"] = True  # random as shipped: it sees only its seat
    [problem] = verify_card(_write(card, tmp_path / "random", runs / "seeded"))["problems"]
    assert problem == "policy.privileged is true on the card; random does not read the true state"


def test_a_privileged_flag_of_a_policy_verify_cannot_build_is_claimed_until_replayed(runs, tmp_path):
    card = _card(runs, "seeded")
    card["policy"].update(label="mypackage.policies:make", kind="factory")
    result = verify_card(_write(card, tmp_path / "factory", runs / "seeded"))
    assert result["problems"] == [] and not result["privileged_checked"] and "privileged" in result["claimed"]
    replayed = verify_card(tmp_path / "factory", sample=1, policy="random")
    assert replayed["problems"] == [] and replayed["privileged_checked"]


DIFFERENCES = {
    "no rules digests": (lambda c: c.update(rules_sha256={}), "rules_sha256 names []; it must give one digest"),
    "a rules digest too many": (
        lambda c: c["rules_sha256"].update(fruit_picking=c["rules_sha256"]["cherry_picking"]),
        "for every game the cells play (['cherry_picking'])",
    ),
    "the seed's deviation deleted": (
        lambda c: c["deviations"].remove("seed 7 instead of 20261201"),
        "games per cell, references and cells make ['4 games per cell instead of 60', 'seed 7 instead of 20261201'",
    ),
    "conforming with no deviations": (
        lambda c: c.update(deviations=[], conforms=True),
        "the card says it conforms; its deviations ['4 games per cell instead of 60', 'seed 7 instead of 20261201'",
    ),
    "a deviation invented": (lambda c: c["deviations"].append("only the best games"), "'only the best games'"),
    "another reference agent list": (
        lambda c: c["references"].update(greedy={g: "random" for g in c["references"]["greedy"]}),
        "reference greedy: the card's agents are not protocol v1's",
    ),
}


@pytest.mark.parametrize("kind", list(DIFFERENCES))
def test_fields_the_leaderboard_shows_are_checked(runs, tmp_path, kind):
    change, message = DIFFERENCES[kind]
    card = _card(runs, "seeded")
    change(card)
    problems = verify_card(_write(card, tmp_path / "card", runs / "seeded"))["problems"]
    assert any(message in p for p in problems), problems


def test_claimed_fields_may_change_and_say_so(runs, tmp_path):
    card = _card(runs, "seeded")
    card.update(created="1999-01-01T00:00:00Z", code={"commit": "0" * 40, "dirty": False}, packages={"numpy": "0"})
    card["compute"].update(wall_seconds=0.01, workers=512)
    card["exploitability"] = {"method": "lbr", "budget": {"particles": 4}, "groups": [
        {"game": "cherry_picking", "players": 2, "sum": -9.0, "sum_low": -9.5, "sum_high": -8.5, "seats": []}
    ]}  # fmt: skip
    result = verify_card(_write(card, tmp_path / "claimed", runs / "seeded"))
    assert result["problems"] == []
    assert {"created", "code", "packages", "compute", "exploitability"} <= set(result["claimed"])


TYPES = {
    "a score as text": (
        lambda c: c["cells"][0]["scores"][0].__setitem__(0, "183"),
        "scores of game 0 must be 2 numbers",
    ),
    "winners of other letters": (
        lambda c: c["cells"][0]["winners"].__setitem__(0, "1x"),
        "winners of game 0 must be 2 letters 0 or 1",
    ),
    "three winners for two seats": (lambda c: c["cells"][0]["winners"].__setitem__(0, "101"), "winners of game 0"),
    "a number as text": (lambda c: c["cells"][0]["numbers"].update(wins="3"), "numbers: wins must be a number"),
    "a rating as text": (lambda c: c["groups"][0].update(rating="900"), "rating must be a number or null"),
    "a truncated game out of range": (lambda c: c["cells"][0].update(truncated=[99]), "truncated must list game"),
    "a digest that is not hex": (lambda c: c["cells"][0]["digests"].__setitem__(1, "x" * 64), "digests must be 64"),
    "a bound as text": (
        lambda c: c.update(exploitability={"method": "lbr", "budget": {}, "groups": [{"game": "x", "players": 2}]}),
        "exploitability: groups[0]: sum must be a number",
    ),
    "an unknown status": (lambda c: c.update(status="perfect"), "status must be one of ['complete', 'stopped']"),
}


@pytest.mark.parametrize("kind", list(TYPES))
def test_every_number_has_its_type(runs, tmp_path, kind, capsys):
    change, message = TYPES[kind]
    card = _card(runs, "seeded")
    change(card)
    folder = _write(card, tmp_path / "card", runs / "seeded")
    with pytest.raises(BenchmarkError, match=message.replace("[", r"\[").replace("(", r"\(")):
        verify_card(folder)
    assert bm.main(["verify", str(folder)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def _text(card: dict, old: str, new: str) -> str:
    text = rc.card_text(card)
    assert old in text
    return text.replace(old, new, 1)


def test_malformed_cards_are_one_line_and_exit_2(runs, tmp_path, capsys):
    card = _card(runs, "seeded")
    deep = "[" * 100_000 + "]" * 100_000
    players_zero = json.loads(rc.card_text(card))
    players_zero["cells"][0]["players"] = 0
    cases = {
        "protocol Infinity": (_text(card, '"version": 1,', '"version": Infinity,'), "protocol version inf"),
        "a 5001-digit seed": (_text(card, '"seed": 7,', f'"seed": {"9" * 5001},'), "is not a result card"),
        "a seed past 2**64": (_text(card, '"seed": 7,', f'"seed": {2**70},'), "seed must be an integer in 0..2**64-1"),
        "a field 100,000 deep": (_text(card, '"compute": {', f'"extra": {deep}, "compute": {{'), "nests too deep"),
        "players 0": (rc.card_text(players_zero), "players 0 is not a player count of cherry_picking"),
    }
    for name, (text, message) in cases.items():
        folder = _write(text, tmp_path / name.replace(" ", "_").replace(",", ""), runs / "seeded")
        assert bm.main(["verify", str(folder)]) == 2, name
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (name, err)
    board = tmp_path / "board"
    shutil.copytree(tmp_path / "players_0", board / "zero")
    assert bm.main(["leaderboard", str(board)]) == 2
    err = capsys.readouterr().err
    assert "players 0 is not a player count" in err and len(err.strip().splitlines()) == 1
