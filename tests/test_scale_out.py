"""Long jobs on all cores and on Ray (issue 57): the benchmark's cells as units of work, with the same numbers
whatever runs them, resumable after SIGKILL, a policy's fault reported as in one process."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fruit_envs.benchmarks import benchmark as bm
from fruit_envs.benchmarks.benchmark import BenchmarkError, PolicyError, evaluate

ROOT = Path(__file__).resolve().parents[1]
SMALL = {"suite": "quick", "games": 4, "progress": False, "only": ["cherry_picking", "juicy_fruits_solo"]}
TIMING = ("seconds", "wall_seconds", "started", "machine", "out", "card")  # and where the files went


def numbers(report: dict) -> dict:
    """A report without its timing and machine fields: what must not depend on who played the cells."""
    kept = json.loads(json.dumps({k: v for k, v in report.items() if k not in TIMING}, default=str))
    for cell in kept["cells"]:
        cell.pop("seconds")
    return kept


class RaisesInCherryPicking3p:
    """A policy object (sent to workers by pickling) that fails in one cell only."""

    name = "breaks-at-three"

    def act(self, obs, mask, rng):
        import numpy as np

        if mask.shape[1] == 60 and obs.shape[1] > 700:  # Cherry Picking with three players
            raise RuntimeError("the policy broke")
        return np.argmax(mask, axis=1)


def test_two_workers_and_ray_give_the_numbers_of_one_process():
    one = evaluate("greedy", workers=1, **SMALL)
    two = evaluate("greedy", workers=2, **SMALL)
    assert one["machine"]["backend"] == "1 worker" and two["machine"]["backend"] == "2 workers"
    assert numbers(two) == numbers(one)
    ray = evaluate("greedy", ray_address="local", workers=2, **SMALL)
    assert ray["machine"]["backend"] == "ray (local)" and numbers(ray) == numbers(one)


def test_a_policy_fault_in_a_worker_is_reported_as_in_one_process(tmp_path):
    kwargs = {**SMALL, "suite": "standard", "only": ["cherry_picking:2", "cherry_picking:3"], "references": ["random"]}
    errors = {}
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        with pytest.raises(PolicyError, match="raised RuntimeError: the policy broke") as raised:
            evaluate(RaisesInCherryPicking3p(), workers=workers, out=out, **kwargs)
        errors[workers] = raised.value
        assert (out / "failure.jsonl").is_file() and (out / "failure_traceback.txt").is_file()
        report = json.loads((out / "report.json").read_text())
        assert [(c["players"], c["reference"]) for c in report["cells"]] == [(2, "random")], "the finished cell"
    assert str(errors[2]).replace(str(tmp_path / "w2"), str(tmp_path / "w1")) == str(errors[1])
    assert errors[2].record.actions == errors[1].record.actions


def test_a_policy_that_cannot_be_sent_is_refused_before_any_game(tmp_path):
    import threading

    class Locked:
        name = "locked"
        lock = threading.Lock()

        def act(self, obs, mask, rng):
            return mask.argmax(axis=1)

    with pytest.raises(BenchmarkError, match="cannot be sent to worker processes.*import path"):
        evaluate(Locked(), workers=2, out=tmp_path, **SMALL)
    assert not (tmp_path / "report.json").exists()
    assert evaluate(Locked(), workers=1, **SMALL)["status"] == "complete", "one process needs no sending"


def test_bad_workers_and_ray_addresses_are_clear_errors():
    with pytest.raises(BenchmarkError, match="workers must be a positive integer"):
        evaluate("greedy", workers=0, **SMALL)
    with pytest.raises(BenchmarkError, match="ray address"):
        evaluate("greedy", ray_address="somewhere", **SMALL)


def test_a_killed_run_goes_on_where_it_stopped_with_the_same_numbers(tmp_path):
    """SIGKILL after a few cells are saved; the same command on the same folder plays only the others and
    writes the report an uninterrupted run writes."""
    out = tmp_path / "run"
    command = [sys.executable, "-m", "fruit_envs.benchmarks.benchmark", "greedy", "--suite", "quick"]
    command += ["--games-per-cell", "8", "--out", str(out), "--workers", "1", "--no-progress"]
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while len(list((out / "units").glob("*.pkl"))) < 3:
        assert process.poll() is None, process.stderr.read().decode()[-2000:]
        assert time.monotonic() < deadline
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    saved = len(list((out / "units").glob("*.pkl")))
    assert not (out / "report.json").exists() and 3 <= saved < 17
    resumed = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    report = json.loads((out / "report.json").read_text())
    assert report["machine"]["cells_resumed"] == saved, "only the unfinished cells were played again"
    assert not (out / "units").exists(), "the report holds every cell: the saved units are removed"
    whole = evaluate("greedy", suite="quick", games=8, progress=False)
    assert numbers(report) == numbers(whole)


def test_resume_finds_the_newest_stopped_run_of_the_policy(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    stopped = bm.default_out("greedy", "quick")
    units_dir = stopped / "units"
    units_dir.mkdir(parents=True)
    (units_dir / "job.json").write_text("{}")
    assert bm.latest_run("greedy", "quick") == stopped
    assert bm.latest_run("random", "quick") is None
    assert bm.main(["random", "--suite", "quick", "--resume", "--no-progress"]) == 2
    assert "no stopped run of random" in capsys.readouterr().err


@pytest.mark.skipif(os.environ.get("CI") == "true" and sys.platform != "linux", reason="ray start: Linux CI only")
def test_a_two_node_ray_cluster_plays_the_cells_on_both_nodes(tmp_path, monkeypatch):
    """A head and a second node on this machine (`ray start`, one CPU each): a small benchmark and a
    demonstrations job spread their units over both and give the numbers and the file of one process."""
    import numpy as np

    from fruit_envs.core.spec import get_spec
    from fruit_envs.training import bc

    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    play = {"teacher": "greedy", "games": 2 * bc.UNIT_GAMES + 10, "seed": 5}
    ray = Path(sys.executable).parent / "ray"
    port = "63791"
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token"}  # only holders of the token join
    start = [str(ray), "start", "--num-cpus", "1", "--disable-usage-stats"]
    try:
        for role in (["--head", "--port", port, "--include-dashboard", "false"], ["--address", f"127.0.0.1:{port}"]):
            started = subprocess.run([*start, *role, "--node-ip-address", "127.0.0.1"], env=env, capture_output=True,
                                     text=True, timeout=180)  # fmt: skip
            assert started.returncode == 0, started.stdout[-2000:] + started.stderr[-2000:]
        monkeypatch.setenv("RAY_AUTH_MODE", "token")
        report = evaluate("greedy", ray_address=f"127.0.0.1:{port}", **{**SMALL, "games": 8})
        demos = bc.play_demonstrations(spec, config, ray_address=f"127.0.0.1:{port}", folder=tmp_path, **play)
    finally:
        subprocess.run([str(ray), "stop", "--force"], env=env, capture_output=True, timeout=120)
    nodes = report["machine"]["nodes"]
    assert len(nodes) == 2 and all(nodes.values()), f"both nodes ran cells: {nodes}"
    assert numbers(report) == numbers(evaluate("greedy", workers=1, **{**SMALL, "games": 8}))
    ran_on = set()
    for saved in (tmp_path / "units").glob("games-*.pkl"):
        with saved.open("rb") as f:
            ran_on.add(pickle.load(f)["where"]["node"])
    assert len(ran_on) == 2, f"both nodes played demonstration games: {ran_on}"
    one = bc.play_demonstrations(spec, config, workers=1, **play)
    fields = ("obs", "mask", "actions", "returns", "potential")
    assert all(np.array_equal(getattr(one, f), getattr(demos, f)) for f in fields) and one.meta == demos.meta


def test_a_tournament_gives_the_same_summary_and_records_on_two_workers(tmp_path):
    from fruit_envs.benchmarks import tournament
    from fruit_envs.core import record as frecord

    summaries, records = [], []
    for workers in (1, 2):
        record = tmp_path / f"games{workers}.jsonl"
        summary = tournament.run(
            "cherry_picking", ["random", "greedy", "search:rollouts=4,depth=2"], 3, 4, 7, None, progress=False,
            record=record, workers=workers,
        )  # fmt: skip
        summaries.append({k: v for k, v in summary.items() if k not in ("seconds", "date", "record")})
        records.append([(r.key, r.actions, r.players, r.outcome) for r in frecord.read_records(record)])
    assert summaries[0] == summaries[1] and records[0] == records[1] and len(records[0]) == 6 * 4


def test_demonstrations_are_the_same_file_on_two_workers_and_resume_from_saved_units(tmp_path):
    import numpy as np

    from fruit_envs.core.spec import get_spec
    from fruit_envs.training import bc

    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    play = {"teacher": "greedy", "games": 2 * bc.UNIT_GAMES + 10, "seed": 3}
    one = bc.play_demonstrations(spec, config, workers=1, **play)
    two = bc.play_demonstrations(spec, config, workers=2, folder=tmp_path, **play)
    fields = ("obs", "mask", "actions", "returns", "potential")
    assert all(np.array_equal(getattr(one, f), getattr(two, f)) for f in fields) and one.meta == two.meta
    assert one.meta["games"] == play["games"] and one.meta["units"] == 3
    (tmp_path / "units" / "games-0000050.pkl").unlink()  # as if stopped before that unit
    again = bc.play_demonstrations(spec, config, workers=1, folder=tmp_path, **play)
    assert all(np.array_equal(getattr(one, f), getattr(again, f)) for f in fields)
    out = tmp_path / "demos.npz"
    args = ["--game", "cherry_picking", "--games", "60", "--workers", "2", "--out", str(out)]
    assert bc.main(args) == 0 and len(bc.Demonstrations.load(out)) > 0
    assert not (tmp_path / "demos.npz.parts").exists(), "the finished units are removed once the file is written"
