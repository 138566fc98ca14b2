"""One Chromium per agent-tui session, driven through Selenium and chromedriver.

The browser starts on the first call that needs it, lives in its own process group, and is
closed when the session ends, on ``webdriver_quit``, when a hung call is cancelled and when
agent-tui exits (atexit). A browser that crashed is reported once and started afresh by the
next call.

While the network is off the browser is started behind a proxy that does not exist, so pages
cannot reach beyond loopback even through a click or a script; turning the network on (or
off) restarts it on the next call that navigates.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
"""Browser programs looked for on PATH, in order, when ``chromium_path`` is not set."""
CHROMEDRIVER_CANDIDATES = ("chromedriver",)
"""Driver programs looked for on PATH (and in /usr/lib/chromium) when not configured."""
DEBIAN_PACKAGES = "chromium chromium-driver"
"""What to install on Debian or Ubuntu for the browser tools."""
DEFAULT_PAGE_LOAD_TIMEOUT = 30.0
"""Seconds a navigation may take before it is reported as a page that never loaded."""
DEFAULT_SCRIPT_TIMEOUT = 30.0
"""Seconds an asynchronous script may run."""
WINDOW_SIZE = (1280, 800)
"""The size of the browser's page area in CSS pixels (screenshots have this size)."""
DEAD_PROXY = "http://127.0.0.1:9"
"""Where pages are sent while the network is off: nothing listens, so nothing leaves."""

_FLAGS = (
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--no-first-run", "--no-default-browser-check", "--disable-quic",
    "--disable-features=Translate,MediaRouter,OptimizationHints",
    "--password-store=basic", "--use-mock-keychain",
    # crashpad would run outside the browser's process group and write to ~/.config.
    "--disable-crash-reporter", "--disable-breakpad",
)


class BrowserUnavailable(Exception):
    """The browser cannot start; the message says why and what to install or set."""


@dataclass(frozen=True, slots=True)
class BrowserOptions:
    """How the browser is started.

    Attributes:
        headless: Without a window (the default); a visible window needs a display.
        network: Pages may reach beyond loopback.
        chromium: The browser program (None: looked up on PATH).
        chromedriver: The driver program (None: looked up on PATH).
        page_load_timeout: Seconds a navigation may take.
    """

    headless: bool = True
    network: bool = False
    chromium: str | None = None
    chromedriver: str | None = None
    page_load_timeout: float = DEFAULT_PAGE_LOAD_TIMEOUT


def find_program(configured: str | None, candidates: tuple[str, ...],
                 extra_dirs: tuple[str, ...] = ()) -> str | None:
    """The configured program if it exists, else the first candidate found."""
    if configured:
        found = shutil.which(configured) or (configured if os.access(configured, os.X_OK)
                                            else None)
        return found
    for name in candidates:
        if found := shutil.which(name):
            return found
        for folder in extra_dirs:
            path = Path(folder) / name
            if os.access(path, os.X_OK):
                return str(path)
    return None


