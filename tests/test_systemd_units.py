"""The generated systemd units: hardened, listening where the settings say, and accepted by
``systemd-analyze verify`` (Debian's systemd)."""

import shutil
import subprocess
from pathlib import Path

import pytest
from pydantic import ValidationError

from agency_site.deploy import systemd
from agency_site.deploy.topology import Topology
from agency_site.settings import DeploySettings
from tests.conftest import unavailable

HARDENING = (
    "NoNewPrivileges=yes",
    "ProtectSystem=strict",
    "PrivateTmp=yes",
    "UMask=0077",
    f"LimitNOFILE={systemd.OPEN_FILES}",
)


def topology(app_dir: str = "/srv/agency_site/app", user: str = "agency") -> Topology:
    return Topology(
        site_url="https://www.agencia.example",
        static_root="/srv/agency_site/frontend",
        backends=("10.0.0.5:8001", "10.0.0.5:8002"),
        asset_headers=(),
        document_headers=(),
        pages=(),
        app_dir=app_dir,
        user=user,
    )


def deploy(**values: str) -> DeploySettings:
    return DeploySettings(_env_file=None, **values)


def units(app_dir: str = "/srv/agency_site/app", **values: str) -> dict[str, str]:
    site, settings = topology(app_dir), deploy(**values)
    return {
        systemd.BACKEND_UNIT: systemd.backend_unit(site, settings),
        systemd.BACKUP_SERVICE: systemd.backup_service(site, settings),
        systemd.BACKUP_TIMER: systemd.backup_timer(),
    }


def test_both_services_are_hardened_and_write_only_their_folders() -> None:
    files = units()
    for name in (systemd.BACKEND_UNIT, systemd.BACKUP_SERVICE):
        lines = files[name].splitlines()
        for line in HARDENING:
            assert line in lines, (name, line)
        # The data folder (a SQLite leads database) is systemd's, created for the user.
        assert "StateDirectory=agency_site" in lines
    assert "ReadWritePaths=/var/backups/agency_site" in files[systemd.BACKUP_SERVICE]
    # Of the site's code, only .web/ (Reflex's backend writes its page list there).
    backend = files[systemd.BACKEND_UNIT].splitlines()
    assert [line for line in backend if line.startswith("ReadWritePaths=")] == [
        "ReadWritePaths=/srv/agency_site/app/.web"
    ]


def test_a_data_folder_outside_var_lib_is_named_writable() -> None:
    unit = units(data_dir="/data/agency")[systemd.BACKEND_UNIT]
    assert "ReadWritePaths=/data/agency" in unit.splitlines()
    assert "StateDirectory" not in unit


def test_backends_listen_on_loopback_unless_told_a_private_address() -> None:
    assert "--backend-host 127.0.0.1 --backend-port %i" in units()[systemd.BACKEND_UNIT]
    unit = units(backend_host="10.0.0.5")[systemd.BACKEND_UNIT]
    assert "--backend-host 10.0.0.5 --backend-port %i" in unit


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"backend_host": "backend.internal"}, "DEPLOY_BACKEND_HOST must be an IP address"),
        ({"data_dir": "var/lib/agency"}, "absolute paths"),
    ],
)
def test_a_wrong_setting_is_refused_with_a_clear_message(values: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        deploy(**values)


def test_systemd_analyze_verifies_the_generated_units(tmp_path: Path) -> None:
    """``systemd-analyze verify`` loads each unit as systemd would: no unknown key, no bad
    value, every command executable. The site folder is a stand-in with the venv's programs."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        unavailable("systemd-analyze is not installed (Debian: `sudo apt-get install systemd`)")
    app = tmp_path / "app"
    (app / ".venv" / "bin").mkdir(parents=True)
    for program in ("reflex", "python"):
        stub = app / ".venv" / "bin" / program
        stub.write_text("#!/bin/sh\n")
        stub.chmod(0o755)
    (app / ".env").write_text("")
    folder = tmp_path / "units"
    folder.mkdir()
    for name, text in units(str(app), backend_host="10.0.0.5").items():
        (folder / name).write_text(text)
    # A template is verified through one of its instances.
    shutil.copy(folder / systemd.BACKEND_UNIT, folder / "agency-backend@8001.service")
    result = subprocess.run(
        [analyze, "verify", "--man=no", "agency-backend@8001.service",
         systemd.BACKUP_SERVICE, systemd.BACKUP_TIMER],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # Unknown keys and unparsable values are only warnings: there must be none.
    assert result.stderr.strip() == "", result.stderr
