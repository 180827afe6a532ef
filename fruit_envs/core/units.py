"""Independent units of work run in this process, on local worker processes or on a Ray cluster, each result
saved as it finishes, so a stopped run goes on where it stopped (issue 57).

Every long job (a benchmark's cells, a tournament's seatings, demonstration games, search-strength matches)
is a list of `Unit`s: a module-level function and its arguments, carrying its own seeds, so what a unit
returns does not depend on where or beside what it ran. `run_units` runs them and returns their results in
the units' order, whatever order they finished in: the same numbers for one worker, many, or a cluster.

- `workers=1`: in this process, one unit after another.
- `workers=N` (default: `core.threads.usable_cores()`): N local processes (loky's reusable process pool: a
  script without an `if __name__ == "__main__"` guard is not run again in them, and the next job of the
  same process finds them started), each with one torch thread; at most N units in flight, the costliest
  first (`Unit.cost`; on Ray too). `warm` starts them while the caller still checks its job.
- `ray_address`: `"local"` starts a Ray instance on this machine, `"auto"` joins the one `ray start` runs
  here, `"ray://host:port"` a remote cluster (Ray is the `distributed` extra). Functions travel by reference
  (the same code must be installed on every node), arguments by Ray's serializer.

With a `folder`, each finished unit is written there at once (`units/<key>.pkl`, atomically: a write to a
temporary file then a rename), beside `units/job.json`, what the job is. Running the same job on the same
folder again loads the finished units and runs only the others: a run stopped by SIGTERM or SIGKILL loses
at most the units in flight. A folder holding another job's units is refused by name. A worker that dies
(killed, out of memory, a lost Ray node) is replaced and its units are run again, up to `retries` times
each; then `UnitError` names them, every finished unit kept. An exception a unit raises (a policy's fault)
reaches the caller as it was raised.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RETRIES = 2  # runs of a unit again after its worker died, before the job stops
RESUMED = "resumed"  # `Backend.used`'s entry of the units loaded from the folder rather than run
POOL_IDLE = 300  # seconds local workers wait for the next job of this process before they exit


@dataclass(frozen=True)
class Unit:
    """One independent piece of a job: `fn(*args)` (a module-level function: it travels by reference).
    `key` names it within the job (a file name: letters, digits, `._-`); `games` counts it for progress."""

    key: str
    fn: Callable
    args: tuple = ()
    games: int = 0
    cost: float = 0.0  # its expected run time on any scale: the costliest units start first (no long tail)


class UnitError(RuntimeError):
    """A unit's worker died more often than `retries` allows (or the job's folder is another job's); the
    message names the units and the folder keeping every finished one."""


@dataclass
class Backend:
    """Where units run: `workers` local processes (1: this process), or a Ray cluster at `ray_address`."""

    workers: int = 1
    ray_address: str | None = None
    retries: int = RETRIES
    used: dict = field(default_factory=dict)  # filled by `run_units`: the units run on each host or Ray node,
    # and under RESUMED those loaded from the folder

    @property
    def label(self) -> str:
        return f"ray ({self.ray_address})" if self.ray_address else f"{self.workers} worker{'s' * (self.workers > 1)}"


def backend(workers: int | None = None, ray_address: str | None = None, retries: int = RETRIES) -> Backend:
    """The backend a job's `workers=` and `ray_address=` name; a ValueError for anything else."""
    from fruit_envs.core import validate
    from fruit_envs.core.threads import usable_cores

    if ray_address is not None:
        if not isinstance(ray_address, str) or not (
            ray_address in ("local", "auto") or ray_address.startswith("ray://") or ":" in ray_address
        ):
            raise ValueError(f"ray address: 'local', 'auto', 'ray://host:port' or host:port, got {ray_address!r}")
    if workers is None:
        workers = usable_cores()
    elif not validate.is_int(workers) or workers < 1:
        raise ValueError(f"workers must be a positive integer (processes), got {workers!r}")
    if not validate.is_int(retries) or retries < 0:
        raise ValueError(f"retries must be a non-negative integer, got {retries!r}")
    return Backend(int(workers), ray_address, int(retries))


class Store:
    """A job's folder of finished units: `units/job.json` names the job, `units/<key>.pkl` holds each result."""

    def __init__(self, folder: str | Path, job: dict):
        self.path = Path(folder) / "units"
        self.job = json.loads(json.dumps(job, default=str))  # as written: a resumed job compares equal
        marker = self.path / "job.json"
        if marker.exists():
            saved = json.loads(marker.read_text())
            if saved != self.job:
                differ = sorted(k for k in set(saved) | set(self.job) if saved.get(k) != self.job.get(k))
                raise UnitError(
                    f"{self.path} holds the units of another job (it differs in {', '.join(differ)}); run it in "
                    f"a new folder, or remove that folder to start again"
                )
        else:
            self.path.mkdir(parents=True, exist_ok=True)
            _write_atomic(marker, json.dumps(self.job, indent=2).encode())

    def load(self, key: str) -> tuple[bool, Any]:
        path = self.path / f"{key}.pkl"
        if not path.exists():
            return False, None
        with path.open("rb") as f:
            return True, pickle.load(f)["result"]

    def save(self, key: str, result: Any, where: dict) -> None:
        _write_atomic(self.path / f"{key}.pkl", pickle.dumps({"result": result, "where": where}))

    def where(self) -> dict[str, dict]:
        """Where each finished unit ran (pid and host, or Ray node)."""
        out = {}
        for path in sorted(self.path.glob("*.pkl")):
            with path.open("rb") as f:
                out[path.stem] = pickle.load(f)["where"]
        return out


