"""Units of work (issue 57, `fruit_envs.core.units`): the same results in their order on one process, local
workers or Ray; every finished unit saved at once; a stopped job goes on where it stopped; a dead worker is
retried, then named."""

from __future__ import annotations

import os
import pickle
import signal
import time

import pytest

from fruit_envs.core import units


def square(x: int) -> int:
    return x * x


def where(x: int) -> tuple[int, int]:
    return x, os.getpid()


def slow_where(x: int) -> tuple[int, int]:
    """Long enough that a job of several units keeps two workers busy."""
    time.sleep(0.3)
    return x, os.getpid()


def boom(x: int) -> int:
    raise KeyError(f"unit {x} fails")


def square_marked(x: int, marker: str) -> int:
    open(marker, "w").close()
    return x * x


def die_after(x: int, marker: str) -> int:
    """Kills its worker once `marker` exists and a moment has passed: the other unit's result is back by then,
    however loaded the machine (a worker's death breaks the pool and loses the units still in it)."""
    for _ in range(600):
        if os.path.exists(marker):
            break
        time.sleep(0.05)
    time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGKILL)


def die_once(x: int, flag: str) -> int:
    """Kills its worker the first time (no flag file yet), then returns."""
    if not os.path.exists(flag):
        open(flag, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return x + 100


def jobs(n: int, fn=square, *extra) -> list[units.Unit]:
    return [units.Unit(f"u{i}", fn, (i, *extra), games=1) for i in range(n)]


def test_results_come_back_in_the_units_order_whatever_runs_them():
    expected = [i * i for i in range(7)]
    assert units.run_units(jobs(7), progress=False) == expected
    local = units.backend(workers=2)
    assert units.run_units(jobs(7), local, progress=False) == expected
    assert len(local.used) == 1  # one host


def test_local_workers_are_other_processes():
    found = units.run_units(jobs(6, where), units.backend(workers=2), progress=False)
    assert [x for x, _ in found] == list(range(6))
    pids = {pid for _, pid in found}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2


def test_the_costliest_units_start_first_on_workers_and_results_keep_the_units_order():
    costed = [units.Unit(f"u{i}", square, (i,), 1, cost) for i, cost in enumerate([1.0, 5.0, 3.0, 5.0])]
    assert [u.key for u in units._order(costed, units.backend(workers=2))] == ["u1", "u3", "u2", "u0"]
    assert [u.key for u in units._order(costed, units.backend(ray_address="auto"))] == ["u1", "u3", "u2", "u0"]
    assert units._order(costed, units.backend(workers=1)) == costed  # one process: the job's own order
    assert units.run_units(costed, units.backend(workers=2), progress=False) == [0, 1, 4, 9]


def test_warmed_workers_serve_the_job_and_the_next_one_from_the_same_folder(tmp_path, monkeypatch):
    local = units.backend(workers=2)
    units.warm(local, ("json", "fruit_envs.core.units"))
    first = {pid for _, pid in units.run_units(jobs(4, slow_where), local, progress=False)}
    again = {pid for _, pid in units.run_units(jobs(4, slow_where), units.backend(workers=2), progress=False)}
    assert os.getpid() not in first and len(first) == 2 and again == first, "the second job reuses the workers"
    monkeypatch.chdir(tmp_path)  # a policy's module would now be imported from here: new workers
    moved = {pid for _, pid in units.run_units(jobs(4, slow_where), units.backend(workers=2), progress=False)}
    assert not moved & first
    units.warm(units.backend(workers=1))  # nothing to start in-process
    units.warm(units.backend(ray_address="local"))  # nor on Ray: no cluster is started by warming


def test_finished_units_are_saved_and_a_rerun_plays_only_the_others(tmp_path):
    ran = []

    def note(unit, result):
        ran.append(unit.key)

    units.run_units(jobs(3), folder=tmp_path, job={"job": "t"}, progress=False)
    saved = sorted(p.name for p in (tmp_path / "units").iterdir())
    assert saved == ["job.json", "u0.pkl", "u1.pkl", "u2.pkl"]
    (tmp_path / "units" / "u1.pkl").unlink()  # as if the run had stopped before it
    with (tmp_path / "units" / "u0.pkl").open("rb") as f:
        assert pickle.load(f)["result"] == 0
    calls = []
    original = square

    def counted(x):
        calls.append(x)
        return original(x)

    again = [units.Unit(u.key, counted, u.args, u.games) for u in jobs(3)]
    assert units.run_units(again, folder=tmp_path, job={"job": "t"}, progress=False, on_result=note) == [0, 1, 4]
    assert calls == [1] and sorted(ran) == ["u0", "u1", "u2"]


def test_a_folder_of_another_job_is_refused_by_name(tmp_path):
    units.run_units(jobs(2), folder=tmp_path, job={"job": "t", "seed": 1}, progress=False)
    with pytest.raises(units.UnitError, match="another job.*seed"):
        units.run_units(jobs(2), folder=tmp_path, job={"job": "t", "seed": 2}, progress=False)


def test_a_units_own_error_reaches_the_caller_as_raised(tmp_path):
    for runner in (units.Backend(), units.backend(workers=2)):
        # both units fail; with two workers either may surface first
        with pytest.raises(KeyError, match="unit [01] fails"):
            units.run_units(jobs(2, boom), runner, progress=False)


def test_a_dead_worker_is_retried_then_the_job_stops_naming_the_unit(tmp_path):
    flag = tmp_path / "died"
    mixed = [units.Unit("fine", square, (3,), 1), units.Unit("flaky", die_once, (1, str(flag)), 1)]
    assert units.run_units(mixed, units.backend(workers=2), progress=False) == [9, 101]
    marker = str(tmp_path / "fine-ran")
    doomed = [units.Unit("fine", square_marked, (3, marker), 1), units.Unit("doomed", die_after, (1, marker), 1)]
    with pytest.raises(units.UnitError, match="doomed.*kept in") as error:
        units.run_units(doomed, units.backend(workers=2, retries=1), folder=tmp_path / "run", progress=False)
    assert "died 2 times" in str(error.value)
    assert (tmp_path / "run" / "units" / "fine.pkl").exists()  # what finished is kept


def test_bad_backends_are_refused_with_what_is_allowed():
    with pytest.raises(ValueError, match="positive integer"):
        units.backend(workers=0)
    with pytest.raises(ValueError, match="ray address"):
        units.backend(ray_address="nowhere")
    with pytest.raises(ValueError, match="distinct"):
        units.run_units([units.Unit("a", square, (1,)), units.Unit("a", square, (2,))], progress=False)


def test_something_that_cannot_be_sent_is_named_before_any_work():
    import threading

    lock = threading.Lock()
    with pytest.raises(ValueError, match="cannot be sent.*import path"):
        units.check_sendable(lambda: lock, "policy 'x'", "give it by import path")


def test_the_scaling_estimate_schedules_the_longest_units_first():
    """`benchmarks.scale_out`: wall time on k workers from each cell's measured cost, bounded by the longest."""
    from fruit_envs.benchmarks.scale_out import makespan, table

    assert makespan([5, 3, 3, 2, 2, 1], 1) == 16
    assert makespan([5, 3, 3, 2, 2, 1], 2) == 8  # 5+2+1 | 3+3+2
    assert makespan([5, 3, 3, 2, 2, 1], 64) == 5  # the longest unit bounds it
    report = {"cells": [{"game": "g", "players": 2, "reference": r, "seconds": s} for r, s in (("a", 90), ("b", 30))]}
    text = table(report, [1, 8])
    assert "the longest, g 2p vs a, takes 90 s" in text and "| 8 | 90 s |" in text and "| 1 | 2.0 min |" in text


CTRL_C_JOB = """
import signal, sys, time
from fruit_envs.core import units

def busy(i):
    started = time.time()
    while time.time() - started < 60:
        sum(range(10000))
    return i

if __name__ == "__main__":
    print("started", flush=True)
    try:
        units.run_units([units.Unit(f"u{i}", busy, (i,), 1) for i in range(4)], units.backend(2, None), progress=False)
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # stopping: as the commands do, a further Ctrl-C is not news
        print("stopped", flush=True)
        sys.exit(130)
"""


def test_two_ctrl_cs_at_once_stop_a_job_on_workers_within_seconds(tmp_path):
    """Ctrl-C reaches the whole process group, twice: the job stops, its workers are killed (none outlive it),
    and the shutdown neither hangs nor prints a traceback."""
    import subprocess
    import sys

    psutil = pytest.importorskip("psutil")
    script = tmp_path / "job.py"
    script.write_text(CTRL_C_JOB)
    job = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert job.stdout.readline().strip() == "started"
        parent = psutil.Process(job.pid)
        deadline = time.time() + 60
        while len(parent.children(recursive=True)) < 2 and time.time() < deadline:
            time.sleep(0.2)
        workers = parent.children(recursive=True)
        assert len(workers) >= 2, "the job's workers did not start"
        time.sleep(1.0)
        started = time.time()
        os.killpg(job.pid, signal.SIGINT)
        time.sleep(0.1)
        os.killpg(job.pid, signal.SIGINT)
        out, err = job.communicate(timeout=30)
        assert time.time() - started < 15, "stopping took too long"
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
    assert job.returncode == 130 and "stopped" in out
    assert "Traceback" not in err and "Exception ignored" not in err, err
    time.sleep(1.0)
    assert not [w for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE], (
        "a worker outlived the job"
    )
