"""A card is data: from its own words `verify` builds only shipped agents, protocol references or a model.json
of the card's hash in its folder. A model.zip beside a card (a pickle), a `ppo:PATH` or `search:...=ppo:PATH`
label, or a module it names is never loaded, imported or looked for; hashing a policy imports nothing; and no
message says whether a path a card names exists. Every payload here writes a marker; no marker may appear."""

from __future__ import annotations

import hashlib
import json
import pickle
import shutil
from pathlib import Path

import pytest

from fruit_envs.benchmark import BenchmarkError, evaluate
from fruit_envs.benchmarks import benchmark as bm
from fruit_envs.benchmarks.benchmark import result_card as rc
from fruit_envs.benchmarks.benchmark.policies import PolicySource, module_file
from fruit_envs.benchmarks.benchmark.verify import verify_card


class _Marker:
    """Unpickling this writes a file."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.fixture(scope="module")
def card_run(tmp_path_factory):
    """Random against greedy at Cherry Picking, two players, 4 games per cell."""
    out = tmp_path_factory.mktemp("trust") / "run"
    evaluate(
        "random", suite="quick", games=4, only=["cherry_picking:2"], references=["greedy"], out=out, progress=False
    )
    return out


def _entry(card_run: Path, folder: Path, **policy) -> Path:
    """A copy of the run's card and games in `folder`, its policy fields replaced."""
    folder.mkdir(parents=True)
    card = json.loads((card_run / "card.json").read_text())
    card["policy"].update(policy)
    (folder / "card.json").write_text(rc.card_text(card))
    shutil.copy(card_run / "games.npz", folder / "games.npz")
    return folder


def test_a_model_zip_beside_a_card_of_its_hash_is_never_unpickled(card_run, tmp_path):
    marker = tmp_path / "unpickled"
    zipped = tmp_path / "model.zip"
    zipped.write_bytes(pickle.dumps(_Marker(marker)))
    digest = hashlib.sha256(zipped.read_bytes()).hexdigest()
    folder = _entry(card_run, tmp_path / "entry", label=str(zipped), kind="model", sha256=digest)
    shutil.copy(zipped, folder / "model.zip")
    assert verify_card(folder)["problems"] == []
    with pytest.raises(BenchmarkError, match="no model.json of its hash .* give it with --policy"):
        verify_card(folder, sample=4)
    assert bm.main(["verify", str(folder), "--sample", "1"]) == 2
    assert not marker.exists()


@pytest.mark.parametrize("label", ["ppo:{zip}", "ppo-sample:{zip}", "search:rollouts=4,depth=2,policy=ppo:{zip}"])
def test_a_label_naming_a_model_file_with_no_hash_never_loads_it(card_run, tmp_path, label):
    marker = tmp_path / "unpickled"
    zipped = tmp_path / "planted.zip"
    zipped.write_bytes(pickle.dumps(_Marker(marker)))
    folder = _entry(card_run, tmp_path / "entry", label=label.format(zip=zipped), kind="name", sha256=None)
    assert verify_card(folder)["problems"] == []
    with pytest.raises(BenchmarkError, match="the card names none"):
        verify_card(folder, sample=4)
    assert not marker.exists()


def test_hashing_a_policy_by_module_imports_nothing(tmp_path, monkeypatch):
    """`pkg.sub:make`'s hash is its source file's, found without importing `pkg` (whose import writes a marker)."""
    marker = tmp_path / "imported"
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (package / "sub.py").write_text("def make(spec, config):\n    return None\n")
    monkeypatch.chdir(tmp_path)
    assert module_file("pkg.sub") == str(package / "sub.py") and module_file("pkg.nothing") is None
    want = hashlib.sha256((package / "sub.py").read_bytes()).hexdigest()
    for text in ("pkg.sub:make", "ppo:pkg.sub:make"):
        assert PolicySource(text, "factory", None, text=text).fingerprint() == want
    assert module_file("fruit_envs.agents.random").endswith("agents/random.py")  # through the installed finders
    assert not marker.exists()


def test_a_card_naming_a_module_never_imports_it(card_run, tmp_path, monkeypatch):
    marker = tmp_path / "imported"
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (package / "sub.py").write_text(f"open({str(marker)!r}, 'w').close()\ndef make(spec, config):\n    pass\n")
    monkeypatch.chdir(tmp_path)
    folder = _entry(card_run, tmp_path / "entry", label="ppo:pkg.sub:make", kind="factory", sha256=None)
    assert verify_card(folder)["problems"] == []
    with pytest.raises(BenchmarkError, match="give it with --policy"):
        verify_card(folder, sample=4)
    assert not marker.exists()


def test_no_message_says_whether_a_path_a_card_names_exists(card_run, tmp_path):
    there = tmp_path / "there.zip"
    there.write_bytes(b"not a model")
    messages = []
    for path in (there, tmp_path / "not_there.zip"):
        digest = "ab" * 32
        folder = _entry(card_run, tmp_path / path.stem, label=f"ppo:{path}", kind="name", sha256=digest)
        with pytest.raises(BenchmarkError) as caught:
            verify_card(folder, sample=1)
        messages.append(str(caught.value).replace(str(path), "PATH"))
        messages.append(" ".join(verify_card(folder)["checked"]).replace(str(path), "PATH"))
    assert messages[0] == messages[2] and messages[1] == messages[3]


def test_a_policy_given_on_the_command_line_that_does_not_load_is_one_line(card_run, tmp_path, capsys):
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(b"PK\x03\x04 this is no model")
    folder = _entry(card_run, tmp_path / "entry", label="mine", kind="factory", sha256=None)
    assert bm.main(["verify", str(folder), "--sample", "1", "--policy", str(corrupt)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the policy") and "cannot be built for cherry_picking" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_model_json_of_the_cards_hash_whose_weights_do_not_load_fails_by_name(card_run, tmp_path, capsys):
    """A model.json beside a card, of its hash, whose weights are not the ones it names: the default check says
    so as a difference; a replay cannot build it and stops with one line."""
    from fruit_envs.agents.weights import export_policy

    root = Path(__file__).resolve().parents[1]
    exported = export_policy(
        root / "agents" / "baselines" / "cherry_picking_2p.zip", "cherry_picking", 2, tmp_path / "m"
    )
    digest = rc.file_sha256(exported)
    folder = _entry(card_run, tmp_path / "entry", label="ppo:model.json", kind="name", sha256=digest)
    shutil.copy(exported, folder / "model.json")
    (folder / "model.safetensors").write_bytes(b"not the weights")
    [problem] = verify_card(folder)["problems"]
    assert problem.startswith("cherry_picking 2p: the card's model model.json cannot be read")
    assert bm.main(["verify", str(folder), "--sample", "1"]) == 2
    err = capsys.readouterr().err
    assert "model.json cannot be read" in err and len(err.strip().splitlines()) == 1
