"""``agent-tui batch TASKS --ray [ADDRESS]``: the batch's tasks as Ray tasks on a cluster.

Each task is one Ray task (one CPU, never retried by Ray) on whichever node has a CPU free.
Each Ray worker hands its tasks to a local pool worker (``python -m
agent_tui.tui.cli.batch_worker``, :class:`PoolWorker`) that it starts on its first task and
keeps for the next, so litellm is imported once per worker and lives outside Ray's runtime;
the task's session is written under the node's own ``AGENT_TUI_HOME``. Each result comes back to the
driver, which appends it to the one results file as it arrives, so resuming,
``--retry-failed`` and ``batch report`` work as for a local batch.

Task folders are not shipped: a task runs in its folder at the same path on the node (a
shared file system, or the same checkout on every node), so a worktree task's branch lands in
that one repository. The run's credentials (the agent flags and the provider variables of the
driver's environment) reach the nodes through the object store as a task argument, not
through Ray's runtime environment, whose agent writes its ``env_vars`` into its log.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.modes.batch import Task, append_result, task_failed
from ...core.setting_fields import SETTINGS
from .batch_progress import BatchProgress

if TYPE_CHECKING:
    from .batch_worker import Worker

INSTALL_HINT = "pip install 'agent-tui[ray]'"
"""How to get Ray, as the errors say it."""
CONNECT_TIMEOUT = 5.0
"""Seconds to reach the cluster's address before saying it cannot be reached (ray.init
itself waits minutes on an address where nothing listens)."""
CREDENTIAL_SUFFIXES = ("_API_KEY", "_API_BASE", "_BASE_URL", "_API_VERSION", "_API_TOKEN")
"""Environment variables with these endings go to the nodes: litellm's providers read them."""
CREDENTIAL_NAMES = frozenset(
    {
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_REGION_NAME",
        "AWS_DEFAULT_REGION",
        "VERTEXAI_PROJECT",
        "VERTEXAI_LOCATION",
    }
)
"""Provider variables without such an ending that go to the nodes too."""
ERROR_CHARACTERS = 600
"""Characters of Ray's account of a lost task kept in its result."""


class RayBatchError(Exception):
    """The batch cannot run on Ray (not installed, no cluster); the message says what to do."""


def run_on_ray(
    tasks: list[Task], overrides: dict[str, Any], results: Path, logs: Path, address: str
) -> int:
    """Run ``tasks`` on the Ray cluster at ``address`` (``auto``: ``RAY_ADDRESS`` or the
    cluster ``ray start`` started on this machine), appending each result to ``results`` as
    it arrives; the number that failed.

    Raises:
        RayBatchError: Ray is not installed, the cluster cannot be reached, or the driver lost
            it half-way.
    """
    ray = connect(address)
    try:
        return asyncio.run(_drive(ray, tasks, overrides, results, logs))
    except (ray.exceptions.RayError, ConnectionError) as exc:
        raise RayBatchError(
            f"lost the Ray cluster at {address} ({type(exc).__name__}: {exc}); the finished "
            f"tasks' results are in {results}: run the same command again to go on"
        ) from None
    finally:
        ray.shutdown()


def connect(address: str) -> Any:
    """The ``ray`` module, joined to the cluster at ``address``.

    Raises:
        RayBatchError: Ray is not installed, no cluster is found, or it cannot be reached.
    """
    try:
        import ray
    except ImportError:
        raise RayBatchError(
            f"--ray needs Ray, which is not installed here; install it with "
            f"{INSTALL_HINT} (every node of the cluster needs agent-tui and "
            "the same Ray version)"
        ) from None
    target = _resolved(address)
    host, _, port = target.removeprefix("ray://").rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), CONNECT_TIMEOUT).close()
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise RayBatchError(
            f"cannot reach the Ray cluster at {target} ({why}); start it there with "
            "`ray start --head`, or name the cluster you have: --ray HOST:PORT (the head's "
            "GCS port, 6379 by default) on one of its nodes, --ray ray://HOST:10001 from "
            "elsewhere"
        ) from None
    try:
        ray.init(address=target, logging_level=logging.ERROR, log_to_driver=False)
    except Exception as exc:  # noqa: BLE001 - Ray raises many kinds; each is told as it is
        raise RayBatchError(f"cannot join the Ray cluster at {target}: {exc}") from None
    return ray


