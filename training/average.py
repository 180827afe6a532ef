"""Average the weights of several checkpoints of one run into one model (stochastic weight averaging).

    python -m fruit_envs.training.average runs/<run> --from-step 1000000 --out runs/<run>/averaged.zip
    python -m fruit_envs.training.average A.zip B.zip C.zip --out averaged.zip

Late in a PPO run the policy wanders around a better point than any single checkpoint reaches (each
update is noisy); the mean of the weights of checkpoints along that stretch sits nearer it (Izmailov et
al., 2018, "Averaging weights leads to wider optima and better generalization"). The result is the last
checkpoint with its policy and value weights replaced by the mean: it loads, plays and resumes like any
model. Every checkpoint must have the same network (shapes and names); anything else is refused.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import torch

from fruit_envs._cli import prog

STEP = re.compile(r"step_(\d+)\.zip$")


def checkpoints(run_dir: Path, from_step: int = 0, to_step: int | None = None) -> list[Path]:
    """A run's `checkpoints/step_*.zip` whose step is in `[from_step, to_step]`, in step order."""
    folder = run_dir / "checkpoints"
    if not folder.is_dir():
        raise ValueError(f"{str(run_dir)!r} is not a training run folder (it has no checkpoints/)")
    found = sorted((int(m.group(1)), p) for p in folder.iterdir() if (m := STEP.search(p.name)))
    chosen = [p for step, p in found if step >= from_step and (to_step is None or step <= to_step)]
    if not chosen:
        steps = [step for step, _ in found]
        raise ValueError(f"no checkpoint of {str(run_dir)!r} between steps {from_step} and {to_step}; it has {steps}")
    return chosen


def average(paths: list[Path]):
    """The last of `paths` (MaskablePPO zips) with its policy weights replaced by the mean of all of them."""
    from fruit_envs.agents.ppo import load_model

    if len(paths) < 2:
        raise ValueError(f"averaging needs at least two checkpoints, got {len(paths)}")
    models = [load_model(p) for p in paths]
    states = [m.policy.state_dict() for m in models]
    first = states[0]
    for path, state in zip(paths[1:], states[1:], strict=True):
        if state.keys() != first.keys() or any(state[k].shape != first[k].shape for k in first):
            raise ValueError(f"{str(path)!r} has another network than {str(paths[0])!r}: they cannot be averaged")
    mean = {
        k: torch.stack([s[k].double() for s in states]).mean(0).to(first[k].dtype)
        if first[k].is_floating_point()
        else states[-1][k]
        for k in first
    }
    model = models[-1]
    model.policy.load_state_dict(mean)
    return model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog("fruit_envs.training.average"), description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="+", type=Path, help="one run folder, or two or more model .zip files")
    parser.add_argument("--from-step", type=int, default=0, help="with a run folder: the first step to include")
    parser.add_argument("--to-step", type=int, default=None, help="with a run folder: the last step to include")
    parser.add_argument("--out", type=Path, required=True, help="where to write the averaged model (.zip)")
    args = parser.parse_args(argv)
    try:
        if len(args.sources) == 1 and args.sources[0].is_dir():
            paths = checkpoints(args.sources[0], args.from_step, args.to_step)
        else:
            missing = [str(p) for p in args.sources if not p.is_file()]
            if missing:
                raise ValueError(f"not a model file: {missing[0]!r} (give one run folder, or model .zip files)")
            paths = list(args.sources)
        taken = [p for p in (args.out, args.out.with_suffix(".json")) if p.exists()]
        if taken:
            raise ValueError(f"{str(taken[0])!r} exists; choose another --out (nothing is overwritten)")
        model = average(paths)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_name(args.out.name + ".tmp.zip")
    model.save(tmp)
    tmp.replace(args.out)
    sources = [str(p) for p in paths]
    args.out.with_suffix(".json").write_text(json.dumps({"averaged": sources}, indent=1) + "\n")
    print(f"averaged {len(paths)} checkpoints ({paths[0].name} .. {paths[-1].name}) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
