"""The generated systemd units: hardened, listening where the settings say, writing only
where they may, and accepted by ``systemd-analyze verify`` (Debian's systemd)."""

import io
import os
import shutil
import subprocess
from pathlib import Path, PurePosixPath
from unittest import mock

import pytest
from dotenv import dotenv_values
from hypothesis import given
from hypothesis import settings as examples
from hypothesis import strategies as st
from pydantic import ValidationError

from agency_site.deploy import systemd
from agency_site.deploy.topology import Topology
from agency_site.leads.runtime import write_folders
from agency_site.settings import (
    AgencySettings,
    BookingSettings,
    DeploySettings,
    EmailJSSettings,
    GranianSettings,
    LeadsSettings,
    ReflexSettings,
    Settings,
)
from scripts import prepare_host
from tests.conftest import unavailable
from tests.test_deploy_docs import env_values

ROOT = Path(__file__).resolve().parents[1]

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
        systemd.REPORT_SERVICE: systemd.report_service(site, settings),
        systemd.REPORT_TIMER: systemd.report_timer(),
    }


def test_both_services_are_hardened_and_write_only_their_folders() -> None:
    files = units()
    for name in (systemd.BACKEND_UNIT, systemd.BACKUP_SERVICE, systemd.REPORT_SERVICE):
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
         systemd.BACKUP_SERVICE, systemd.BACKUP_TIMER, systemd.REPORT_SERVICE,
         systemd.REPORT_TIMER],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # Unknown keys and unparsable values are only warnings: there must be none.
    assert result.stderr.strip() == "", result.stderr


# --- Where the site writes: only inside what the units make writable ---------------------


def writable_paths(unit: str) -> list[PurePosixPath]:
    """The folders a unit may write (ProtectSystem=strict makes every other one read-only)."""
    paths = []
    for line in unit.splitlines():
        key, _, value = line.partition("=")
        if key == "StateDirectory":
            paths += [PurePosixPath(systemd.STATE_ROOT, name) for name in value.split()]
        elif key == "ReadWritePaths":
            paths += [PurePosixPath(name) for name in value.split()]
    return paths


def unit_environment(unit: str) -> dict[str, str]:
    """The unit's own ``Environment=`` values."""
    lines = [line for line in unit.splitlines() if line.startswith("Environment=")]
    return dict(line.removeprefix("Environment=").split("=", 1) for line in lines)


def deployed_settings(unit: str, env_file: str) -> Settings:
    """The settings a process of ``unit`` reads: its environment, then the site's ``.env``
    (systemd: EnvironmentFile= wins over Environment=), then the defaults."""
    from_file = {key: value for key, value in dotenv_values(stream=io.StringIO(env_file)).items()}
    env = unit_environment(unit) | {key: value for key, value in from_file.items() if value}
    with mock.patch.dict(os.environ, env, clear=True):
        sections = (ReflexSettings, AgencySettings, EmailJSSettings, LeadsSettings,
                    BookingSettings, DeploySettings, GranianSettings)  # fmt: skip
        reflex, agency, emailjs, leads, booking, deploy, granian = (
            section(_env_file=None) for section in sections
        )
    # Only the paths are looked at: model_construct skips the check that GRANIAN_WORKERS=2
    # (the unit's) has REFLEX_REDIS_URL, which a .env still being filled in lacks.
    return Settings.model_construct(reflex=reflex, agency=agency, emailjs=emailjs, leads=leads,
                                    booking=booking, deploy=deploy, granian=granian)  # fmt: skip


def env_files(data_dir: str) -> dict[str, str]:
    """The site's ``.env`` of a deployed host, in each state it may be in."""
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    new = prepare_host.env_text(example, data_dir)
    documented = "".join(f"{key}={value}\n" for key, value in env_values().items())
    return {
        "written by prepare_host.py": new,
        "filled in as docs/deploy.md says (PostgreSQL)": new + documented,
        "copied from .env.example before write paths": example,
        "none": "",
    }


DATA_DIRS = st.one_of(
    st.just("/var/lib/agency_site"),
    st.from_regex(r"/var/lib/[a-z][a-z0-9_-]{0,12}", fullmatch=True),
    st.from_regex(r"/(srv|data|opt)/[a-z][a-z0-9_-]{0,12}", fullmatch=True),
)


@examples(max_examples=25, deadline=None)
@given(data_dir=DATA_DIRS)
def test_every_folder_the_site_writes_is_one_its_units_may_write(data_dir: str) -> None:
    """The spool, the erasure log and a SQLite database land where ProtectSystem=strict
    lets the service write, whatever the data folder and whichever .env the host has."""
    for name, unit in units(data_dir=data_dir).items():
        if name in (systemd.BACKUP_TIMER, systemd.REPORT_TIMER):
            continue
        writable = writable_paths(unit)
        for state, env_file in env_files(data_dir).items():
            settings = deployed_settings(unit, env_file)
            for setting, folder in write_folders(settings).items():
                path = PurePosixPath(folder)
                assert any(path == place or place in path.parents for place in writable), (
                    f"{name}, .env {state}: {setting} writes in {path}, not in {writable}"
                )


def test_a_postgresql_host_keeps_its_database() -> None:
    """The units' SQLite default never hides the .env's database."""
    backend = units()[systemd.BACKEND_UNIT]
    settings = deployed_settings(backend, env_files("/var/lib/agency_site")[
        "filled in as docs/deploy.md says (PostgreSQL)"])  # fmt: skip
    assert settings.reflex.db_url.get_secret_value() == env_values()["REFLEX_DB_URL"]
    assert "REFLEX_DB_URL" not in write_folders(settings)


def test_prepare_host_writes_the_units_write_paths() -> None:
    for data_dir in ("/var/lib/agency_site", "/data/agency"):
        assert prepare_host.write_paths(data_dir) == systemd.write_paths(data_dir)
