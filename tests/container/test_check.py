"""The container check's own parts that need no container: the machine's pip configuration
passed into the build, and a machine without the tools told it did not run."""

import os
import shutil
from pathlib import Path

import pytest

from tests.container import check


def test_pip_settings_resolve_as_pip_does() -> None:
    listed = (
        "global.cert='/etc/ssl/certs/ca-certificates.crt'\n"
        "global.find-links='/opt/wheels'\n"
        "install.no-compile='true'\n"
        ":env:.find-links='/srv/wheels'\n"
        ":env:.default-timeout='180'\n"
    )
    assert check.pip_settings(listed) == {
        "global": {
            "cert": "/etc/ssl/certs/ca-certificates.crt",
            "find-links": "/srv/wheels",
            "default-timeout": "180",
        },
        "install": {"no-compile": "true"},
    }


def test_the_build_gets_one_pip_conf_and_every_local_place_it_names(tmp_path: Path) -> None:
    index = tmp_path / "pypi"
    (index / "simple").mkdir(parents=True)
    wheels = tmp_path / "wheels"
    (wheels / "inner").mkdir(parents=True)
    settings = {
        "global": {
            "extra-index-url": f"file://{index}/simple https://pypi.example.org/simple",
            "find-links": f"{wheels} {wheels}/inner {tmp_path}/missing",
            "timeout": "60",
        }
    }
    options = check.pip_build_mounts(settings, tmp_path)
    mounts = options[1::2]
    assert set(options[::2]) == {"-v"}
    assert mounts == [
        f"{tmp_path}/pip.conf:/etc/pip.conf:ro",
        f"{index}:{index}:ro",  # the index's folder: its pages link to files beside them
        f"{wheels}:{wheels}:ro",
    ]
    written = (tmp_path / "pip.conf").read_text()
    assert written.startswith("[global]\n")
    assert f"find-links = {wheels} {wheels}/inner {tmp_path}/missing\n" in written


def test_without_the_tools_and_the_means_to_install_them_it_says_it_did_not_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(shutil, "which", lambda command: None)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(check.NotRunError, match="apt-get install podman buildah debootstrap"):
        check.ensure_tools()
    assert check.main([]) == 0
    assert "== container: NOT RUN: podman, buildah, debootstrap, docker-compose missing" in (
        capsys.readouterr().out
    )
    monkeypatch.setenv("STRATEGIUM_CONTAINER_CHECK", "required")
    assert check.main([]) == 1
