"""The wheel, built and installed into a clean venv, works on its own.

A sub-package missing from ``[tool.setuptools] packages`` or a data file missing from
``package-data`` passes every other test (they run against the editable install, i.e. the
repository itself) and only breaks for people who ``pip install`` agent-tui. Here the wheel is
built, installed into a fresh venv and run there, and its file list is compared with the
source tree: the package's folders ship whole, and nothing else from the repository root does
(the root is the package's own folder, and its tests/, benchmarks/ and .ci/ stay behind).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import shutil
import site
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pytest

from tests.fakes.providers import FakeProvider, Reply

REPO = Path(__file__).resolve().parent.parent
# The repository root is the agent_tui package (pyproject's package-dir); these folders of it
# ship whole, each as agent_tui/<folder>, beside the root's own __init__.py.
PACKAGE_FOLDERS = ("core", "tools", "tui", "themes", "skills")
# Folders of the root that are not part of the installed package.
NOT_SHIPPED = ("tests", "benchmarks", ".ci")
# Never copied to the build tree: VCS data, caches, earlier build output.
BUILD_IGNORE = shutil.ignore_patterns(
    ".git",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    "*.pyc",
    ".pytest_cache",
    ".ruff_cache",
    ".mypy_cache",
    ".venv",
    ".benchmarks",
)


@dataclass
class Installed:
    source: Path  # the snapshot of the repository the wheel was built from
    wheel: Path
    venv: Path
    python: Path
    agent_tui: Path
    site_packages: Path


def _run(argv: list[str | Path], **kwargs) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(a) for a in argv], capture_output=True, text=True, timeout=180, **kwargs
    )
    assert done.returncode == 0, (
        f"{' '.join(map(str, argv))} exited {done.returncode}\n"
        f"--- stdout:\n{done.stdout}\n--- stderr:\n{done.stderr}"
    )
    return done


def _clean_env(home: Path) -> dict[str, str]:
    """No keys, no agent-tui settings, nothing that steers Python's import path."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY")
        and not k.startswith("AGENT_TUI_")
        and k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE")
    }
    env["AGENT_TUI_HOME"] = str(home)
    return env


def _setuptools_builds_wheels() -> bool:
    """Whether this environment can build a wheel without build isolation.

    setuptools ships ``bdist_wheel`` itself from 70.1 on; before that it needs the ``wheel``
    package.
    """
    try:
        # Read from the metadata: importing setuptools here would trip its distutils shim.
        version = importlib.metadata.version("setuptools")
    except importlib.metadata.PackageNotFoundError:
        return False
    if importlib.util.find_spec("wheel") is not None:
        return True
    major, minor = (int(part) for part in version.split(".")[:2])
    return (major, minor) >= (70, 1)


