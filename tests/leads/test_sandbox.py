"""The lead promise where the site really runs: inside the generated backend unit's sandbox.

The unit (``agency_site/deploy/systemd.py``) makes the whole file system read-only but
for the data folder and ``.web/``. The backend checks at start-up that it can write in
every folder it writes (``runtime.check_write_folders``) and ``/_site/leads/health``
reports one it cannot. ``bwrap`` (bubblewrap) then recreates the unit's restrictions
around a real intake built as the backend builds it, with its PostgreSQL down: the lead
must be spooled inside the data folder, and the visitor told ``queued``.
"""

import datetime as dt
import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from agency_site.deploy import systemd
from agency_site.leads import runtime
from agency_site.leads.health import LeadsHealth
from agency_site.leads.spool import Spool
from agency_site.leads.store import LeadStore
from agency_site.settings import Settings, load_settings
from scripts.local_servers import free_port
from tests.conftest import unavailable
from tests.leads.health_page import get_health as owner_health
from tests.test_systemd_units import topology, unit_environment, writable_paths

ROOT = Path(__file__).resolve().parents[2]
HOUR = dt.timedelta(hours=1)


def settings_with(monkeypatch: pytest.MonkeyPatch, **env: str) -> Settings:
    """The site's settings with these variables in the environment."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return load_settings()


def write_places(monkeypatch: pytest.MonkeyPatch, spool: Path, folder: Path) -> Settings:
    return settings_with(
        monkeypatch,
        LEADS_SPOOL_DIR=str(spool),
        LEADS_ERASURE_LOG=str(folder / "erasures.log"),
        REFLEX_DB_URL=f"sqlite:///{folder}/reflex.db",
    )


def blocked(tmp_path: Path) -> Path:
    """A folder nobody can create, not even root: a file stands where its parent should."""
    (tmp_path / "a-file").write_text("")
    return tmp_path / "a-file" / "spool"


# --- The probe at start-up and the health endpoint -------------------------------------


def test_every_write_folder_is_probed_and_left_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    settings = write_places(monkeypatch, tmp_path / "data" / "spool", tmp_path / "data")
    assert runtime.write_folders(settings) == {
        "LEADS_SPOOL_DIR": tmp_path / "data" / "spool",
        "LEADS_ERASURE_LOG": tmp_path / "data",
        "REFLEX_DB_URL": tmp_path / "data",
    }
    with caplog.at_level(logging.ERROR):
        assert runtime.check_write_folders(settings) == {}
    assert not caplog.records
    # The spool folder was created (0700) as the spool would; no probe file is left.
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == ["spool"]
    assert (tmp_path / "data" / "spool").stat().st_mode & 0o777 == 0o700
    assert not list((tmp_path / "data" / "spool").iterdir())


def test_postgresql_has_no_write_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = settings_with(monkeypatch, REFLEX_DB_URL="postgresql+psycopg://a:b@db/agency")
    assert "REFLEX_DB_URL" not in runtime.write_folders(settings)


def test_a_folder_the_backend_cannot_write_is_an_error_naming_its_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    spool = blocked(tmp_path)
    settings = write_places(monkeypatch, spool, tmp_path / "data")
    with caplog.at_level(logging.ERROR, logger="agency_site"):
        problems = runtime.check_write_folders(settings)
    assert list(problems) == ["LEADS_SPOOL_DIR"]
    [record] = [r for r in caplog.records if r.levelno == logging.ERROR]
    message = record.getMessage()
    assert str(spool) in message and "Set LEADS_SPOOL_DIR" in message
    assert "DEPLOY_DATA_DIR" in message


def health(store: LeadStore, folders) -> httpx.Response:
    """The page's details, as the owner reads them (checked at each request)."""
    checks = LeadsHealth(lambda: store, lambda: True, lambda: HOUR, folders, every_s=0)
    return owner_health(checks)


