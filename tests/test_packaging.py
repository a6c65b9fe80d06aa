"""Every data file the packages need is declared as package data, so an installed copy (the
Docker image, a wheel) has its maps, fonts, migrations and catalogs, not only a checkout."""

import subprocess
import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "rules", "storage")


def _declared() -> dict[str, list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data: dict[str, list[str]] = config["tool"]["setuptools"]["package-data"]
    return data


def test_every_data_file_of_a_package_is_package_data() -> None:
    declared = _declared()
    tracked = subprocess.run(
        ["git", "ls-files", *PACKAGES], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    data_files = [name for name in tracked if not name.endswith(".py")]
    assert any(name.endswith(".sql") for name in data_files)
    missing = [
        name
        for name in data_files
        if not any(
            fnmatch(name.split("/", 1)[1], pattern)
            for pattern in declared.get(name.split("/", 1)[0], [])
        )
    ]
    assert not missing, f"add to [tool.setuptools.package-data]: {missing}"