def _write_atomic(path: Path, data: bytes) -> None:
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def forget(folder: str | Path) -> None:
    """Remove a finished job's saved units (`folder/units`), once what they made is written."""
    import shutil

    shutil.rmtree(Path(folder) / "units", ignore_errors=True)


def run_units(
    units: Sequence[Unit],
    backend: Backend | None = None,
    folder: str | Path | None = None,
    job: dict | None = None,
    progress: bool = True,
    desc: str = "units",
    unit: str = "game",
    on_result: Callable[[Unit, Any], None] | None = None,
) -> list:
    """The results of `units`, in their order: loaded from `folder` where a finished unit is saved, run on
    `backend` (default: this process) otherwise, each saved as it finishes. `on_result(unit, result)` is
    called for each as it finishes, in finishing order (loaded ones first)."""
    from fruit_envs._cli import progress_bar

    backend = backend or Backend()
    keys = [u.key for u in units]
    if len(set(keys)) != len(keys):
        raise ValueError(f"unit keys must be distinct, got {sorted(k for k in keys if keys.count(k) > 1)}")
    store = None if folder is None else Store(folder, {**(job or {}), "units": keys})
    results: dict[str, Any] = {}
    for u in units:
        found, value = store.load(u.key) if store is not None else (False, None)
        if found:
            results[u.key] = value
            backend.used.setdefault(RESUMED, []).append(u.key)
            if on_result is not None:
                on_result(u, value)
    todo = _order([u for u in units if u.key not in results], backend)
    total = sum(u.games for u in units)
    done_games = total - sum(u.games for u in todo)
    with progress_bar(total or len(units), unit=unit, desc=desc, disable=not progress, initial=done_games) as bar:

        def finished(u: Unit, value: Any, where: dict) -> None:
            results[u.key] = value
            backend.used.setdefault(where.get("node") or where.get("host", "?"), []).append(u.key)
            if store is not None:
                store.save(u.key, value, where)
            if on_result is not None:
                on_result(u, value)
            bar.update(u.games if total else 1)
            if hasattr(bar, "set_postfix"):
                bar.set_postfix(units=f"{len(results)}/{len(units)}")

        if todo:
            if backend.ray_address is not None:
                _run_ray(todo, backend, finished, store)
            elif backend.workers > 1 and len(todo) > 1:
                _run_local(todo, backend, finished, store)
            else:
                for u in todo:
                    finished(u, u.fn(*u.args), _where())
    return [results[k] for k in keys]


def _order(todo: list[Unit], backend: Backend) -> list[Unit]:
    """The order units start in: the costliest first where several run at once (so no long unit is left
    for the end), their own order in this process (progress reads as the job is written)."""
    if backend.ray_address is None and backend.workers == 1:
        return todo
    return sorted(todo, key=lambda u: -u.cost)  # stable: ties keep their order


def _where() -> dict:
    import socket

    return {"pid": os.getpid(), "host": socket.gethostname()}


def _call(fn: Callable, args: tuple) -> tuple[Any, dict]:
    """A unit in a worker: its result and where it ran."""
    return fn(*args), _where()


def warm(backend: Backend, modules: Sequence[str] = ()) -> None:
    """Start `backend`'s local workers now, each importing `modules`, while this process goes on (checking its
    job before the first unit): the first units then find them ready. Nothing to do in-process or on Ray."""
    if backend.ray_address is None and backend.workers > 1:
        pool = _pool(backend)
        with _no_ctrl_c():  # the workers start here
            for _ in range(backend.workers):
                pool.submit(_import, tuple(modules))


def _pool(backend: Backend):
    """The process's reusable pool of `backend.workers`: a new one when the folder or import path has changed
    since it started (its workers import a policy's module from where the caller is now)."""
    import hashlib
    import sys

    from loky import get_reusable_executor

    where = hashlib.sha256(repr((os.getcwd(), sys.path)).encode()).hexdigest()[:16]
    return get_reusable_executor(
        backend.workers, initializer=_init_worker, timeout=POOL_IDLE, env={"FRUIT_ENVS_POOL": where}
    )


def _import(modules: tuple[str, ...]) -> None:
    import importlib

    for name in modules:
        importlib.import_module(name)


def _init_worker() -> None:
    """A worker's set-up: its thread limits, and Ctrl-C left to the job's own process (the terminal sends it to
    the whole process group; the job stops its workers itself, so a unit is never taken for a dead worker's)."""
    import signal

    from fruit_envs.core.threads import limit_threads

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    limit_threads()


