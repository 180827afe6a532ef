"""PPO policies as data: weights in safetensors, the architecture as JSON, read without running code.

A MaskablePPO zip is a pickle: loading it may run anything its author put in it, so it is loaded only where the
user names it (`ppo:PATH.zip`). A policy that travels with data (a leaderboard entry, a card's folder) is
exported here instead, into two files:

* `model.json`: `{"format", "version", "game", "players", "observation_shape", "num_actions", "net_arch",
  "activation", "features", "share_features_extractor", "weights", "weights_sha256"}`: the network described
  by names from a fixed set (activations `tanh`/`relu`; features `flatten` or our `row_encoder` with its
  blocks) and the weights file's name and hash;
* `model.safetensors`: every tensor of the policy's state dict, as plain data.

`load_policy(json_path, sha256=...)` checks the description's hash (when given: a card's) before parsing it
and the weights' hash before reading them, builds the network from our own classes and fills it: nothing is
unpickled or imported by name. `ppo:model.json` plays it as `ppo:model.zip` plays the zip, with the same
logits to the bit.

    python -m fruit_envs.agents.weights runs/<run>/model.zip --game cherry_picking --players 2 --out DIR
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from fruit_envs.core.spec import get_spec

FORMAT = "fruit_envs.policy_weights"
VERSION = 1
ACTIVATIONS = ("tanh", "relu")
JSON_LIMIT = 1 << 20  # bytes: a description is a few hundred
_LAYER_LIMIT = 1 << 14  # units per hidden layer


class WeightsError(ValueError):
    """A policy description or weights file that cannot be read as ours: the message says what is wrong."""


def sha256_file(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def export_policy(model_or_path: Any, game: str, players: int, out: str | Path, stem: str = "model") -> Path:
    """`out/<stem>.json` and `out/<stem>.safetensors` from a MaskablePPO model or policy (or its file, which the
    caller trusts: loading a zip runs its pickle); returns the JSON's path. Refuses a network it cannot
    describe by name."""
    import torch
    from safetensors.torch import save_file
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from fruit_envs.agents.networks import RowEncoder
    from fruit_envs.agents.ppo import PPOAgent

    spec = get_spec(game)
    config = spec.make_config(players)
    policy = PPOAgent(model_or_path, spec, config).model.policy  # checks the observation and action sizes
    activation = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}.get(policy.activation_fn)
    if activation is None:
        raise WeightsError(f"activation {policy.activation_fn!r} is not one of {list(ACTIVATIONS)}")
    extractor = policy.features_extractor
    if isinstance(extractor, RowEncoder):
        kwargs = dict(policy.features_extractor_kwargs)
        features = {"kind": "row_encoder", "blocks": [list(b) for b in extractor.blocks]}
        features.update({k: int(kwargs[k]) for k in ("hidden", "per_row") if k in kwargs})
    elif isinstance(extractor, FlattenExtractor):
        features = {"kind": "flatten"}
    else:
        raise WeightsError(f"features extractor {type(extractor).__name__} is not flatten or row_encoder")
    arch = policy.net_arch
    net_arch = {"pi": list(arch["pi"]), "vf": list(arch["vf"])} if isinstance(arch, dict) else list(arch)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    weights = out / f"{stem}.safetensors"
    tensors = {name: value.detach().cpu().contiguous().clone() for name, value in policy.state_dict().items()}
    save_file(tensors, str(weights))
    description = {
        "format": FORMAT,
        "version": VERSION,
        "game": spec.id,
        "players": int(players),
        "observation_shape": list(spec.observation_shape(config)),
        "num_actions": int(spec.num_actions),
        "net_arch": net_arch,
        "activation": activation,
        "features": features,
        "share_features_extractor": bool(policy.share_features_extractor),
        "weights": weights.name,
        "weights_sha256": sha256_file(weights),
    }
    path = out / f"{stem}.json"
    path.write_text(json.dumps(description, indent=1) + "\n")
    return path


def load_policy(path: str | Path, sha256: str | None = None):
    """The policy `path` (a `model.json`) describes, as `PPOAgent` takes it; the description's hash must be
    `sha256` where given and the weights' hash the description's. Nothing is unpickled or imported by name;
    a bad file is a `WeightsError` naming what is wrong."""
    from fruit_envs.agents.ppo import PolicyOnly

    path = Path(path)
    try:
        data = path.read_bytes()[: JSON_LIMIT + 1]
    except OSError as error:
        raise WeightsError(f"cannot read policy description {path.name}: {error.strerror}") from None
    if len(data) > JSON_LIMIT:
        raise WeightsError(f"{path.name} is over {JSON_LIMIT} bytes: not a policy description")
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise WeightsError(f"{path.name}'s sha256 is not {sha256[:12]}...: another policy than the one named")
    try:
        described = json.loads(data)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise WeightsError(f"{path.name} is not JSON: {error}") from None
    checked = _checked(described, path.name)
    weights = path.parent / checked["weights"]
    if not weights.is_file() or sha256_file(weights) != checked["weights_sha256"]:
        raise WeightsError(f"{path.name}: its weights {checked['weights']} are missing or not of the hash it names")
    policy = _network(checked)
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    try:
        tensors = load_file(str(weights), device="cpu")
        policy.load_state_dict(tensors, strict=True)
    except (SafetensorError, RuntimeError, ValueError) as error:
        raise WeightsError(f"{weights.name} does not fit the network {path.name} describes: {error}") from None
    policy.set_training_mode(False)
    return PolicyOnly(policy)


def _checked(d: Any, name: str) -> dict:
    """The description's fields, each of its type and within its bounds."""

    def fail(what: str) -> WeightsError:
        return WeightsError(f"{name}: {what}")

    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise fail(f"not a policy description (its 'format' is not {FORMAT!r})")
    if d.get("version") != VERSION:
        raise fail(f"description version {d.get('version')!r}; this fruit_envs reads version {VERSION}")
    try:
        spec = get_spec(d.get("game"))
    except (KeyError, ValueError, TypeError):
        raise fail(f"game {str(d.get('game'))[:40]!r} is not an installed game") from None
    players = d.get("players")
    if not isinstance(players, int) or isinstance(players, bool) or players not in spec.player_counts:
        raise fail(f"players must be one of {list(spec.player_counts)} for {spec.id}")
    config = spec.make_config(players)
    if d.get("observation_shape") != list(spec.observation_shape(config)) or d.get("num_actions") != spec.num_actions:
        raise fail(f"observation shape and action count are not those of {spec.id} with {players} players")
    arch = d.get("net_arch")
    layers = [*arch.get("pi", []), *arch.get("vf", [])] if isinstance(arch, dict) else arch
    if not isinstance(layers, list) or not all(
        isinstance(n, int) and not isinstance(n, bool) and 0 < n <= _LAYER_LIMIT for n in layers
    ):
        raise fail(f"net_arch must list hidden layer sizes in 1..{_LAYER_LIMIT} (or pi and vf lists)")
    if isinstance(arch, dict) and set(arch) != {"pi", "vf"}:
        raise fail("net_arch as an object has exactly the keys pi and vf")
    if d.get("activation") not in ACTIVATIONS:
        raise fail(f"activation must be one of {list(ACTIVATIONS)}")
    features = d.get("features")
    if not isinstance(features, dict) or features.get("kind") not in ("flatten", "row_encoder"):
        raise fail("features must be {'kind': 'flatten'} or {'kind': 'row_encoder', 'blocks': [...]}")
    if features["kind"] == "row_encoder":
        blocks = features.get("blocks")
        if not isinstance(blocks, list) or not all(
            isinstance(b, list) and len(b) == 3 and all(isinstance(v, int) and not isinstance(v, bool) for v in b)
            for b in blocks
        ):
            raise fail("row_encoder blocks must be [start, stop, width] triples of integers")
        for key in ("hidden", "per_row"):
            value = features.get(key, 1)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= _LAYER_LIMIT:
                raise fail(f"row_encoder {key} must be an integer in 1..{_LAYER_LIMIT}")
    if not isinstance(d.get("share_features_extractor"), bool):
        raise fail("share_features_extractor must be true or false")
    weights = d.get("weights")
    if not isinstance(weights, str) or Path(weights).name != weights or not weights.endswith(".safetensors"):
        raise fail("weights must name a .safetensors file beside it (a file name, no folder)")
    digest = d.get("weights_sha256")
    if not isinstance(digest, str) or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise fail("weights_sha256 must be 64 lowercase hex digits")
    return {**d, "spec": spec, "config": config}


