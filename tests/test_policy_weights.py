"""PPO policies as data (`fruit_envs.agents.weights`): the same play as the zip, and nothing run on loading."""

from __future__ import annotations

import hashlib
import json
import pickle

import numpy as np
import pytest

import fruit_envs  # noqa: F401  (registers the games)
from fruit_envs.agents import make_agent
from fruit_envs.agents.ppo import baseline_files
from fruit_envs.agents.weights import WeightsError, export_policy, load_policy, main
from fruit_envs.core.spec import get_spec

pytest.importorskip("safetensors")


def _batch(game: str, players: int, n: int = 32):
    spec = get_spec(game)
    config = spec.make_config(players)
    state = spec.rules.init(config, np.arange(n, dtype=np.uint64))
    return spec, config, spec.rules.observe(state, 0).astype(np.float32), spec.rules.legal_mask(state)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The shipped Cherry Picking 2p baseline exported as weights and a description."""
    spec = get_spec("cherry_picking")
    zip_path, _ = baseline_files(spec, 2)
    return zip_path, export_policy(zip_path, "cherry_picking", 2, tmp_path_factory.mktemp("weights"))


def test_an_exported_policy_plays_as_its_zip_to_the_bit(exported):
    zip_path, json_path = exported
    spec, config, obs, mask = _batch("cherry_picking", 2)
    original, loaded = make_agent(f"ppo:{zip_path}", spec, config), make_agent(f"ppo:{json_path}", spec, config)
    assert np.array_equal(original.scores(obs, mask), loaded.scores(obs, mask))
    bare = make_agent(str(json_path), spec, config)  # a model path, as PATH.zip is
    assert np.array_equal(bare.scores(obs, mask), loaded.scores(obs, mask))
    assert np.array_equal(original.values(obs), loaded.values(obs))
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    sampled = make_agent(f"ppo-sample:{json_path}", spec, config)
    assert np.array_equal(
        make_agent(f"ppo-sample:{zip_path}", spec, config).act(obs, mask, rng_a), sampled.act(obs, mask, rng_b)
    )
    described = json.loads(json_path.read_text())
    assert described["activation"] == "tanh" and described["features"] == {"kind": "flatten"}


def test_a_row_encoder_policy_round_trips(tmp_path):
    """The row encoder (Quickity Pickity's set rows) is described by its blocks and rebuilt from our class."""
    import gymnasium
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from fruit_envs.agents.networks import RowEncoder
    from fruit_envs.agents.ppo import PolicyOnly
    from fruit_envs.core.rules_api import game_rules

    spec, config, obs, mask = _batch("quickity_pickity", 2)
    layout = spec.rules.observation_layout(config)
    rows = game_rules(spec).observation_rows(config)
    blocks = [(layout[name].start, layout[name].stop, width) for name, width in rows.items()]
    space = gymnasium.spaces.Box(0.0, spec.rules.OBSERVATION_HIGH, spec.observation_shape(config), np.float32)
    policy = MaskableActorCriticPolicy(
        space, gymnasium.spaces.Discrete(spec.num_actions), lambda _: 0.0, net_arch=[32],
        features_extractor_class=RowEncoder, features_extractor_kwargs={"blocks": blocks, "hidden": 16},
    )  # fmt: skip
    path = export_policy(PolicyOnly(policy), "quickity_pickity", 2, tmp_path)
    agent = make_agent(f"ppo:{path}", spec, config)
    assert isinstance(agent.model.policy.features_extractor, RowEncoder)
    from fruit_envs.agents.ppo import PPOAgent

    assert np.array_equal(PPOAgent(PolicyOnly(policy), spec, config).scores(obs, mask), agent.scores(obs, mask))


class _Marker:
    """A pickle that writes a marker file when unpickled: what loading must never do."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _rewrite(json_path, tmp_path, **changes):
    described = {**json.loads(json_path.read_text()), **changes}
    folder = tmp_path / "copy"
    folder.mkdir(exist_ok=True)
    weights = json_path.parent / described.get("weights", "model.safetensors")
    if weights.is_file() and not (folder / weights.name).exists():
        (folder / weights.name).write_bytes(weights.read_bytes())
    path = folder / "model.json"
    path.write_text(json.dumps(described))
    return path


def test_loading_checks_hashes_first_and_never_unpickles(exported, tmp_path):
    """A description of another hash than the card names is refused before it is parsed; weights of another
    hash before they are read; a pickle where the weights should be is refused and never run."""
    _, json_path = exported
    digest = hashlib.sha256(json_path.read_bytes()).hexdigest()
    assert load_policy(json_path, sha256=digest).policy is not None
    with pytest.raises(WeightsError, match="sha256 is not"):
        load_policy(json_path, sha256="0" * 64)
    marker = tmp_path / "ran"
    payload = tmp_path / "copy" / "evil.safetensors"
    payload.parent.mkdir()
    payload.write_bytes(pickle.dumps(_Marker(marker)))
    evil = _rewrite(json_path, tmp_path, weights="evil.safetensors", weights_sha256="0" * 64)
    with pytest.raises(WeightsError, match="missing or not of the hash it names"):
        load_policy(evil)
    honest_hash = _rewrite(
        json_path, tmp_path, weights="evil.safetensors", weights_sha256=hashlib.sha256(payload.read_bytes()).hexdigest()
    )
    with pytest.raises(WeightsError, match="does not fit the network"):
        load_policy(honest_hash)
    assert not marker.exists()


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"format": "pickle"}, "not a policy description"),
        ({"activation": "os.system"}, "activation must be one of"),
        ({"features": {"kind": "module:Evil"}}, "features must be"),
        ({"net_arch": [10**9]}, "net_arch must list hidden layer sizes"),
        ({"weights": "../model.safetensors"}, "a file name, no folder"),
        ({"game": "chess"}, "not an installed game"),
        ({"players": 9}, "players must be one of"),
        ({"observation_shape": [3]}, "observation shape and action count"),
    ],
)
def test_a_malformed_description_is_refused_by_name(exported, tmp_path, changes, message):
    _, json_path = exported
    with pytest.raises(WeightsError, match=message):
        load_policy(_rewrite(json_path, tmp_path, **changes))


def test_a_deeply_nested_or_huge_description_is_a_clear_error(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(WeightsError):
        load_policy(deep)
    with pytest.raises(ValueError, match="no PPO model at"):
        make_agent(f"ppo:{tmp_path / 'missing.json'}", "cherry_picking")


def test_the_export_command(exported, tmp_path, capsys):
    zip_path, _ = exported
    assert main([str(zip_path), "--game", "cherry_picking", "--players", "2", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "model.json").is_file() and "play it as ppo:" in capsys.readouterr().out
    assert main([str(zip_path), "--game", "cherry_picking", "--players", "3", "--out", str(tmp_path)]) == 2
    assert "was trained on observations" in capsys.readouterr().err
