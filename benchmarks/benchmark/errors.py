"""The benchmark's errors: a run refused before play, or stopped by the policy it measures."""

from __future__ import annotations

from fruit_envs.core import record as frecord


class BenchmarkError(ValueError):
    """A benchmark refused before play (unknown suite, game or policy; another environment version; a
    missing reference) or stopped by the policy; the message names what was wrong and what is allowed."""


class PolicyError(BenchmarkError):
    """The policy raised or returned a malformed or illegal action. `record` is the replayable position
    (a `GameRecord` of the game up to that decision), `report` what finished before it, `traceback` the
    policy's own traceback when it raised (also saved as failure_traceback.txt beside failure.jsonl)."""

    def __init__(
        self,
        message: str,
        record: frecord.GameRecord | None = None,
        report: dict | None = None,
        traceback: str | None = None,
    ):
        super().__init__(message)
        self.record, self.report, self.traceback = record, report, traceback


class Stopped(BenchmarkError):
    """The run was stopped (Ctrl-C): `kept` of `total` cells are kept in `out`, where `--resume` goes on."""

    def __init__(self, kept: int, total: int, out):
        super().__init__(f"stopped: {kept} of {total} cells kept" + (f" in {out}" if out is not None else ""))
        self.kept, self.total, self.out = kept, total, out