def _resolved(address: str) -> str:
    """``address`` as ``host:port`` (or ``ray://host:port``): ``auto`` looks for the cluster
    the way ``ray.init`` does."""
    if address.startswith("ray://"):
        return address
    from ray._private.services import canonicalize_bootstrap_address

    try:
        target = canonicalize_bootstrap_address(address)
    except ConnectionError:
        raise RayBatchError(
            "no running Ray cluster found (RAY_ADDRESS is not set and `ray start` started "
            "none on this machine); start one with `ray start --head`, or pass its address: "
            "--ray HOST:PORT"
        ) from None
    except ValueError as exc:
        raise RayBatchError(f"--ray {address}: {exc}; give HOST:PORT or ray://HOST:PORT") from None
    if target is None:
        raise RayBatchError(
            f"--ray {address}: give the address of a running cluster (HOST:PORT or ray://HOST:PORT)"
        )
    return str(target)


def credentials(
    overrides: dict[str, Any],
    environ: dict[str, str] | None = None,
) -> dict[str, Any]:
    """What a node needs to run the batch's tasks as the driver would: the agent flags and
    the provider and ``AGENT_TUI_*`` setting variables of the driver's environment (never
    ``AGENT_TUI_HOME``: each node keeps its sessions on its own disk)."""
    environ = dict(os.environ) if environ is None else environ
    wanted = {name.upper() for name in (overrides.get("api_key_env"),) if name}
    settings = {f"AGENT_TUI_{name.upper()}" for name in SETTINGS}
    env = {
        name: value
        for name, value in environ.items()
        if name.endswith(CREDENTIAL_SUFFIXES)
        or name in CREDENTIAL_NAMES
        or name.upper() in settings
        or name.upper() in wanted
    }
    return {"overrides": overrides, "env": env}


async def _drive(
    ray: Any, tasks: list[Task], overrides: dict[str, Any], results: Path, logs: Path
) -> int:
    """Keep every CPU of the cluster busy with the tasks until each has its result."""
    shared = ray.put(credentials(overrides))
    remote = ray.remote(num_cpus=1, max_retries=0)(run_on_node)
    logs.mkdir(parents=True, exist_ok=True)
    waiting = list(tasks)
    running: dict[Any, Task] = {}
    failed = 0
    progress = BatchProgress(len(tasks), _cpus(ray))
    ticking = asyncio.create_task(progress.keep_fresh())
    try:
        while waiting or running:
            # As many in flight as the cluster has CPUs now (a node that joins adds to them,
            # one that dies takes its own away), so "running" says what runs.
            progress.workers = _cpus(ray)
            while waiting and len(running) < progress.workers:
                task = waiting.pop(0)
                running[remote.remote(task.to_dict(), shared)] = task
                progress.started(task.id)
            ready, _ = await asyncio.to_thread(ray.wait, list(running), num_returns=1, timeout=1.0)
            for ref in ready:
                task = running.pop(ref)
                result = _collected(ray, ref, task, logs)
                append_result(results, result)
                failed += task_failed(result)
                progress.finished_task(result)
    finally:
        ticking.cancel()
        progress.close()
    return failed


def _cpus(ray: Any) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 0)))


def _collected(ray: Any, ref: Any, task: Task, logs: Path) -> dict[str, Any]:
    """The task's result; a task Ray lost (its node or worker died) fails with Ray's cause."""
    try:
        result, log_text = ray.get(ref)
    except ray.exceptions.RayError as exc:
        cause = " ".join(str(exc).split())[:ERROR_CHARACTERS]
        what = (
            "raised on its node"
            if isinstance(exc, ray.exceptions.RayTaskError)
            else "was lost: its Ray worker or node died"
        )
        return {
            "id": task.id,
            "status": "failed",
            "folder": str(task.folder),
            "passed": None,
            "error": f"the task {what} ({type(exc).__name__}: {cause}); "
            "run the batch again with --retry-failed to try it again",
        }
    if log_text:
        with (logs / f"task-{task.id}.log").open("a", encoding="utf-8") as handle:
            handle.write(log_text)
    return dict(result)


