"""A real Ray cluster on this machine for the tests: a head and worker nodes started with
``ray start`` on a loopback address, each its own process group, each with its own
``AGENT_TUI_HOME``, all stopped (and checked gone) by :meth:`RayCluster.stop`.

The nodes listen on 127.0.0.2: Ray turns 127.0.0.1 into the machine's outward address, and
these tests touch loopback only. Ray's temp folders are short ones under /tmp because its
socket paths must fit in 107 characters.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

NODE_IP = "127.0.0.2"
"""Where the nodes listen (a loopback address Ray does not rewrite)."""


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind((NODE_IP, 0))
        return int(probe.getsockname()[1])


def node_env(home: Path) -> dict[str, str]:
    """A node's environment: its own AGENT_TUI_HOME, and no key of the test machine's."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and not k.startswith(("AGENT_TUI_", "RAY_"))
    }
    env.update(
        AGENT_TUI_HOME=str(home),
        RAY_USAGE_STATS_ENABLED="0",
        # Ray's own clean-up of a dead worker's children off: the batch must not rely on it.
        RAY_kill_child_processes_on_worker_exit="false",
        RAY_kill_child_processes_on_worker_exit_with_raylet_subreaper="false",
        RAY_process_group_cleanup_enabled="false",
    )
    return env


@dataclass
class Node:
    """One node: its process group, temp folder and AGENT_TUI_HOME."""

    name: str
    group: int
    temp: Path
    home: Path
    cpus: int

    def kill(self) -> None:
        """Kill every process of the node at once (a machine that dies)."""
        _signal_group(self.group, signal.SIGKILL)


@dataclass
class RayCluster:
    """The cluster: its GCS address and nodes."""

    root: Path
    address: str = ""
    nodes: list[Node] = field(default_factory=list)

    @classmethod
    def start(cls, workers: int = 1, cpus: int = 1) -> RayCluster:
        """A head and ``workers`` worker nodes with ``cpus`` CPUs each."""
        cluster = cls(Path(tempfile.mkdtemp(prefix="rt", dir="/tmp")))
        try:
            port = free_port()
            cluster.address = f"{NODE_IP}:{port}"
            cluster._start_node(
                "head", cpus, ["--head", "--port", str(port), "--include-dashboard", "false"]
            )
            for number in range(workers):
                cluster.add_worker(f"w{number}", cpus)
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def add_worker(self, name: str, cpus: int = 1) -> Node:
        """Start one more worker node and wait until the cluster counts its CPUs."""
        node = self._start_node(name, cpus, ["--address", self.address])
        self.wait_for_cpus(sum(n.cpus for n in self.nodes))
        return node

    def _start_node(self, name: str, cpus: int, args: list[str]) -> Node:
        temp = self.root / name
        home = self.root / f"home-{name}"
        home.mkdir(parents=True)
        process = subprocess.Popen(
            [
                "ray",
                "start",
                *args,
                "--node-ip-address",
                NODE_IP,
                "--num-cpus",
                str(cpus),
                "--temp-dir",
                str(temp),
                "--disable-usage-stats",
                "--object-store-memory",
                str(80 * 1024 * 1024),
                "--dashboard-agent-listen-port",
                str(free_port()),
            ],
            env=node_env(home),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        node = Node(name, process.pid, temp, home, cpus)
        self.nodes.append(node)
        output, _ = process.communicate(timeout=120)
        if process.returncode != 0:
            raise RuntimeError(f"ray start ({name}) failed:\n{output[-3000:]}")
        return node

    def wait_for_cpus(self, cpus: int, timeout: float = 60) -> None:
        """Wait until the cluster's GCS counts ``cpus`` CPUs (all nodes joined)."""
        deadline = time.monotonic() + timeout
        while True:
            status = subprocess.run(
                ["ray", "status", "--address", self.address],
                env=node_env(self.root),
                capture_output=True,
                text=True,
                timeout=60,
            )
            if f"/{float(cpus)} CPU" in status.stdout or f"/{cpus}.0 CPU" in status.stdout:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the cluster never counted {cpus} CPUs:\n{status.stdout}{status.stderr}"
                )
            time.sleep(0.5)

    def logs_text(self) -> str:
        """Everything Ray wrote under the nodes' temp folders (logs, session files)."""
        parts = []
        for path in self.root.rglob("*"):
            if path.is_file() and not path.is_socket():
                try:
                    parts.append(path.read_text(errors="replace"))
                except OSError:
                    continue
        return "\n".join(parts)

    def processes(self) -> list[int]:
        """Pids of live processes that belong to this cluster (their command line names its
        folder, they are in one of its process groups, or they are batch pool workers its
        Ray workers started: their AGENT_TUI_HOME is one of the nodes')."""
        groups = {node.group for node in self.nodes}
        pool = self.pool_workers()
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                command = (entry / "cmdline").read_bytes()
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if state[0] == "Z":
                continue  # already dead, waiting for its parent to read its status
            if (
                str(self.root).encode() in command
                or int(state[2]) in groups
                or int(entry.name) in pool
            ):
                found.append(int(entry.name))
        return found

    def pool_workers(self) -> dict[int, int]:
        """The live batch pool workers the cluster's Ray workers started: pid -> parent pid."""
        homes = {f"AGENT_TUI_HOME={node.home}".encode() for node in self.nodes}
        found = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if b"agent_tui.tui.cli.batch_worker" not in (entry / "cmdline").read_bytes():
                    continue
                environ = set((entry / "environ").read_bytes().split(b"\0"))
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if state[0] != "Z" and environ & homes:
                found[int(entry.name)] = int(state[1])
        return found

    def stop(self) -> None:
        """Stop every node (TERM, then KILL what is left) and remove the temp folders."""
        for node in reversed(self.nodes):
            _signal_group(node.group, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while self.processes() and time.monotonic() < deadline:
            time.sleep(0.2)
        for node in self.nodes:
            _signal_group(node.group, signal.SIGKILL)
        for pid in self.processes():  # a worker Ray put in a group of its own
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 10
        while self.processes() and time.monotonic() < deadline:
            time.sleep(0.2)
        shutil.rmtree(self.root, ignore_errors=True)


def _signal_group(group: int, sig: signal.Signals) -> None:
    try:
        os.killpg(group, sig)
    except (ProcessLookupError, PermissionError):
        pass