def _network(d: dict):
    """A MaskableActorCriticPolicy of the described shape, from our own classes."""
    import gymnasium
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from fruit_envs.agents.networks import RowEncoder

    spec, config = d["spec"], d["config"]
    observation_space = gymnasium.spaces.Box(
        low=0.0, high=spec.rules.OBSERVATION_HIGH, shape=spec.observation_shape(config), dtype=spec.observation_dtype
    )
    kwargs: dict = {
        "net_arch": d["net_arch"],
        "activation_fn": {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[d["activation"]],
        "share_features_extractor": d["share_features_extractor"],
    }
    features = d["features"]
    if features["kind"] == "row_encoder":
        extra = {k: features[k] for k in ("hidden", "per_row") if k in features}
        kwargs.update(
            features_extractor_class=RowEncoder, features_extractor_kwargs={"blocks": features["blocks"], **extra}
        )
    try:
        return MaskableActorCriticPolicy(
            observation_space, gymnasium.spaces.Discrete(spec.num_actions), lambda _: 0.0, **kwargs
        )
    except (ValueError, RuntimeError) as error:
        raise WeightsError(f"the described network cannot be built: {error}") from None


def main(argv: list[str] | None = None) -> int:
    """Export a MaskablePPO model (a file you trust: its pickle is loaded) as weights and a description."""
    parser = argparse.ArgumentParser(prog="python -m fruit_envs.agents.weights", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("model", help="a MaskablePPO .zip you trust (from your own training)")
    parser.add_argument("--game", required=True, help="the game it plays")
    parser.add_argument("--players", type=int, required=True, help="the player count it plays")
    parser.add_argument("--out", required=True, help="folder for model.json and model.safetensors")
    args = parser.parse_args(argv)
    try:
        path = export_policy(args.model, args.game, args.players, args.out)
    except (KeyError, ValueError, OSError) as error:
        print(f"error: {str(error).strip(chr(39))}", file=sys.stderr)
        return 2
    print(f"wrote {path} and {path.with_suffix('.safetensors')}; play it as ppo:{path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