def test_health_names_the_setting_of_a_folder_it_cannot_write(
    store: LeadStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spool = blocked(tmp_path)
    settings = write_places(monkeypatch, spool, tmp_path / "data")
    folders = lambda: runtime.write_folders(settings)  # noqa: E731
    response = health(store, folders)
    assert response.status_code == 503
    body = response.json()
    assert (body["status"], body["unwritable"]) == ("unwritable", ["LEADS_SPOOL_DIR"])
    assert str(tmp_path) not in response.text  # Public: the setting, never the path.
    # Fixed on the host: healthy again at the next request, without a restart.
    (tmp_path / "a-file").unlink()
    response = health(store, folders)
    assert response.status_code == 200 and "unwritable" not in response.json()


def test_health_names_it_when_the_database_cannot_be_read_either(tmp_path: Path) -> None:
    class Down:
        def summary(self):
            raise OSError("down")

    response = health(Down(), lambda: {"LEADS_SPOOL_DIR": blocked(tmp_path)})
    assert response.status_code == 503
    assert response.json() == {"status": "error", "unwritable": ["LEADS_SPOOL_DIR"]}


# --- The unit's sandbox, recreated with bubblewrap ----------------------------------------

# Builds the intake exactly as the backend does (runtime.intake(), from the settings) and
# submits one valid contact lead; prints the outcome and where the spool is.
SUBMIT = """
import asyncio, json
from agency_site.leads import runtime
from agency_site.forms.kinds import LeadKind
intake = runtime.intake()
outcome = asyncio.run(intake.submit(LeadKind.HERO, {"email": "ana@example.com"}, "127.0.0.2"))
print(json.dumps({"result": outcome.result.value, "spool": str(intake.spool.folder)}))
"""


def bwrap() -> str:
    found = shutil.which("bwrap")
    if found is None:
        unavailable("bubblewrap is not installed (Debian: `sudo apt-get install bubblewrap`)")
    return found


def in_the_units_sandbox(unit: str, env: dict[str, str]) -> dict:
    """Run SUBMIT under ``unit``'s restrictions: everything read-only but its writable
    folders, a private /tmp and /dev; its environment, then ``env`` (the site's .env)."""
    writable = [str(path) for path in writable_paths(unit) if Path(path).exists()]
    command = [bwrap(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
               "--tmpfs", "/tmp", "--die-with-parent"]  # fmt: skip
    # The site folder (and its venv), read-only as the unit leaves it, also when this
    # checkout lives under /tmp (a fresh clone in `mktemp -d`), which the private /tmp hides.
    for path in dict.fromkeys((str(ROOT), sys.prefix)):
        command += ["--ro-bind", path, path]
    for path in writable:
        command += ["--bind", path, path]
    unit_env = unit_environment(unit)
    unit_env.pop("GRANIAN_WORKERS")  # One process here: no Redis to share state through.
    environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
                   "HOME": writable[0]} | unit_env | env  # fmt: skip
    result = subprocess.run(
        [*command, "--chdir", str(ROOT), sys.executable, "-c", SUBMIT],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_a_lead_is_queued_in_the_data_folder_inside_the_units_sandbox(tmp_path: Path) -> None:
    """PostgreSQL down, the unit's restrictions on: the lead waits in the data folder's spool.

    With the settings' own defaults the spool is under the site folder, which the unit
    makes read-only: there the visitor is told ``store_failed``, and so it was before the
    unit placed the write paths in the data folder.
    """
    data = tmp_path / "var-lib-agency_site"  # Stands for /var/lib/agency_site.
    data.mkdir(mode=0o700)
    deploy = systemd.DeploySettings(_env_file=None, data_dir=str(data))
    unit = systemd.backend_unit(topology(str(ROOT)), deploy)
    assert writable_paths(unit)[0] == data
    # The site's .env: PostgreSQL, which does not answer (nothing listens on the port).
    env = {
        "REFLEX_DB_URL": f"postgresql+psycopg://agency:pw@127.0.0.1:{free_port()}/agency",
        "LEADS_DB_CONNECT_TIMEOUT_SECONDS": "1",
        "LEADS_SUBMIT_DEADLINE_SECONDS": "6",
    }
    outcome = in_the_units_sandbox(unit, env)
    assert outcome == {"result": "queued", "spool": str(data / "spool")}
    [lead] = list(Spool(data / "spool").leads())
    assert lead.fields["email"] == "ana@example.com"

    # The same, with the settings' defaults (no write paths from the unit): refused.
    bare = "".join(line + "\n" for line in unit.splitlines() if "_DIR=" not in line
                   and "ERASURE_LOG=" not in line and "REFLEX_DB_URL=" not in line)  # fmt: skip
    outcome = in_the_units_sandbox(bare, env)
    assert outcome == {"result": "store_failed", "spool": str(ROOT / "data" / "spool")}
