"""The generated systemd units: hardened, listening where the settings say, writing only
where they may, and accepted by ``systemd-analyze verify`` (Debian's systemd)."""

import io
import os
import shutil
import sqlite3
import subprocess
import time
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
    "ProtectHome=yes",
    "PrivateTmp=yes",
    "UMask=0077",
    "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
    "SystemCallFilter=@system-service",
    "CapabilityBoundingSet=",
    "ProtectKernelLogs=yes",
    "LockPersonality=yes",
    "MemoryDenyWriteExecute=yes",
    f"LimitNOFILE={systemd.OPEN_FILES}",
)
SERVICES = (systemd.BACKEND_UNIT, systemd.BACKUP_SERVICE, systemd.REPORT_SERVICE)
# `systemd-analyze security`'s exposure of each service: 7.0 ("MEDIUM") before issue 43.
EXPOSURE_MAX = 2.0


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


def test_systemd_analyze_security_scores_every_service_low(tmp_path: Path) -> None:
    """The exposure `systemd-analyze security` gives each service, read from its file."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        unavailable("systemd-analyze is not installed (Debian: `sudo apt-get install systemd`)")
    files = units()
    files["agency-backend@8001.service"] = files.pop(systemd.BACKEND_UNIT)
    for name, text in files.items():
        if not name.endswith(".service"):
            continue
        (tmp_path / name).write_text(text)
        result = subprocess.run(
            [analyze, "security", "--offline=yes", "--no-pager", str(tmp_path / name)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        score = float(result.stdout.split("Overall exposure level for")[1].split(":")[1].split()[0])
        print(f"{name}: exposure {score}")
        assert score <= EXPOSURE_MAX, (name, result.stdout[-3000:])


def test_the_report_reads_the_log_through_the_site_user_s_group_only() -> None:
    """No SupplementaryGroups (Debian's adm reads every log of the machine): the log is the
    site user's group's (scripts/prepare_host.py ensure_access_log)."""
    for name, text in units().items():
        assert "SupplementaryGroups" not in text, name


# Runs a command as systemd would under a unit's SystemCallFilter= (EPERM for the rest),
# RestrictAddressFamilies= and MemoryDenyWriteExecute=: libseccomp through ctypes,
# prctl(PR_SET_NO_NEW_PRIVS) and prctl(PR_SET_MDWE). argv: group, families, mdwe, command.
CONFINE = r"""
import ctypes, ctypes.util, os, subprocess, sys
group, families, mdwe, command = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
text = subprocess.run(["systemd-analyze", "syscall-filter"], capture_output=True, text=True,
                      check=True).stdout
table, current = {}, None
for line in text.splitlines():
    item = line.strip()
    if item and not item.startswith("#"):
        if line.startswith("@"):
            current = table.setdefault(item, [])
        elif current is not None:
            current.append(item)
def expand(name, seen):
    calls = set()
    for item in table.get(name, []):
        if item.startswith("@"):
            if item not in seen:
                seen.add(item)
                calls |= expand(item, seen)
        else:
            calls.add(item)
    return calls
lib = ctypes.CDLL(ctypes.util.find_library("seccomp"))
lib.seccomp_init.restype = ctypes.c_void_p
lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
class Arg(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("a", ctypes.c_uint64),
                ("b", ctypes.c_uint64)]
plain = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                         ctypes.c_uint)(("seccomp_rule_add", lib))
with_arg = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                            ctypes.c_uint, Arg)(("seccomp_rule_add", lib))
ALLOW, EPERM = 0x7FFF0000, 0x00050001
context = ctypes.c_void_p(lib.seccomp_init(ctypes.c_uint32(EPERM)))
socket = lib.seccomp_syscall_resolve_name(b"socket")
for name in sorted(expand(group, set())):
    number = lib.seccomp_syscall_resolve_name(name.encode())
    if number >= 0 and number != socket:
        assert plain(context, ALLOW, number, 0) == 0, name
for family in map(int, families.split(",")):
    assert with_arg(context, ALLOW, socket, 1, Arg(0, 4, family, 0)) == 0  # SCMP_CMP_EQ
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
if mdwe == "yes":
    assert libc.prctl(65, 1, 0, 0, 0) == 0, "PR_SET_MDWE: Linux 6.3 or later"
