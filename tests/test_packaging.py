"""``pip install .`` builds quietly: the project's metadata uses no deprecated form."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from tests.test_guides import copy_project

ROOT = Path(__file__).resolve().parents[1]


def test_the_license_is_an_spdx_expression() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["license"] == "MIT"


def test_building_the_wheel_prints_no_deprecation_warning(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")  # the build leaves its output beside the code
    wheels = tmp_path / "wheels"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", str(wheels), str(project)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    output = done.stdout + done.stderr
    assert "deprecated" not in output.lower(), output
    assert list(wheels.glob("tongiaki-*.whl"))
