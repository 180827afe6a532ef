"""A card's games file, `games.npz` beside `card.json`: every game's actions, so `verify` can replay every game
through the rules without the policy.

Two arrays in a zip of `.npy` files, games in card order (cell by cell, each cell's games in its order):
`lengths` (`<u4`, one per game) and `actions` (`|u1`, or `<u2` where a game has more than 256 actions to
choose from: every game's actions one after another). The card binds the file's content without naming it:
each game's actions must give the card's `actions_sha256` for that game, which its digest and the Merkle roots
already bind. The file is data: read with size limits the card sets, never unpickled.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np

from fruit_envs.benchmarks.benchmark.errors import BenchmarkError

GAMES_FILE = "games.npz"
_MEMBERS = ("lengths.npy", "actions.npy")
_HEADER_LIMIT = 4096  # bytes of a member's .npy header: a few dozen in practice
_DATE = (1980, 1, 1, 0, 0, 0)  # every member's time stamp: the same games give the same bytes


def write_games(folder: str | Path, games: list[list[np.ndarray]]) -> Path:
    """The games file `games.npz` in `folder`, from every cell's games' actions (`games[cell][game]`, in card
    order), written whole or not at all; the same games always give the same bytes."""
    flat = [np.asarray(actions, dtype=np.int64) for cell in games for actions in cell]
    lengths = np.array([len(actions) for actions in flat], dtype="<u4")
    joined = np.concatenate(flat) if flat else np.zeros(0, dtype=np.int64)
    if len(joined) and (joined.min() < 0 or joined.max() >= 1 << 16):
        raise BenchmarkError("a game's actions must lie in 0..65535 to be stored")
    dtype = "|u1" if not len(joined) or joined.max() < 256 else "<u2"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, array in zip(_MEMBERS, (lengths, joined.astype(dtype)), strict=True):
            member = io.BytesIO()
            np.lib.format.write_array(member, array, allow_pickle=False)
            archive.writestr(zipfile.ZipInfo(name, _DATE), member.getvalue(), zipfile.ZIP_DEFLATED)
    path = Path(folder) / GAMES_FILE
    partial = path.with_suffix(".npz.partial")
    partial.write_bytes(buffer.getvalue())
    partial.replace(path)
    return path


def read_games(folder: str | Path, counts: list[int], longest: list[int]) -> list[list[np.ndarray]]:
    """Every cell's games' actions from the games file in `folder` (`int64` arrays, `[cell][game]`), where cell k has
    `counts[k]` games of at most `longest[k]` actions; a `FileNotFoundError` where there is none, a
    `BenchmarkError` naming what is wrong with a file that is not such a games file."""
    path = Path(folder) / GAMES_FILE
    total, most = sum(counts), max(longest, default=0)
    if not path.is_file():
        raise FileNotFoundError(path)
    if path.stat().st_size > 2 * (4 * total + 2 * sum(c * n for c, n in zip(counts, longest, strict=True))) + (1 << 16):
        raise BenchmarkError(f"{GAMES_FILE} is larger than the card's games can fill")
    try:
        with zipfile.ZipFile(path) as archive:
            infos = {info.filename: info for info in archive.infolist()}
            if sorted(infos) != sorted(_MEMBERS):
                raise BenchmarkError(f"{GAMES_FILE} holds {sorted(infos)[:4]}, not {list(_MEMBERS)}")
            lengths = _member(archive, infos["lengths.npy"], ("<u4",), total, 4)
            if len(lengths) != total:
                raise BenchmarkError(f"{GAMES_FILE} holds {len(lengths)} games, the card {total}")
            limit = int(sum(min(int(n), most) for n in lengths))
            actions = _member(archive, infos["actions.npy"], ("|u1", "<u2"), limit, 2)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, KeyError) as error:
        raise BenchmarkError(f"{GAMES_FILE} is not a games file: {error}") from None
    if int(lengths.sum(dtype=np.int64)) != len(actions):
        raise BenchmarkError(f"{GAMES_FILE}: its games' lengths add up to {int(lengths.sum())}, not {len(actions)}")
    out, start, game = [], 0, 0
    for count, cap in zip(counts, longest, strict=True):
        cell = []
        for _ in range(count):
            n = int(lengths[game])
            if n > cap:
                raise BenchmarkError(f"{GAMES_FILE}: game {game} has {n} actions, more than its game's {cap}")
            cell.append(actions[start : start + n].astype(np.int64))
            start, game = start + n, game + 1
        out.append(cell)
    return out


def _member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, dtypes: tuple, count: int, itemsize: int) -> np.ndarray:
    """A one-dimensional array of at most `count` items of one of `dtypes`, read from its stated size only."""
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise BenchmarkError(f"{GAMES_FILE}: {info.filename} is compressed by an unknown method")
    if info.file_size > _HEADER_LIMIT + count * itemsize:
        raise BenchmarkError(f"{GAMES_FILE}: {info.filename} is larger than the card's games can fill")
    with archive.open(info) as member:
        data = member.read(info.file_size + 1)
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        reader = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
        if version not in reader:
            raise BenchmarkError(f"{GAMES_FILE}: {info.filename} is .npy version {version}")
        shape, fortran, dtype = reader[version](stream, max_header_size=_HEADER_LIMIT)
    except ValueError as error:
        raise BenchmarkError(f"{GAMES_FILE}: {info.filename} is not an array: {error}") from None
    if dtype.str not in dtypes or len(shape) != 1 or fortran or shape[0] > count:
        raise BenchmarkError(
            f"{GAMES_FILE}: {info.filename} must be one row of {' or '.join(dtypes)}, at most {count} long; "
            f"it is {dtype.str} of shape {shape}"
        )
    body = data[stream.tell() :]
    if len(body) != shape[0] * dtype.itemsize:
        raise BenchmarkError(f"{GAMES_FILE}: {info.filename} holds {len(body)} bytes for {shape[0]} items")
    return np.frombuffer(body, dtype=dtype)