assert lib.seccomp_load(context) == 0
os.execvp(command[0], command)
"""
FAMILIES = {"AF_UNIX": 1, "AF_INET": 2, "AF_INET6": 10}


def test_a_backend_serves_inside_the_units_system_calls_and_memory_rules(tmp_path) -> None:
    """The backend unit's SystemCallFilter, RestrictAddressFamilies and
    MemoryDenyWriteExecute, applied as systemd applies them: granian, uvloop, SQLite, the
    forms and Reflex's websocket all work inside them."""
    import asyncio

    import aiohttp
    import httpx

    from scripts import local_servers

    kernel = tuple(int(part) for part in os.uname().release.split("-")[0].split(".")[:2])
    if shutil.which("systemd-analyze") is None or kernel < (6, 3):
        unavailable("needs systemd-analyze and Linux 6.3+ (PR_SET_MDWE)")
    lines = dict(
        line.split("=", 1) for line in units()[systemd.BACKEND_UNIT].splitlines() if "=" in line
    )
    families = ",".join(str(FAMILIES[name]) for name in lines["RestrictAddressFamilies"].split())
    port = local_servers.free_port()
    url = f"http://localhost:{port}"
    env = {**os.environ, "GRANIAN_WORKERS": "1", "REFLEX_DEPLOY_URL": url, "REFLEX_API_URL": url,
           "REFLEX_DB_URL": f"sqlite:///{tmp_path}/reflex.db", "REFLEX_REDIS_URL": "",
           "LEADS_SPOOL_DIR": str(tmp_path / "spool"),
           "LEADS_ERASURE_LOG": str(tmp_path / "erasures.log")}  # fmt: skip
    command = ["/usr/bin/python3", "-c", CONFINE, lines["SystemCallFilter"], families,
               lines["MemoryDenyWriteExecute"], str(ROOT / ".venv" / "bin" / "reflex"), "run",
               "--env", "prod", "--backend-only", "--backend-port", str(port)]  # fmt: skip
    log = (tmp_path / "backend.log").open("w")
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        local_servers.wait_for_port(port, timeout=120)
        base = f"http://127.0.0.1:{port}"
        assert httpx.get(base + "/ping", timeout=10).text == '"pong"'
        # The database answers once the worker's start-up migration is done (the health
        # page checks at most every 5 s: a check made before it says "error" a while).
        deadline = time.monotonic() + 60
        while (health := httpx.get(base + "/_site/leads/health", timeout=30)).json()[
            "status"
        ] != "ok" and time.monotonic() < deadline:
            time.sleep(0.5)
        assert health.json()["status"] == "ok", health.text[:500]
        fields = {"email": "ana@example.com", "name": "Ana", "message": "hola"}
        sent = httpx.post(base + "/_site/forms/contact", data=fields, headers={"Origin": url},
                          timeout=30)  # fmt: skip
        # A script's token-less post: stored in quarantine and asked for a proof of work
        # (202; 303 once stored as clean). Either way the lead is in the table below.
        assert sent.status_code in (202, 303), sent.text[:500]
        # The port opens while the worker's start-up migration may still hold SQLite's write
        # lock: a post then is spooled (drained into the table by the next round), not lost.
        with sqlite3.connect(tmp_path / "reflex.db") as database:  # Migrated inside them.
            in_table = database.execute("SELECT count(*) FROM leads").fetchone()[0]
        spooled = sum(
            len(path.read_text().splitlines()) for path in (tmp_path / "spool").glob("*.jsonl")
        )
        assert in_table + spooled == 1, (in_table, spooled)

        async def socket() -> str:
            async with (
                aiohttp.ClientSession() as session,
                session.ws_connect(
                    f"ws://127.0.0.1:{port}/_event/",
                    params={"EIO": "4", "transport": "websocket"},
                    headers={"Origin": url},
                ) as ws,  # fmt: skip
            ):
                assert (await ws.receive_str(timeout=10)).startswith("0")
                await ws.send_str("40")
                return await ws.receive_str(timeout=10)

        assert asyncio.run(socket()).startswith("40")
    finally:
        local_servers.stop_pid(process.pid)
        log.close()
    assert "Traceback" not in (tmp_path / "backend.log").read_text()