def _dependency_paths() -> list[str]:
    """The site-packages folders the test's own interpreter finds the dependencies in."""
    paths = [*site.getsitepackages()]
    if site.ENABLE_USER_SITE:
        paths.append(site.getusersitepackages())
    paths += [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    return [p for p in dict.fromkeys(paths) if os.path.isdir(p)]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel, built from a snapshot of the repository and installed into a fresh venv."""
    if importlib.util.find_spec("venv") is None or importlib.util.find_spec("pip") is None:
        pytest.skip("this Python has no venv or no pip")
    tmp = tmp_path_factory.mktemp("packaging")

    # Build from a copy: pip builds in-tree, so building the repository itself would leave
    # build/ and *.egg-info in it (racing other runs), and a stale build/lib could smuggle a
    # file into the wheel that the configuration no longer packages.
    source = tmp / "source"
    # symlinks=True: .ci/mypy/agent_tui links back to the root, a loop if followed.
    shutil.copytree(REPO, source, ignore=BUILD_IGNORE, symlinks=True)
    wheels = tmp / "wheels"
    # Offline with the installed setuptools when it can build wheels. Otherwise (older than
    # 70.1 and no `wheel` package, as on a Python 3.11 whose setuptools is the 65.5 from
    # ensurepip) pip builds in isolation with the build-system's own setuptools>=69, fetched
    # from the package index the way `pip install -e .` fetched it to install agent-tui here.
    isolation = ["--no-build-isolation"] if _setuptools_builds_wheels() else []
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-w", wheels, source],
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    (wheel,) = wheels.glob("agent_tui-*.whl")

    # The venv. Not --system-site-packages: the system site-packages hold the editable
    # install of agent-tui, whose .pth puts setuptools' editable finder on sys.meta_path; it
    # answers for any agent_tui.<pkg>.<sub> the wheel lacks by importing it from the
    # repository, which hides exactly the forgotten sub-package this test is for (seen:
    # agent_tui.tui.widgets, left out of the wheel, imported from the repository's tui/
    # widgets/ all the same). Running with -I or -S does not help: -I still runs site and
    # the .pth, and -S drops the venv's own site-packages and cannot apply to the console
    # script, whose shebang is the venv's python. Instead the venv gets one .pth of plain
    # path lines naming the folders where this interpreter finds litellm, textual, pydantic…
    # (offline reuse). A path line only extends sys.path: the .pth files inside those
    # folders (the editable finder's) are never executed.
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv])
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / "python"
    site_packages = Path(
        _run(
            [python, "-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]
        ).stdout.strip()
    )
    (site_packages / "_agent_tui_test_deps.pth").write_text("\n".join(_dependency_paths()) + "\n")
    # pip itself comes from those folders; --ignore-installed keeps it from trying to
    # uninstall the editable agent-tui it can see there.
    _run(
        [
            python,
            "-I",
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-index",
            "--ignore-installed",
            "--disable-pip-version-check",
            wheel,
        ]
    )
    return Installed(source, wheel, venv, python, bindir / "agent-tui", site_packages)


def _wheel_names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return {name for name in archive.namelist() if not name.endswith("/")}


def _record_packages(wheel: Path) -> list[str]:
    """Dotted names of the packages (folders with __init__.py) listed in the wheel's RECORD."""
    with zipfile.ZipFile(wheel) as archive:
        (record,) = [n for n in archive.namelist() if n.endswith(".dist-info/RECORD")]
        lines = archive.read(record).decode().splitlines()
    paths = [PurePosixPath(line.rsplit(",", 2)[0]) for line in lines if line]
    return sorted(".".join(p.parent.parts) for p in paths if p.name == "__init__.py")


def _version(source: Path) -> str:
    return tomllib.loads((source / "pyproject.toml").read_text())["project"]["version"]


def test_wheel_holds_every_source_and_data_file(installed: Installed) -> None:
    # Every file under the package folders: the .py files, and the data beside them (themes/
    # and skills/ are all data, and Textual loads .tcss files from tui/ at run time too).
    expected = {
        f"agent_tui/{path.relative_to(installed.source).as_posix()}"
        for folder in PACKAGE_FOLDERS
        for path in (installed.source / folder).rglob("*")
        if path.is_file() and not path.name.startswith(".")
    } | {"agent_tui/__init__.py"}
    names = _wheel_names(installed.wheel)
    missing = sorted(expected - names)
    assert not missing, (
        "files missing from the wheel; add their packages to [tool.setuptools] packages or "
        f"their patterns to package-data in pyproject.toml: {missing}"
    )
    shipped_py = {n for n in names if n.startswith("agent_tui/") and n.endswith(".py")}
    assert shipped_py == {n for n in expected if n.endswith(".py")}


def test_wheel_ships_nothing_else_from_the_repository_root(installed: Installed) -> None:
    names = _wheel_names(installed.wheel)
    assert "agent_tui/__init__.py" in names
    leaked = sorted(
        name
        for name in names
        if not name.startswith("agent_tui-")  # the .dist-info folder
        and name != "agent_tui/__init__.py"
        and not name.startswith(tuple(f"agent_tui/{folder}/" for folder in PACKAGE_FOLDERS))
    )
    assert leaked == [], f"files from outside the package's folders in the wheel: {leaked}"
    # The folders the root holds but the package does not, named so a reader sees them.
    for folder in NOT_SHIPPED:
        assert (installed.source / folder).is_dir()
        assert not any(name.startswith(f"agent_tui/{folder}/") for name in names), folder


def test_every_packaged_subpackage_imports_from_the_venv(installed: Installed, tmp_path) -> None:
    packages = _record_packages(installed.wheel)
    assert {"agent_tui", "agent_tui.core", "agent_tui.tui"} <= set(packages)
    probe = (
        "import importlib, json, sys\n"
        "print(json.dumps({n: importlib.import_module(n).__file__ for n in sys.argv[1:]}))"
    )
    done = _run(
        [installed.python, "-I", "-c", probe, *packages],
        cwd=tmp_path,
        env=_clean_env(tmp_path / "home"),
    )
    files = json.loads(done.stdout.splitlines()[-1])
    site_packages = installed.site_packages.resolve()
    elsewhere = {
        n: f for n, f in files.items() if not Path(f).resolve().is_relative_to(site_packages)
    }
    assert not elsewhere, f"imported from outside the venv, not from the wheel: {elsewhere}"


def test_installed_command_prints_the_version(installed: Installed, tmp_path) -> None:
    done = _run([installed.agent_tui, "--version"], cwd=tmp_path, env=_clean_env(tmp_path / "home"))
    assert done.stdout.strip() == f"agent-tui {_version(installed.source)}"


def test_installed_command_runs_headless(
    installed: Installed, fake_provider: FakeProvider, tmp_path
) -> None:
    fake_provider.script(Reply(text="Packaged and answering."))
    project = tmp_path / "project"
    project.mkdir()
    done = subprocess.run(
        [
            installed.agent_tui,
            "-p",
            "are you installed?",
            "--model",
            "openai/fake-model",
            "--api-base",
            fake_provider.openai_base,
            "--api-key",
            "sk-test",
        ],
        cwd=project,
        env=_clean_env(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Packaged and answering.\n"
    assert len(fake_provider.requests) == 1


def test_editable_install_is_the_repository_root(tmp_path) -> None:
    """`pip install -e .` makes the root the agent_tui package, from any working folder."""
    probe = (
        "import json, agent_tui, agent_tui.core, agent_tui.tui.cli.main as main\n"
        "print(json.dumps([agent_tui.__file__, main.__file__]))"
    )
    done = _run([sys.executable, "-c", probe], cwd=tmp_path, env=_clean_env(tmp_path / "home"))
    package, cli = (Path(f).resolve() for f in json.loads(done.stdout.splitlines()[-1]))
    assert package == REPO / "__init__.py"
    assert cli == REPO / "tui" / "cli" / "main.py"