def has_display() -> bool:
    """True when an X or Wayland display is named in the environment."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class BrowserSession:
    """The session's browser: started lazily, one call at a time, closed for good at exit.

    Selenium is imported only when the browser first starts. Every method that talks to the
    browser blocks; tools call them from a worker thread (``asyncio.to_thread``).
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._driver: WebDriver | None = None
        self._options: BrowserOptions | None = None
        self._profile: str | None = None
        self._driver_pid: int | None = None
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._exit_hook = False
        self._viewport_fitted = False
        self.killed = False
        """:meth:`kill` ended the browser; the next call cleans up after it."""
        self.saved_files: set[Path] = set()
        """Files the browser tools wrote this session (they may be overwritten)."""

    # -- life cycle ------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """True while a browser is started (it may have died since; see :meth:`alive`)."""
        return self._driver is not None

    @property
    def options(self) -> BrowserOptions | None:
        """How the running browser was started, or None."""
        return self._options

    @property
    def lock(self) -> threading.RLock:
        """Held by a tool for a whole call, so calls reach the browser one at a time."""
        return self._lock

    def alive(self) -> bool:
        """True when the browser answers (a cheap round trip)."""
        driver = self._driver
        if driver is None:
            return False
        try:
            driver.execute_script("return 1")
        except Exception:  # noqa: BLE001 - any failure means the browser is gone
            return False
        return True

    def start(self, options: BrowserOptions) -> str:
        """Start the browser (closing one that runs); return a line saying what started.

        Raises:
            BrowserUnavailable: no browser or driver, no display for a visible browser, or
                the browser failed to start; the message says what to do.
        """
        with self._lock:
            self.close()
            chromium = find_program(options.chromium, CHROMIUM_CANDIDATES)
            if chromium is None:
                raise BrowserUnavailable(
                    "no Chromium browser was found (looked for "
                    f"{', '.join(CHROMIUM_CANDIDATES)} on PATH); install it (Debian/Ubuntu: "
                    f"`apt-get install {DEBIAN_PACKAGES}`) or set chromium_path in config.toml")
            driver_path = find_program(options.chromedriver, CHROMEDRIVER_CANDIDATES,
                                       ("/usr/lib/chromium", "/usr/lib/chromium-browser"))
            if driver_path is None:
                raise BrowserUnavailable(
                    "chromedriver was not found on PATH; install it (Debian/Ubuntu: "
                    "`apt-get install chromium-driver`, matching the browser's version) or set "
                    "chromedriver_path in config.toml")
            if not options.headless and not has_display():
                raise BrowserUnavailable(
                    "a visible browser needs a display, and neither DISPLAY nor WAYLAND_DISPLAY "
                    "is set; start it headless (webdriver_start with headless=true), or run "
                    "agent-tui where a display exists (e.g. under Xvfb: `Xvfb :99 &` and "
                    "DISPLAY=:99)")
            self.killed = False
            self._viewport_fitted = False
            self._driver = self._launch(chromium, driver_path, options)
            self._options = options
            if not self._exit_hook:
                atexit.register(self.close)
                self._exit_hook = True
            version = self._driver.capabilities.get("browserVersion", "?")
            mode = "headless" if options.headless else "visible"
            net = "network on" if options.network else "network off: loopback only"
            return f"Chromium {version} started ({mode}, {net}, page {WINDOW_SIZE[0]}x{WINDOW_SIZE[1]})."

    def _launch(self, chromium: str, driver_path: str, options: BrowserOptions) -> WebDriver:
        # Selenium Manager must never try to download anything.
        os.environ.setdefault("SE_OFFLINE", "true")
        os.environ.setdefault("SE_AVOID_STATS", "true")
        from selenium import webdriver
        from selenium.common.exceptions import WebDriverException
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service

        chrome_options = Options()
        chrome_options.binary_location = chromium
        for flag in _FLAGS:
            chrome_options.add_argument(flag)
        if options.headless:
            chrome_options.add_argument("--headless=new")
        chrome_options.add_argument(f"--window-size={WINDOW_SIZE[0]},{WINDOW_SIZE[1]}")
        if not options.network:
            chrome_options.add_argument(f"--proxy-server={DEAD_PROXY}")
        self._profile = tempfile.mkdtemp(prefix="agent-tui-chromium-")
        chrome_options.add_argument(f"--user-data-dir={self._profile}")
        # Its own process group: a cancel or exit ends chromedriver and every browser process.
        # Chromium's config and cache (crash reports among them) stay in the throwaway profile.
        env = {**os.environ, "XDG_CONFIG_HOME": self._profile, "XDG_CACHE_HOME": self._profile}
        service = Service(driver_path, env=env, popen_kw={"start_new_session": True})
        try:
            driver = webdriver.Chrome(options=chrome_options, service=service)
        except WebDriverException as exc:
            self._kill_group(service.process.pid if service.process else None)
            self._remove_profile()
            raise BrowserUnavailable(
                f"Chromium did not start: {first_line(exc.msg or str(exc))}. Check that "
                f"{chromium} and {driver_path} are the same version (Debian: `apt-get install "
                f"{DEBIAN_PACKAGES}`)") from None
        self._driver_pid = service.process.pid if service.process else None
        self._watchdog = _start_watchdog(self._driver_pid) if self._driver_pid else None
        driver.set_page_load_timeout(options.page_load_timeout)
        driver.set_script_timeout(DEFAULT_SCRIPT_TIMEOUT)
        return driver

    def fit_viewport(self) -> None:
        """Make the page area WINDOW_SIZE (``--window-size`` counts the browser's own bars);
        done once, before the first screenshot, so starting costs no round trip for it."""
        if self._viewport_fitted:
            return
        driver = self.driver()
        inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
        if isinstance(inner, list) and tuple(inner) != WINDOW_SIZE:
            outer = driver.get_window_size()
            driver.set_window_size(outer["width"] + WINDOW_SIZE[0] - inner[0],
                                   outer["height"] + WINDOW_SIZE[1] - inner[1])
        self._viewport_fitted = True

    def driver(self) -> WebDriver:
        """The running browser's driver.

        Raises:
            BrowserUnavailable: when no browser runs (the caller starts one first).
        """
        if self._driver is None:
            raise BrowserUnavailable("no browser is running; start one with webdriver_start")
        return self._driver

    def close(self) -> None:
        """Quit the browser and end its processes; nothing is left behind. Idempotent."""
        with self._lock:
            driver, self._driver = self._driver, None
            self._options = None
            if driver is not None:
                quitter = threading.Thread(target=_quiet_quit, args=(driver,), daemon=True)
                quitter.start()
                quitter.join(5)
            self._kill_group(self._driver_pid)
            self._driver_pid = None
            self._stop_watchdog()
            self._remove_profile()

    def kill(self) -> None:
        """End the browser at once without asking it (a hung call was cancelled).

        Does not wait for the lock: the hung call holds it.
        """
        pid = self._driver_pid
        if pid is not None:
            self.killed = True
            _signal_group(pid, signal.SIGKILL)

    def _kill_group(self, pid: int | None) -> None:
        if pid is None:
            return
        if _signal_group(pid, signal.SIGTERM):
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline and _group_exists(pid):
                time.sleep(0.02)
            _signal_group(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)

    def _stop_watchdog(self) -> None:
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is not None:
            watchdog.kill()  # before its pipe closes, so it never signals a reused group id
            watchdog.wait()
            if watchdog.stdin is not None:
                watchdog.stdin.close()

    def _remove_profile(self) -> None:
        if self._profile:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None


