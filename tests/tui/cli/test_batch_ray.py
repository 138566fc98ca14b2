"""``agent-tui batch TASKS --ray ADDRESS`` on a real Ray cluster on this machine (a head and a
worker node started with ``ray start`` on loopback, once for the module), its tasks answered
through litellm and HTTP by the fake provider: the tasks spread over the nodes, each node keeps
its sessions, keys stay out of results and logs, a batch whose driver is killed goes on when
run again, and a node that dies fails its tasks with Ray's cause while the others finish."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.fakes.providers import FakeProvider, RecordedRequest, Reply, ToolCall
from tests.tui.cli.ray_cluster import NODE_IP, RayCluster, free_port

needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None or shutil.which("ray") is None,
    reason="Ray is not installed: pip install 'agent-tui[ray]' (.ci/run installs it)",
)

ENV_KEY = "sk-ray-env-SECRET-4f1c9e"
"""The key the driver's OPENAI_API_KEY holds."""
FLAG_KEY = "sk-ray-flag-SECRET-77ab0d"
"""The key given with --api-key."""
SLOW_SECONDS = 4.0
"""How long the fake provider takes over a ``slow`` task's first answer."""


HELD = threading.Event()
"""Set to let a ``hold write NAME`` task's first answer go."""


def by_prompt(request: RecordedRequest) -> Reply:
    """``write NAME`` writes NAME.txt then answers; ``slow write NAME`` first waits;
    ``hold write NAME`` first waits until :data:`HELD` is set; ``die`` kills its worker."""
    prompt = request.last_user_text()
    if prompt == "die" and not request.tool_results():
        return Reply(tool_calls=[ToolCall("shell", {"command": "kill -9 $PPID"})])
    match = re.match(r"(slow |hold )?write (\S+)", prompt)
    if match and not request.tool_results():
        if match[1] == "slow ":
            time.sleep(SLOW_SECONDS)
        elif match[1] == "hold ":
            HELD.wait(120)
        return Reply(
            tool_calls=[
                ToolCall("write_file", {"file_path": f"{match[2]}.txt", "content": f"{match[2]}\n"})
            ]
        )
    return Reply(text=f"finished: {prompt}")


@pytest.fixture(scope="module")
def cluster():
    started = RayCluster.start(workers=1, cpus=1)
    try:
        yield started
    finally:
        started.stop()
        assert started.processes() == [], "Ray processes were left behind"


@pytest.fixture
def fake():
    with FakeProvider(responder=by_prompt) as provider:
        yield provider


def driver_env(folder: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and not k.startswith(("AGENT_TUI_", "RAY_"))
    }
    env.update(AGENT_TUI_HOME=str(folder / ".driver-home"), RAY_USAGE_STATS_ENABLED="0", **extra)
    return env


def batch_command(fake: FakeProvider, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "agent_tui.tui.cli.main",
        "batch",
        *args,
        "--model",
        "openai/fake-model",
        "--api-base",
        fake.openai_base,
        "--approval-mode",
        "yolo",
    ]


def tasks_file(folder: Path, *tasks: dict) -> Path:
    path = folder / "tasks.jsonl"
    path.write_text("".join(json.dumps(task) + "\n" for task in tasks))
    return path


def result_lines(folder: Path) -> list[dict]:
    found = []
    for line in (folder / "tasks.results.jsonl").read_text().splitlines():
        try:
            found.append(json.loads(line))
        except ValueError:
            continue  # a line torn by the killed driver
    return found


def written_text(*roots: Path) -> str:
    """Every file under ``roots``, as text."""
    return "\n".join(
        path.read_text(errors="replace")
        for root in roots
        for path in root.rglob("*")
        if path.is_file()
    )


