"""What the command-line scripts share: the program name their `--help` shows, and argument types that
refuse bad values (a count below 1, a path that cannot be written) before any work starts."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from fruit_envs.core import validate


def prog(module: str) -> str:
    """`fruit-envs-...` when run as that console script, `python -m <module>` otherwise."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return name if name.startswith("fruit-envs-") else f"python -m {module}"


def integer(text: str) -> int:
    """An integer written in ASCII digits (`int()` would take '²' for a digit check and then fail)."""
    digits = text.strip().removeprefix("-").removeprefix("+")
    if not (digits.isascii() and digits.isdecimal()):
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}")
    return int(text)


def positive_int(text: str) -> int:
    value = integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def non_negative_int(text: str) -> int:
    value = integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def writable_file(text: str) -> Path:
    """A file path that can be written (checked now, not after a game or a run)."""
    try:
        return validate.writable_file(text, "file")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def writable_dir(text: str) -> Path:
    """A folder (existing or not) where files can be written."""
    try:
        return validate.writable_dir(text, "folder")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


class PlainProgress:
    """What a progress bar reports, as one plain line every `every` seconds (and one at the end): for
    output that is not a terminal, where a bar's redraws would fill a log file.

    Offers the part of tqdm's interface the commands use: `update`, `set_postfix`, `close`, `with`."""

    def __init__(self, total: int, initial: int = 0, unit: str = "it", desc: str = "", file=None, every: float = 5.0):
        self.total, self.n, self.unit, self.desc = total, initial, unit, desc
        self.file = file if file is not None else sys.stderr
        self.every, self.postfix = every, ""
        self.start = self.last = time.monotonic()
        self.initial, self.closed = initial, False

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.monotonic()
        if not self.closed and now - self.last >= self.every:
            self.last = now
            self._line(now)

    def set_postfix(self, ordered_dict=None, refresh: bool = True, **kwargs) -> None:
        items = {**(ordered_dict or {}), **kwargs}
        self.postfix = ", ".join(f"{k}={v}" for k, v in items.items())

    def _line(self, now: float) -> None:
        elapsed = max(now - self.start, 1e-9)
        rate = (self.n - self.initial) / elapsed
        share = f" ({100 * self.n / self.total:.0f}%)" if self.total else ""
        head = f"{self.desc}: " if self.desc else ""
        tail = f" {self.postfix}" if self.postfix else ""
        print(
            f"{head}{self.n:,}/{self.total:,} {self.unit}{share}, {elapsed:.0f} s, {rate:,.0f} {self.unit}/s{tail}",
            file=self.file,
            flush=True,
        )

    def close(self) -> None:
        if not self.closed:
            self._line(time.monotonic())
            self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def progress_bar(total: int, initial: int = 0, unit: str = "it", desc: str = "", disable: bool = False, file=None):
    """A tqdm bar on a terminal, `PlainProgress` lines when the output is redirected, nothing when `disable`."""
    from tqdm import tqdm

    file = file if file is not None else sys.stderr
    if not disable and not (hasattr(file, "isatty") and file.isatty()):
        return PlainProgress(total, initial, unit, desc, file)
    return tqdm(
        total=total, initial=initial, unit=unit, desc=desc or None, disable=disable, dynamic_ncols=True, file=file
    )
