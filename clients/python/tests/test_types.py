"""The package is typed (it ships ``py.typed``): mypy --strict finds nothing in it, for Python 3.9 as for today's."""

from __future__ import annotations

import subprocess
import sys
import tempfile

from conftest import ROOT


def test_mypy_strict_passes_for_python_3_9() -> None:
    with tempfile.TemporaryDirectory(prefix="tollgate-mypy-") as cache:
        done = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--python-version", "3.9", "--cache-dir", cache,
             "src/tollgate"],
            cwd=str(ROOT / "clients" / "python"), capture_output=True, text=True, timeout=300,
        )
    assert done.returncode == 0, "mypy (apt-get install mypy):\n" + done.stdout + done.stderr