@needs_ray
def test_twenty_tasks_spread_over_the_nodes_and_the_key_stays_out_of_files(cluster, fake, tmp_path):
    tasks = tasks_file(tmp_path, *({"id": f"t{n}", "prompt": f"write t{n}"} for n in range(1, 21)))
    done = subprocess.run(
        batch_command(fake, str(tasks), "--ray", cluster.address),
        cwd=tmp_path,
        env=driver_env(tmp_path, OPENAI_API_KEY=ENV_KEY),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    found = {result["id"]: result for result in result_lines(tmp_path)}
    assert sorted(found) == sorted(f"t{n}" for n in range(1, 21))
    for name, result in found.items():
        assert result["status"] == "done", result
        assert result["answer"] == f"finished: write {name}"
        assert result["changed_files"] == [f"{name}.txt"]
        assert (tmp_path / f"{name}.txt").read_text() == f"{name}\n"
        assert result["node_ip"] == NODE_IP
    assert len({r["node_id"] for r in found.values()}) == 2  # both nodes ran tasks
    # Ray workers are kept for the next task: litellm is imported once per worker, not per task.
    assert len({(r["node_id"], r["worker_pid"]) for r in found.values()}) <= 4
    # Each node wrote its tasks' sessions under its own AGENT_TUI_HOME.
    homes = [node.home for node in cluster.nodes[:2]]
    per_home = [{p.parent.name for p in home.rglob("events.jsonl")} for home in homes]
    assert all(per_home)
    for result in found.values():
        assert sum(result["session_id"] in ids for ids in per_home) == 1
    # The key reached every model request, through the nodes' environment...
    assert {r.headers.get("authorization") for r in fake.requests} == {f"Bearer {ENV_KEY}"}
    # ...and no file the batch or Ray wrote, nor what the batch printed.
    assert ENV_KEY not in written_text(tmp_path)
    assert ENV_KEY not in cluster.logs_text()
    assert ENV_KEY not in done.stdout + done.stderr
    assert "[20/20]" in done.stderr and "20 done, 0 failed" in done.stderr
    # Each task ran in a pool worker its Ray worker kept (not in the Ray worker, whose own
    # runtime would count in the peak), and none outlives the batch's Ray workers.
    assert all(r["worker_peak_mb"] > 0 for r in found.values())
    wait_until_no_pool_workers(cluster)


def wait_until_no_pool_workers(cluster: RayCluster) -> None:
    deadline = time.monotonic() + 60
    while left := cluster.pool_workers():
        assert time.monotonic() < deadline, f"pool workers outlived their Ray workers: {left}"
        time.sleep(0.2)


@needs_ray
def test_a_batch_whose_driver_is_killed_goes_on_when_run_again(cluster, fake, tmp_path):
    names = [f"k{n}" for n in range(1, 9)]
    tasks = tasks_file(tmp_path, *({"id": name, "prompt": f"slow write {name}"} for name in names))
    command = batch_command(fake, str(tasks), "--ray", cluster.address, "--api-key", FLAG_KEY)
    env = driver_env(tmp_path)
    results = tmp_path / "tasks.results.jsonl"
    driver = subprocess.Popen(
        command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 240
        while not (results.exists() and len(result_lines(tmp_path)) >= 2):
            assert driver.poll() is None, "the batch ended before it was killed"
            assert time.monotonic() < deadline, "no result came"
            time.sleep(0.2)
    finally:
        driver.send_signal(signal.SIGKILL)
        driver.wait()
    first = {r["id"] for r in result_lines(tmp_path)}
    assert 2 <= len(first) < len(names)

    again = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0, again.stderr
    assert f"{len(first)} of 8 tasks already have a result" in again.stderr
    ids = [r["id"] for r in result_lines(tmp_path)]
    assert sorted(ids) == sorted(names)  # every task exactly once
    assert all(r["status"] == "done" for r in result_lines(tmp_path))
    assert all(r.headers.get("authorization") == f"Bearer {FLAG_KEY}" for r in fake.requests)
    assert FLAG_KEY not in written_text(tmp_path) + cluster.logs_text() + again.stderr


@needs_ray
def test_a_graded_worktree_task_on_a_shared_path_leaves_its_branch_in_the_repository(
    cluster, fake, tmp_path
):
    repo = tmp_path / "repo"
    repo.mkdir()
    for args in (
        ["init", "-q", "-b", "main"],
        ["config", "user.email", "d@example.com"],
        ["config", "user.name", "D"],
        ["commit", "-q", "--allow-empty", "-m", "0"],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True)
    tasks = tasks_file(
        tmp_path,
        {
            "id": "wt",
            "prompt": "write wt",
            "folder": "repo",
            "worktree": True,
            "check": "test -f wt.txt",
        },
    )
    done = subprocess.run(
        batch_command(fake, str(tasks), "--ray", cluster.address),
        cwd=tmp_path,
        env=driver_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = result_lines(tmp_path)[0]
    assert result["branch"] == "agent-tui/batch-wt" and result["changed_files"] == ["wt.txt"]
    assert result["passed"] is True  # the graded task's check ran in the worktree on its node
    assert not (repo / "wt.txt").exists()
    branches = subprocess.run(
        ["git", "branch", "--list", "agent-tui/*"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "agent-tui/batch-wt" in branches


@needs_ray
def test_an_address_where_no_cluster_listens_is_an_error_naming_it(fake, tmp_path):
    tasks = tasks_file(tmp_path, {"id": "a", "prompt": "write a"})
    address = f"{NODE_IP}:{free_port()}"
    done = subprocess.run(
        batch_command(fake, str(tasks), "--ray", address),
        cwd=tmp_path,
        env=driver_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert f"cannot reach the Ray cluster at {address}" in done.stderr
    assert "ray start --head" in done.stderr
    assert fake.requests == [] and not (tmp_path / "tasks.results.jsonl").exists()


def test_without_ray_installed_the_error_says_how_to_install_it(fake, tmp_path):
    hidden = tmp_path / "no-ray" / "ray"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ImportError(\"No module named 'ray'\")\n")
    tasks = tasks_file(tmp_path, {"id": "a", "prompt": "write a"})
    env = driver_env(
        tmp_path,
        PYTHONPATH=os.pathsep.join(
            filter(None, [str(hidden.parent), os.environ.get("PYTHONPATH")])
        ),
    )
    done = subprocess.run(
        batch_command(fake, str(tasks), "--ray"),
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "--ray needs Ray, which is not installed" in done.stderr
    assert "pip install 'agent-tui[ray]'" in done.stderr
    assert fake.requests == []


@needs_ray
def test_a_pool_worker_that_dies_fails_its_task_with_its_log_and_is_replaced(
    cluster, fake, tmp_path
):
    tasks = tasks_file(
        tmp_path,
        {"id": "doomed", "prompt": "die"},
        *({"id": f"after{n}", "prompt": f"write after{n}"} for n in range(1, 5)),
    )
    done = subprocess.run(
        batch_command(fake, str(tasks), "--ray", cluster.address),
        cwd=tmp_path,
        env=driver_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    found = {result["id"]: result for result in result_lines(tmp_path)}
    assert found["doomed"]["status"] == "failed"
    assert "the worker died (killed by signal 9); the end of its log:" in found["doomed"]["error"]
    assert "--- task doomed in" in found["doomed"]["error"]
    for n in range(1, 5):  # the Ray worker whose pool worker died started another one
        assert found[f"after{n}"]["status"] == "done", found[f"after{n}"]
    assert "4 done, 1 failed" in done.stderr
    wait_until_no_pool_workers(cluster)


@needs_ray
def test_a_ray_worker_killed_mid_task_takes_its_pool_worker_with_it(cluster, fake, tmp_path):
    wait_until_no_pool_workers(cluster)
    tasks = tasks_file(tmp_path, {"id": "held", "prompt": "hold write held"})
    HELD.clear()
    driver = subprocess.Popen(
        batch_command(fake, str(tasks), "--ray", cluster.address),
        cwd=tmp_path,
        env=driver_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 240
        while not fake.requests:  # the task's pool worker waits for the held answer
            assert driver.poll() is None, driver.communicate()[1]
            assert time.monotonic() < deadline, "the task never asked the model"
            time.sleep(0.1)
        [(pool_pid, ray_worker_pid)] = cluster.pool_workers().items()
        os.kill(ray_worker_pid, signal.SIGKILL)
        # The pool worker ends with its Ray worker, not when its task would have ended.
        deadline = time.monotonic() + 60
        while pool_pid in cluster.pool_workers():
            assert time.monotonic() < deadline, "the pool worker outlived its Ray worker"
            time.sleep(0.1)
        HELD.set()
        _, stderr = driver.communicate(timeout=300)
    finally:
        HELD.set()
        if driver.poll() is None:
            driver.kill()
    assert driver.returncode == 1, stderr
    [result] = result_lines(tmp_path)
    assert "was lost: its Ray worker or node died" in result["error"], result
    assert len(fake.requests) == 1 and not (tmp_path / "held.txt").exists()


@needs_ray
def test_a_node_that_dies_fails_its_tasks_with_the_cause_and_the_batch_goes_on(
    cluster, fake, tmp_path
):
    # Last in the module: the dead node stays counted in the cluster it leaves.
    victim = cluster.add_worker("victim")
    names = [f"n{n}" for n in range(1, 7)]
    tasks = tasks_file(tmp_path, *({"id": name, "prompt": f"slow write {name}"} for name in names))
    driver = subprocess.Popen(
        batch_command(fake, str(tasks), "--ray", cluster.address),
        cwd=tmp_path,
        env=driver_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 240
        while len(fake.requests) < 3:  # a task on each of the three nodes
            assert driver.poll() is None, driver.communicate()[1]
            assert time.monotonic() < deadline, "the tasks never all started"
            time.sleep(0.1)
        victim.kill()
        _, stderr = driver.communicate(timeout=300)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert driver.returncode == 1, stderr
    found = result_lines(tmp_path)
    assert sorted(r["id"] for r in found) == sorted(names)  # every task once
    lost = [r for r in found if r["status"] != "done"]
    assert lost, stderr
    for result in lost:
        assert "was lost: its Ray worker or node died" in result["error"]
        assert re.search(
            r"NodeDiedError|WorkerCrashedError|ActorDiedError|ObjectLostError", result["error"]
        ), result["error"]
    finished = [r for r in found if r["status"] == "done"]
    assert len(finished) >= 3
    assert all((tmp_path / f"{r['id']}.txt").exists() for r in finished)


def test_the_nodes_get_the_provider_variables_and_settings_but_not_the_driver_home():
    from agent_tui.tui.cli.batch_ray import credentials

    environ = {
        "OPENAI_API_KEY": "sk-1",
        "OPENAI_API_BASE": "http://127.0.0.1:9/v1",
        "AZURE_API_VERSION": "2024-10-21",
        "AWS_SECRET_ACCESS_KEY": "aws-secret",
        "MY_KEY_VAR": "named-by-api-key-env",
        "AGENT_TUI_MODEL": "openai/gpt-4.1",
        "AGENT_TUI_HOME": "/driver/home",
        "AGENT_TUI_DELEGATED": "1",
        "HOME": "/root",
        "PATH": "/usr/bin",
    }
    shared = credentials({"api_key_env": "MY_KEY_VAR", "api_key": "sk-flag"}, environ)
    assert shared["overrides"] == {"api_key_env": "MY_KEY_VAR", "api_key": "sk-flag"}
    assert shared["env"] == {
        "OPENAI_API_KEY": "sk-1",
        "OPENAI_API_BASE": "http://127.0.0.1:9/v1",
        "AZURE_API_VERSION": "2024-10-21",
        "AWS_SECRET_ACCESS_KEY": "aws-secret",
        "MY_KEY_VAR": "named-by-api-key-env",
        "AGENT_TUI_MODEL": "openai/gpt-4.1",
    }