def _stopped(units: list[Unit], store: Store | None, why: str) -> UnitError:
    kept = f"; the finished units are kept in {store.path} (run the job again there to go on)" if store else ""
    names = ", ".join(u.key for u in units)
    return UnitError(f"{why}: unit{'s' * (len(units) > 1)} {names}{kept}")


def _run_local(todo: list[Unit], backend: Backend, finished: Callable, store: Store | None) -> None:
    """At most `backend.workers` units in flight, so a dead worker's units are known; a dead pool is replaced.
    The pool stays up after a job that went well, for the next (`POOL_IDLE`); any other end stops it."""
    queue, failures = list(todo), {u.key: 0 for u in todo}
    while queue:
        pool = _pool(backend)
        flight: dict = {}
        try:
            while queue or flight:
                while queue and len(flight) < backend.workers:
                    u = queue.pop(0)
                    with _no_ctrl_c():  # a submit may start a worker
                        flight[pool.submit(_call, u.fn, u.args)] = u
                done, _ = wait(flight, return_when=FIRST_COMPLETED)
                for future in done:
                    if future.exception() is not None and not isinstance(future.exception(), BrokenProcessPool):
                        _drain(flight, finished, future)
                    value, where = future.result()  # a unit's own exception is raised here, as it was raised
                    finished(flight.pop(future), value, where)
        except BrokenProcessPool:
            _shut(pool)
            lost = list(flight.values())
            for u in lost:
                failures[u.key] += 1
            over = [u for u in lost if failures[u.key] > backend.retries]
            if over:
                raise _stopped(over, store, f"a worker died {backend.retries + 1} times running it") from None
            queue = lost + queue  # run again, first
        except BaseException:
            _shut(pool)
            raise


def _drain(flight: dict, finished: Callable, failed) -> None:
    """A unit raised: let the others in flight finish and keep them (nothing finished is lost), then raise its
    error. No unit starts after it."""
    import sys

    others = [f for f in flight if f is not failed]
    if others:
        print(
            f"{flight[failed].key} failed; waiting for the {len(others)} unit(s) in flight to finish and be kept",
            file=sys.stderr,
        )
    for future in others:
        try:
            value, where = future.result()
        except Exception:  # the first error is the one reported
            continue
        finished(flight.pop(future), value, where)
    failed.result()


def _shut(pool) -> None:
    """Stop a pool at once: its workers ended, a unit still running lost (it was not saved). A second Ctrl-C while
    the workers are killed is ignored, so the shutdown finishes instead of hanging."""
    with _no_ctrl_c():
        pool.shutdown(wait=True, kill_workers=True)


@contextlib.contextmanager
def _no_ctrl_c():
    """Ctrl-C ignored inside (in the main thread; elsewhere signals cannot be set): while workers are killed, and
    while they are started, so a new worker inherits the ignoring and a Ctrl-C to the process group never
    interrupts its start-up (the job's own process stops it)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _run_ray(todo: list[Unit], backend: Backend, finished: Callable, store: Store | None) -> None:
    """Every unit a Ray task (one CPU each; Ray reruns a task whose worker or node died, `retries` times)."""
    try:
        import ray
    except ImportError:
        raise ValueError("--ray needs Ray: pip install 'fruit-envs[distributed]'") from None
    started = not ray.is_initialized()
    if started:
        if backend.ray_address == "local":
            ray.init(num_cpus=backend.workers, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=backend.ray_address, log_to_driver=False)
    try:
        task = ray.remote(num_cpus=1, max_retries=backend.retries)(_ray_call)
        flight = {task.remote(u.fn, u.args): u for u in todo}
        while flight:
            ready, _ = ray.wait(list(flight), num_returns=1)
            u = flight.pop(ready[0])
            try:
                value, where = ray.get(ready[0])
            except ray.exceptions.RayTaskError as error:
                cause = getattr(error, "cause", None)
                raise (cause if isinstance(cause, BaseException) else error) from None
            except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError, ray.exceptions.RayError) as error:
                raise _stopped([u], store, f"its Ray worker died {backend.retries + 1} times ({error})") from None
            finished(u, value, where)
    finally:
        for ref in list(locals().get("flight", {})):
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


def _ray_call(fn: Callable, args: tuple) -> tuple[Any, dict]:
    import ray

    _init_worker()
    value, where = _call(fn, args)
    return value, {**where, "node": ray.get_runtime_context().get_node_id()}


def check_sendable(value: Any, what: str, hint: str) -> None:
    """A clear ValueError before any game where `value` cannot be sent to a worker (pickled by cloudpickle)."""
    import cloudpickle

    try:
        cloudpickle.dumps(value)
    except Exception as error:  # any failure to pickle: a lambda over a lock, an open file, a C object, ...
        problem = f"{type(error).__name__}: {error}"
        raise ValueError(f"{what} cannot be sent to worker processes ({problem}); {hint}") from None