def run_on_node(
    task_data: dict[str, Any],
    shared: dict[str, Any],
) -> tuple[dict[str, Any], str]:
    """One task in a Ray worker on a node: its result line and its log.

    The task runs in the Ray worker's pool worker (see :class:`PoolWorker`), so its peak
    memory (``worker_peak_mb``) is a local pool worker's, without Ray's runtime."""
    import ray

    task = Task.from_dict(task_data)
    context = ray.get_runtime_context()
    node = {"node_id": context.get_node_id(), "node_ip": ray.util.get_node_ip_address()}
    if not task.folder.is_dir():
        return {
            "id": task.id,
            "status": "failed",
            "folder": str(task.folder),
            "passed": None,
            "error": f"the folder {task.folder} is not on the node {node['node_ip']} "
            f"({socket.gethostname()}); with --ray each task runs in its folder at the "
            "same path on every node: put the tasks on a shared file system or the "
            "same checkout on each node",
            **node,
        }, ""
    result, log_text = PoolWorker.of_this_process().run(task, shared)
    result.update(node)
    return result, log_text


class PoolWorker:
    """The local pool's worker process (:class:`.batch_worker.Worker`) that runs a Ray worker's
    tasks: started on its first task, kept for its next ones, replaced when it died.

    litellm and the engine live there, not beside Ray's own runtime in the Ray worker (which
    alone peaks at ~80 MB). The credentials reach it through its environment, never its
    command line. It ends with its Ray worker: its stdin closes, and the kernel ends it
    mid-task too (:func:`.batch_worker._end_with_parent`)."""

    _kept: PoolWorker | None = None

    def __init__(self) -> None:
        # One loop for the worker's life: its pipes and process belong to the loop that
        # started them, and a Ray worker runs its tasks one after another on one thread.
        self.loop = asyncio.new_event_loop()
        self.log = _log_folder() / f"agent-tui-batch-worker-{os.getpid()}.log"
        self.worker: Worker | None = None
        self.env: dict[str, str] = {}

    @classmethod
    def of_this_process(cls) -> PoolWorker:
        """This Ray worker's (made on first use)."""
        if cls._kept is None:
            cls._kept = cls()
        return cls._kept

    def run(self, task: Task, shared: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """The task's result from the pool worker, and what the worker logged meanwhile."""
        from .batch_worker import Worker

        worker = self.worker
        if worker is not None:
            self.loop.run_until_complete(asyncio.sleep(0))  # hear of an exit while idle
            if worker.process.returncode is not None or self.env != shared["env"]:
                self.loop.run_until_complete(worker.stop())
                worker = None
        if worker is None:
            os.environ.update(shared["env"])  # the pool worker inherits them
            worker = self.loop.run_until_complete(Worker.start(self.log))
            self.worker, self.env = worker, dict(shared["env"])
        result = self.loop.run_until_complete(worker.run(task, shared["overrides"]))
        if result is None:
            result = worker.died(task)
            self.worker = None
        return result, self._log_taken()

    def _log_taken(self) -> str:
        """The log written since the last task (the file is emptied: the driver keeps it)."""
        try:
            with self.log.open("r+", encoding="utf-8", errors="replace") as handle:
                text = handle.read()
                handle.truncate(0)
        except OSError:
            return ""
        return text


def _log_folder() -> Path:
    """Ray's log folder on this node (beside the Ray worker's own logs), else the temp folder."""
    import tempfile

    try:
        import ray

        return Path(ray._private.worker.global_worker.node.get_logs_dir_path())
    except Exception:  # noqa: BLE001 - a private API of Ray's: fall back when it moves
        return Path(tempfile.gettempdir())
