"""The warm engine: stream workers forked ready from one background process of the user's,
and what the workbench asks the worker's litellm instead of importing its own.

Real engines (``python -m agent_tui.core.providers.engine_server``) in a runtime folder of the
test's own; real calls through litellm to the fake provider over HTTP.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from agent_tui.core.config import Settings
from agent_tui.core.providers import warm_engine
from agent_tui.core.providers.litellm import REQUEST_SETTINGS, LitellmProvider
from agent_tui.core.providers.stream_process import ProcessProvider, StreamProcess
from tests.fakes.providers import Reply

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def runtime(monkeypatch):
    """A runtime folder of the test's own (short: a socket's path has ~100 bytes), and any
    engine started in it ended afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="ate-", dir="/tmp"))
    monkeypatch.setenv(warm_engine.RUNTIME_VARIABLE, str(folder))
    yield folder
    for pid in _engines(folder):
        os.kill(pid, signal.SIGTERM)
    _wait(lambda: not _engines(folder), 10)
    shutil.rmtree(folder, ignore_errors=True)


def _engines(folder: Path) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"agent_tui.core.providers.engine_server" in command and any(
                    str(folder).encode() in part for part in command):
                found.append(int(entry.name))
    # A worker is a fork of its engine: same command line, the engine its parent.
    return [pid for pid in found if _parent(pid) not in found]


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except OSError:
        return 0


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def _request_settings(fake, **overrides) -> dict:
    settings = Settings(model="openai/gpt-4o", api_base=fake.openai_base, api_key="sk-test",
                        max_retries=0, **overrides)
    return settings.model_dump(include=set(REQUEST_SETTINGS))


def test_workers_come_forked_from_one_engine_and_stream_real_calls(runtime, fake_provider):
    fake_provider.script(Reply(text="first answer"), Reply(text="second answer"))

    async def call(process: StreamProcess) -> str:
        streamed: list[str] = []
        reply = await process.complete(_request_settings(fake_provider),
                                       [{"role": "user", "content": "hi"}], None,
                                       streamed.append)
        assert "".join(streamed) == reply.text
        return reply.text

    first, second = StreamProcess(), StreamProcess()
    first.use_engine = second.use_engine = True
    try:
        assert asyncio.run(call(first)) == "first answer"
        assert asyncio.run(call(second)) == "second answer"
        engine = _parent(first.pid)
        assert engine != os.getpid()
        assert _parent(second.pid) == engine  # one engine, two forks of it
        assert _engines(runtime) == [engine]
        assert sorted(p.suffix for p in runtime.iterdir()) == [".log", ".sock"]
        assert oct(runtime.stat().st_mode & 0o777) == "0o700"
    finally:
        first.close()
        second.close()
    assert _engines(runtime) == [engine]  # it stays for the next workbench


def test_a_workers_end_is_told_with_its_exit_status(runtime, fake_provider):
    process = StreamProcess()
    process.use_engine = True
    process.start()
    worker = process._process
    assert isinstance(worker, warm_engine.EngineWorker)
    assert worker.poll() is None
    worker.kill()
    assert worker.wait(10) == -signal.SIGKILL
    process.close()


