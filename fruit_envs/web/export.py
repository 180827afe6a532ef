"""A replay as static files for a page with no server (the documentation site's game pages):

    python -m fruit_envs.web.export docs/replays/cherry_picking.jsonl OUT/   # OUT/replay.js + pictures

Up to `--frames` steps of the game, evenly spaced (the first and the last included), each drawn from every
perspective (the referee's and each seat's: what it knew then) by the game's picture module, with the
replay's caption for that perspective; `replay.js` registers them as `window.FRUIT_REPLAYS[NAME]` (a script,
not JSON, so a page opened from disk loads it). The site's `javascripts/replay-viewer.js` steps through them.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

import numpy as np

from fruit_envs.core import picture as fpicture
from fruit_envs.core import record as frecord


def frames_of(
    record: frecord.GameRecord, frames: int = 16, scale: float = 0.5, where: str = "record"
) -> tuple[dict, dict[str, bytes]]:
    """The viewer's data and its pictures (file name -> PNG bytes) for one recorded game, replayed and checked
    against what it states (a `RecordError` naming `where` if its replay contradicts it)."""
    from PIL import Image

    from fruit_envs.replay import caption

    replay = frecord.replay(record, where=where, check=True)
    last = len(replay.states) - 1
    steps = sorted({int(round(x)) for x in np.linspace(0, last, min(frames, last + 1))})
    p = int(record.config["num_players"])
    perspectives = ["referee", *(str(k) for k in range(p))]
    pictures, captions, files = {}, {}, {}
    for view in perspectives:
        seat = None if view == "referee" else int(view)
        pictures[view], captions[view] = [], []
        for t in steps:
            frame = fpicture.picture(replay.states[t], 0, seat, labels=record.players)
            image = Image.fromarray(frame)
            if scale != 1:
                image = image.resize((round(image.width * scale), round(image.height * scale)), Image.LANCZOS)
            buffer = io.BytesIO()  # flat-coloured drawings: a palette keeps them small and sharp
            image.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(buffer, format="PNG", optimize=True)
            name = f"{view}-{t}.png"
            files[name] = buffer.getvalue()
            pictures[view].append(name)
            captions[view].append(caption(replay, t, seat))
    labels = [(record.players or [""] * p)[k] or "?" for k in range(p)]
    data = {"game": record.game, "labels": labels, "steps": steps, "last": last, "perspectives": perspectives,
            "pictures": pictures, "captions": captions}  # fmt: skip
    return data, files


def replay_script(name: str, data: dict) -> str:
    """`replay.js`: registers the data under `name` (loadable from file:// pages, unlike JSON)."""
    return (
        "window.FRUIT_REPLAYS = window.FRUIT_REPLAYS || {};\n"
        f"window.FRUIT_REPLAYS[{json.dumps(name)}] = {json.dumps(data, separators=(',', ':'))};\n"
    )


def export(record_path: str | Path, out: str | Path, index: int = 0, frames: int = 16, scale: float = 0.5) -> Path:
    """Write game `index` of a record file into folder `out` (replay.js and the pictures); returns `out`."""
    records = frecord.read_records(record_path)
    if not 0 <= index < len(records):
        raise ValueError(f"{record_path} holds {len(records)} game(s); --index must be in 0..{len(records) - 1}")
    data, files = frames_of(records[index], frames, scale, where=f"{record_path} game {index}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (out / name).write_bytes(content)
    (out / "replay.js").write_text(replay_script(out.name, data))
    return out


def main(argv: list[str] | None = None) -> int:
    from fruit_envs._cli import prog

    parser = argparse.ArgumentParser(
        prog=prog("fruit_envs.web.export"), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("record", help="a game record file (.jsonl)")
    parser.add_argument("out", help="the folder to write (its name is the replay's name in the page)")
    parser.add_argument("--index", type=int, default=0, help="which game of the file (default 0)")
    parser.add_argument("--frames", type=int, default=16, help="steps shown, evenly spaced (default 16)")
    parser.add_argument("--scale", type=float, default=0.5, help="picture scale (default 0.5)")
    args = parser.parse_args(argv)
    if args.frames < 2 or not 0 < args.scale <= 2:
        print("error: --frames must be at least 2 and --scale in (0, 2]", file=sys.stderr)
        return 2
    try:
        print(f"wrote {export(args.record, args.out, args.index, args.frames, args.scale)}")
    except (OSError, ValueError) as error:  # RecordError included
        print("error: " + " ".join(str(error).split()), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