def page_line(session: BrowserSession) -> str:
    """``Page: <title> — <url>`` for the page the browser shows (one round trip)."""
    title, url = session.driver().execute_script("return [document.title, location.href]")
    return f"Page: {title or '(no title)'} — {url}"


def first_line(text: str) -> str:
    """The first non-empty line of a driver's message (they carry stack traces after it)."""
    for line in text.strip().splitlines():
        if line.strip():
            line = line.strip().removeprefix("Message: ").split("; For documentation")[0]
            return line.rstrip(".")
    return text.strip()


def _quiet_quit(driver: WebDriver) -> None:
    with contextlib.suppress(Exception):
        driver.quit()


_WATCHDOG = """
import os, signal, sys
sys.stdin.buffer.read()
try:
    os.killpg(int(sys.argv[1]), signal.SIGKILL)
except OSError:
    pass
"""


def _start_watchdog(pgid: int) -> subprocess.Popen[bytes] | None:
    """A tiny process that kills the browser's group once agent-tui is gone.

    It waits for the end of a pipe only agent-tui holds: a SIGKILL of agent-tui closes it, and
    no browser outlives the session even when no exit handler could run.
    """
    try:
        return subprocess.Popen([sys.executable, "-S", "-c", _WATCHDOG, str(pgid)],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        return None


def _signal_group(pgid: int, sig: int) -> bool:
    # tools.shell has the same helper; importing it here would close an import cycle
    # (shell -> base -> browser.session).
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _group_exists(pgid: int) -> bool:
    """True while a live process of group ``pgid`` remains (zombies do not count: where
    nobody reaps orphans, as in many containers, they linger after the browser is gone)."""
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pgid, os.WNOHANG)
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != b"Z":
            return True
    return False
