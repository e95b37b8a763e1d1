"""The package builds a wheel from a clean copy with the build tools Debian ships (no network, no build isolation)
and installs into a fresh venv, typed, with its ``python -m tollgate`` entry point."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "clients" / "python"


def run(*args: str, cwd: Path) -> str:
    done = subprocess.run(list(args), cwd=str(cwd), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, "%s\n%s\n%s" % (" ".join(args), done.stdout, done.stderr)
    return done.stdout


def test_builds_a_wheel_offline_and_installs_it_into_a_fresh_venv() -> None:
    with tempfile.TemporaryDirectory(prefix="tollgate-py-wheel-") as tmp_name:
        tmp = Path(tmp_name)
        # What a clean clone holds: no build output, caches or tests of this run.
        source = tmp / "clients-python"
        shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns(
            "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache"))
        run(sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index",
            "--wheel-dir", str(tmp / "dist"), str(source), cwd=tmp)
        wheels = list((tmp / "dist").glob("tollgate-*-py3-none-any.whl"))
        assert len(wheels) == 1, wheels
        # A venv without its own pip (ensurepip costs seconds), filled by Debian's pip pointed at it.
        run(sys.executable, "-m", "venv", "--without-pip", str(tmp / "venv"), cwd=tmp)
        python = tmp / "venv" / "bin" / "python"
        run(sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index", "--quiet", str(wheels[0]),
            cwd=tmp)
        where = run(str(python), "-c", "import tollgate, pathlib; p = pathlib.Path(tollgate.__file__).parent; "
                    "print(p, (p / 'py.typed').exists(), tollgate.__version__)", cwd=tmp).split()
        assert where[0].startswith(str(tmp / "venv")) and where[1:] == ["True", "0.1.0"]
        assert "ask" in run(str(python), "-m", "tollgate", "--help", cwd=tmp)