def test_a_forked_worker_ends_with_its_workbench(runtime, fake_provider):
    """The worker's parent is the engine, so it watches the workbench's process itself."""
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(REPO.parent)!r})
        from agent_tui.core.providers.stream_process import StreamProcess
        process = StreamProcess()
        process.use_engine = True
        process.start()
        print(process.pid, flush=True)
        time.sleep(600)
    """)
    workbench = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                                 text=True)
    worker = int(workbench.stdout.readline())
    assert _alive(worker) and _parent(worker) != workbench.pid
    workbench.kill()
    workbench.wait()
    assert _wait(lambda: not _alive(worker), 10)
    assert _engines(runtime)  # the engine goes on


def test_the_engine_ends_once_idle_and_gives_up_its_socket(runtime):
    path = runtime / "engine-idle.sock"
    subprocess.run([sys.executable, "-m", warm_engine.SERVER_MODULE, str(path), "--idle", "1"],
                   check=True)  # it detaches: this returns at once
    assert _wait(path.exists, 10)
    engine = _engines(runtime)
    assert len(engine) == 1
    assert _wait(lambda: not _engines(runtime), 60)  # litellm's import, then 1 s idle
    assert not path.exists()


def test_a_dead_engines_socket_is_taken_over(runtime, fake_provider):
    path = warm_engine.socket_path()
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    stale.close()  # the file stays, nothing listens
    process = StreamProcess()
    process.use_engine = True
    try:
        process.start()
        assert isinstance(process._process, warm_engine.EngineWorker)
        assert _parent(process.pid) in _engines(runtime)
    finally:
        process.close()


def test_no_engine_in_a_folder_others_can_enter(runtime, fake_provider):
    runtime.chmod(0o755)
    assert warm_engine.socket_path() is None
    process = StreamProcess()
    process.use_engine = True
    try:
        process.start()
        assert isinstance(process._process, subprocess.Popen)  # started here instead
        assert _parent(process.pid) == os.getpid()
    finally:
        process.close()
    assert not _engines(runtime)


def test_the_key_changes_with_the_engines_code(runtime, tmp_path, monkeypatch):
    before = warm_engine.engine_key()
    monkeypatch.setenv("LITELLM_LOG", "DEBUG")
    assert warm_engine.engine_key() != before


def test_the_workers_litellm_answers_for_the_workbench(runtime, fake_provider):
    """Window, tools, images, reasoning note and token counts come from the worker: the
    same answers as litellm gives here."""
    process = StreamProcess()
    process.use_engine = True
    settings = Settings(model="openai/gpt-4o", api_base=fake_provider.openai_base,
                        api_key="sk-test")
    here = LitellmProvider(settings)
    there = ProcessProvider(LitellmProvider(settings), process)
    try:
        assert there.learn_facts(60)
        messages = [{"role": "user", "content": "count these few words, please"}]
        said = process.ask({"settings": here.request_settings(), "count": messages}, 10)
        assert said == {"ask": said["ask"], "answer": here.count_tokens(messages)}
        assert there._facts == {"context_window": here.context_window(),
                                "native_tools": here.supports_native_tools(),
                                "images": here.supports_images(),
                                "reasoning_note": here.reasoning_note()}
        said = process.ask({"embed": ["one", "two"], "model": "openai/text-embedding-3-small",
                            "api_base": fake_provider.openai_base, "api_key": "sk-test",
                            "timeout": 10, "check": "check it"}, 20)
        vectors = said["answer"]
        assert len(vectors) == 2 and len(vectors[0]) > 8 and vectors[0] != vectors[1]
        said = process.ask({"embed": ["one"], "model": "openai/text-embedding-3-small",
                            "api_base": "http://127.0.0.1:9/v1", "api_key": "sk-test",
                            "timeout": 5, "check": "check it"}, 30)
        assert said["error"].startswith("the embedding model openai/text-embedding-3-small "
                                        "failed") and said["error"].endswith("; check it")
    finally:
        process.close()


def test_a_new_engine_retires_the_engines_of_older_code(runtime):
    key = warm_engine.engine_key()
    install = key.split("-")[0]
    older = runtime / f"engine-{install}-000000000000.sock"
    subprocess.run([sys.executable, "-m", warm_engine.SERVER_MODULE, str(older), "--idle", "600"],
                   check=True)
    assert _wait(older.exists, 10)
    first = _engines(runtime)
    path = warm_engine.socket_path()
    subprocess.run([sys.executable, "-m", warm_engine.SERVER_MODULE, str(path)], check=True)
    assert _wait(path.exists, 10)
    assert _wait(lambda: not older.exists(), 10)
    assert _wait(lambda: not set(first) & set(_engines(runtime)), 30)  # it ended, idle


def test_agent_tui_engine_starts_tells_and_stops_it(runtime):
    def engine(*words: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "agent_tui.tui.cli.main", "engine", *words],
                              capture_output=True, text=True, timeout=180)

    assert engine("status").returncode == 1
    started = engine("start")
    assert started.returncode == 0 and "the warm engine is ready at" in started.stdout
    [pid] = _engines(runtime)
    status = engine("status")
    assert status.returncode == 0 and f"process {pid}," in status.stdout
    stopped = engine("stop")
    assert "stopped the warm engine" in stopped.stdout
    assert _wait(lambda: not _engines(runtime), 30)
    assert "no warm engine runs" in engine("stop").stdout


def test_a_question_never_holds_up_a_stream_in_flight(fake_provider):
    """An embedding asked of the worker (a request of its own, here to a server that takes
    two seconds to answer) is answered off the worker's loop: the answer streaming
    meanwhile goes on arriving."""
    import http.server
    import threading

    class Slow(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            time.sleep(2)
            self.send_response(500)
            self.end_headers()

        def log_message(self, *args):
            pass

    slow = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=slow.serve_forever, daemon=True).start()
    fake_provider.script(Reply(text=" ".join(f"w{n}" for n in range(150)), chunk_size=6,
                               pause=0.03))
    process = StreamProcess()
    arrived: list[float] = []
    asked: list[float] = []

    async def run() -> None:
        call = asyncio.ensure_future(process.complete(
            _request_settings(fake_provider), [{"role": "user", "content": "hi"}], None,
            lambda _text: arrived.append(time.monotonic())))
        while not arrived:
            await asyncio.sleep(0.01)
        asked.append(time.monotonic())
        said = await asyncio.to_thread(process.ask, {
            "embed": ["one"], "model": "openai/text-embedding-3-small",
            "api_base": f"http://127.0.0.1:{slow.server_address[1]}/v1", "api_key": "sk-test",
            "timeout": 10, "check": "check it"}, 30)
        asked.append(time.monotonic())
        assert said is not None and "error" in said
        await call

    try:
        asyncio.run(run())
    finally:
        process.close()
        slow.shutdown()
    during = [t for t in arrived if asked[0] < t < asked[1]]
    assert asked[1] - asked[0] >= 2
    assert len(during) > 10  # text kept coming while the embedding waited
