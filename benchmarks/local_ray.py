"""A Ray cluster of its own on this machine, for the batch benchmark: one head node on
127.0.0.1, free ports, its own short temporary folder, and stopped without touching any
other Ray cluster on the machine (``ray stop`` would end them all).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path


class RayClusterError(Exception):
    """The cluster could not be started or stopped; the message says why."""


def ray_missing() -> str | None:
    """Why Ray's part cannot run here, or None when it can."""
    if importlib.util.find_spec("ray") is None:
        return "Ray is not installed; `pip install 'agent-tui[ray]'` to measure it"
    if _ray_cli() is None:
        return "the `ray` command is not installed beside this Python"
    return None


def _ray_cli() -> str | None:
    beside = Path(sys.executable).with_name("ray")
    return str(beside) if beside.is_file() else shutil.which("ray")


def _free_ports(count: int) -> list[int]:
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _free_range(size: int) -> int:
    """The first port of ``size`` consecutive ports that are free now."""
    for first in range(20_000 + os.getpid() % 200 * 100, 60_000, size):
        with contextlib.ExitStack() as stack:
            try:
                for port in range(first, first + size):
                    sock = stack.enter_context(socket.socket())
                    sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return first
    raise RayClusterError("no range of free ports for Ray's workers")


@contextlib.contextmanager
def ray_cluster(cpus: int, env: dict[str, str]) -> Iterator[str]:
    """A Ray head node with ``cpus`` CPUs on 127.0.0.1; yields its address.

    Stopped at the end by ending the processes that use its temporary folder (``ray stop``
    would end every Ray cluster on the machine, other people's too).
    """
    cli = _ray_cli()
    assert cli is not None
    temp = Path(tempfile.mkdtemp(prefix="rb", dir="/tmp"))  # short: Ray's socket paths
    gcs, manager, objects, metrics, agent_grpc, agent_http, runtime_env = _free_ports(7)
    workers = _free_range(100)
    argv = [
        cli,
        "start",
        "--head",
        "--num-cpus",
        str(cpus),
        "--num-gpus",
        "0",
        "--node-ip-address",
        "127.0.0.1",
        "--port",
        str(gcs),
        "--temp-dir",
        str(temp),
        "--include-dashboard",
        "false",
        "--disable-usage-stats",
        "--node-manager-port",
        str(manager),
        "--object-manager-port",
        str(objects),
        "--metrics-export-port",
        str(metrics),
        "--dashboard-agent-grpc-port",
        str(agent_grpc),
        "--dashboard-agent-listen-port",
        str(agent_http),
        "--runtime-env-agent-port",
        str(runtime_env),
        "--min-worker-port",
        str(workers),
        "--max-worker-port",
        str(workers + 99),
    ]
    try:
        try:
            started = subprocess.run(
                argv, env=env, cwd=temp, capture_output=True, text=True, timeout=180
            )
        except subprocess.TimeoutExpired:
            raise RayClusterError("`ray start` did not finish in 180 s") from None
        if started.returncode != 0:
            raise RayClusterError(
                f"`ray start` exited {started.returncode}\n--- command: {shlex.join(argv)}\n"
                f"--- stderr:\n{started.stderr[-4000:]}"
            )
        yield f"127.0.0.1:{gcs}"
    finally:
        _end_processes_using(str(temp))
        shutil.rmtree(temp, ignore_errors=True)


def _processes_using(folder: str) -> list[int]:
    """Processes whose command line names ``folder`` or that hold a file open in it.

    Ray renames its agents and workers (``ray::IDLE``), but their output goes to log files
    in the session's folder.
    """
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            if folder in (entry / "cmdline").read_bytes().decode(errors="replace") or any(
                os.readlink(fd).startswith(folder) for fd in (entry / "fd").iterdir()
            ):
                found.append(int(entry.name))
    return found


def _end_processes_using(folder: str) -> None:
    """SIGTERM the processes :func:`_processes_using` finds; SIGKILL what is left."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        pids = _processes_using(folder)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while pids and time.monotonic() < deadline:
            time.sleep(0.2)
            pids = _processes_using(folder)
        if not pids:
            return
    raise RayClusterError(f"Ray processes still running after SIGKILL: {pids}")


_BARE_WORKER = """
import logging, sys
import ray
ray.init(address=sys.argv[1], logging_level=logging.ERROR, log_to_driver=False)

@ray.remote(num_cpus=1)
def peak():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

print(ray.get(peak.remote()))
"""


def bare_worker_peak_mb(address: str, env: dict[str, str]) -> float:
    """The peak resident memory of a Ray worker that ran an empty task, in MB: what Ray's
    own runtime costs a worker before any work."""
    done = subprocess.run(
        [sys.executable, "-c", _BARE_WORKER, address],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    if done.returncode != 0:
        raise RayClusterError(f"an empty Ray task failed:\n{done.stderr[-4000:]}")
    return float(done.stdout.strip().splitlines()[-1])
