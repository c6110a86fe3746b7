"""Settings: the environment wins over .env, which wins over the defaults; secrets stay secret."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from agency_site import settings as settings_module
from agency_site.settings import (
    BookingSettings,
    EmailJSSettings,
    LeadsSettings,
    ReflexSettings,
    load_env_file,
)


def test_defaults_let_the_site_run_with_nothing_set(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("EMAILJS_", "LEADS_", "REFLEX_DEPLOY", "REFLEX_DB")):
            monkeypatch.delenv(name)
    emailjs = EmailJSSettings(_env_file=None)
    assert not emailjs.configured
    assert ReflexSettings(_env_file=None).db_url.get_secret_value() == "sqlite:///data/reflex.db"
    assert LeadsSettings(_env_file=None).rate_limit_window_seconds == 600


def test_blank_values_mean_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEADS_RETRY_BASE_SECONDS", "")
    assert LeadsSettings(_env_file=None).retry_base_seconds == 60


def test_nonsense_numbers_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEADS_RATE_LIMIT_PER_IP", "-3")
    with pytest.raises(ValidationError):
        LeadsSettings(_env_file=None)


def test_secrets_never_show_in_reprs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMAILJS_PRIVATE_KEY", "very-secret-key")
    monkeypatch.setenv("REFLEX_DB_URL", "postgresql+psycopg://site:db-password@db/agency")
    emailjs, reflex = EmailJSSettings(_env_file=None), ReflexSettings(_env_file=None)
    assert "very-secret-key" not in repr(emailjs) and "very-secret-key" not in str(emailjs)
    assert "db-password" not in repr(reflex)
    assert emailjs.private_key.get_secret_value() == "very-secret-key"


def test_env_file_fills_in_what_the_environment_does_not_set(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("EMAILJS_SERVICE_ID=from_file\nEMAILJS_PUBLIC_KEY=file_key\n")
    monkeypatch.setenv("EMAILJS_PUBLIC_KEY", "from_environment")
    monkeypatch.delenv("EMAILJS_SERVICE_ID", raising=False)
    settings = EmailJSSettings(_env_file=env_file)
    assert settings.service_id == "from_file"
    assert settings.public_key == "from_environment"


def test_env_file_reaches_reflex_own_variables_without_overriding(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("REFLEX_REDIS_TOKEN_EXPIRATION=120\nREFLEX_API_URL=http://file\n")
    monkeypatch.delenv("REFLEX_REDIS_TOKEN_EXPIRATION", raising=False)
    monkeypatch.setenv("REFLEX_API_URL", "http://environment")
    load_env_file(env_file)
    assert os.environ["REFLEX_REDIS_TOKEN_EXPIRATION"] == "120"
    assert os.environ["REFLEX_API_URL"] == "http://environment"


def python_in_the_site_folder(code: str, *args: str, env: dict[str, str]) -> str:
    """What ``python -c code args`` prints in a new process in the site folder, with ``env``."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=settings_module.ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_a_dot_env_in_the_site_folder_configures_the_reflex_config(tmp_path) -> None:
    """What a deployer does: copy .env.example to .env, edit, run. Reflex sees it too."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REFLEX_", "AGENCY_"))}
    code = (
        "from pathlib import Path; import agency_site.settings as s; s.load_env_file(Path(%r));"
        "import rxconfig; from agency_site.content.site import SITE;"
        "print(rxconfig.config.db_url, rxconfig.config.api_url, SITE.email)"
    )
    env_file = tmp_path / ".env"
    env_file.write_text(
        "REFLEX_DB_URL=sqlite:///from-dotenv.db\nREFLEX_API_URL=https://api.example.es\n"
        "AGENCY_EMAIL=equipo@example.es\n"
    )
    out = python_in_the_site_folder(code % str(env_file), env=env)
    assert out.split() == [
        "sqlite:///from-dotenv.db",
        "https://api.example.es",
        "equipo@example.es",
    ]


def test_desk_host_is_a_domain_name_never_an_ip_address(monkeypatch: pytest.MonkeyPatch) -> None:
    """A passkey is bound to a domain name (WebAuthn): DESK_HOST names one, port optional."""
    from agency_site.settings import DeskSettings

    for value, kept in (
        ("Desk.Example.es", "desk.example.es"),
        ("desk.test:8443", "desk.test:8443"),
        ("", ""),
    ):
        monkeypatch.setenv("DESK_HOST", value)
        assert DeskSettings(_env_file=None).host == kept
    for wrong in ("127.0.0.1", "[::1]:8000", "https://desk.example.es/x", "a@desk.es"):
        monkeypatch.setenv("DESK_HOST", wrong)
        with pytest.raises(ValidationError, match="DESK_HOST"):
            DeskSettings(_env_file=None)


def test_several_workers_without_redis_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REFLEX_REDIS_URL", raising=False)
    monkeypatch.setenv("GRANIAN_WORKERS", "4")
    with pytest.raises(ValidationError, match="needs REFLEX_REDIS_URL"):
        settings_module.load_settings()


def test_workers_are_explicit_with_redis(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRANIAN_WORKERS", raising=False)
    monkeypatch.delenv("REFLEX_REDIS_URL", raising=False)
    assert settings_module.load_settings().backend_workers == 1
    monkeypatch.setenv("REFLEX_REDIS_URL", "redis://127.0.0.1:6379")
    assert settings_module.load_settings().backend_workers == 2
    monkeypatch.setenv("GRANIAN_WORKERS", "3")
    assert settings_module.load_settings().backend_workers == 3


def test_visitor_state_is_in_memory_without_redis(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRANIAN_WORKERS", raising=False)
    monkeypatch.delenv("REFLEX_REDIS_URL", raising=False)
    assert settings_module.load_settings().state_manager_mode == "memory"
    monkeypatch.setenv("REFLEX_REDIS_URL", "redis://127.0.0.1:6379")
    assert settings_module.load_settings().state_manager_mode == "redis"


def test_owner_and_booking_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("LEADS_", "BOOKING_")):
            monkeypatch.delenv(name)
    leads, booking = LeadsSettings(_env_file=None), BookingSettings(_env_file=None)
    assert (leads.retention_months, leads.canary_interval_seconds) == (12, 900)
    assert leads.health_max_queued_age_seconds == 3600
    assert leads.export_path == Path("~/agency_site-exports").expanduser()
    assert (booking.closed_dates, booking.min_notice_hours) == (frozenset(), 2)
    monkeypatch.setenv("LEADS_ALERT_WEBHOOK_URL", "https://hooks.slack.com/services/T/B/secret")
    monkeypatch.setenv("LEADS_RETENTION_MONTHS", "0")
    with pytest.raises(ValidationError):
        LeadsSettings(_env_file=None)
    monkeypatch.setenv("LEADS_RETENTION_MONTHS", "24")
    leads = LeadsSettings(_env_file=None)
    assert "/B/secret" not in repr(leads) and leads.retention_months == 24


def _rxconfig_in_a_fresh_process(env: dict[str, str], code: str) -> str:
    """Import rxconfig.py in a new process with only ``env``'s REFLEX_* variables; its output."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("REFLEX_", "AGENCY_"))}
    return python_in_the_site_folder(
        "import rxconfig; c = rxconfig.config; " + code, env={**base, **env}
    )


@pytest.mark.parametrize(
    ("ports", "api", "site"),
    [
        # `reflex run` (development) on Reflex's default ports.
        ({}, "http://localhost:8000", "http://localhost:3000"),
        # `make prod` (`reflex run --env prod --single-port`): both on the frontend's port.
        (
            {"REFLEX_FRONTEND_PORT": "3000", "REFLEX_BACKEND_PORT": "3000"},
            "http://localhost:3000",
            "http://localhost:3000",
        ),
        # `reflex run --frontend-port 3917 --backend-port 8001` (development).
        (
            {"REFLEX_FRONTEND_PORT": "3917", "REFLEX_BACKEND_PORT": "8001"},
            "http://localhost:8001",
            "http://localhost:3917",
        ),
    ],
)
def test_unset_urls_are_left_to_reflex_which_derives_them_from_its_ports(
    ports: dict[str, str], api: str, site: str
) -> None:
    """`reflex run` puts its ports in REFLEX_*_PORT and loads rxconfig.py again (issue 23)."""
    out = _rxconfig_in_a_fresh_process(
        ports,
        "from agency_site.settings import get_settings as g; s = g();"
        "print(c.api_url, c.deploy_url, s.reflex.api_url, s.site_url,"
        " sorted(c._non_default_attributes & {'api_url', 'deploy_url'}), *c.cors_allowed_origins)",
    )
    assert out.split() == [api, site, api, site, "[]", *dict.fromkeys((site, api))]


def test_configured_urls_win_over_the_ports() -> None:
    out = _rxconfig_in_a_fresh_process(
        {
            "REFLEX_API_URL": "https://api.example.es",
            "REFLEX_DEPLOY_URL": "https://www.example.es",
            "REFLEX_FRONTEND_PORT": "3917",
            "REFLEX_BACKEND_PORT": "3917",
        },
        "print(c.api_url, c.deploy_url, *c.cors_allowed_origins)",
    )
    assert out.split() == [
        "https://api.example.es",
        "https://www.example.es",
        "https://www.example.es",
        "https://api.example.es",
    ]


# Reads a .env, then prints every setting and what Reflex's config and environment took from it.
_DUMP_SETTINGS = """
import enum, json, os, sys
from pathlib import Path
from agency_site import settings as s
s.load_env_file(Path(sys.argv[1]))
import rxconfig
loaded, config = s.get_settings(), rxconfig.config
out = {}
for section in (loaded.reflex, loaded.agency, loaded.emailjs, loaded.leads, loaded.booking,
                loaded.deploy, loaded.granian, loaded.report, loaded.desk):
    prefix = type(section).model_config["env_prefix"]
    for name in type(section).model_fields:
        value = getattr(section, name)
        out[prefix + name.upper()] = getattr(value, "get_secret_value", lambda v=value: v)()
for name, value in loaded.emailjs.form_template_ids.items():  # EMAILJS_<KIND>_TEMPLATE_ID
    out[loaded.emailjs.variable(name)] = value
for name in ("state_manager_mode", "redis_token_expiration"):
    value = getattr(config, name)
    out["REFLEX_" + name.upper()] = value.value if isinstance(value, enum.Enum) else value
out["REFLEX_REDIS_MAX_CONNECTIONS"] = os.environ.get("REFLEX_REDIS_MAX_CONNECTIONS")
print(json.dumps(out))
"""


def test_uncommenting_every_line_of_env_example_loads_the_documented_values(tmp_path) -> None:
    """What a deployer does: copy .env.example to .env and uncomment lines. Every value
    after "=" is what the site (and Reflex) then use: no note ever ends up in a value."""
    import json
    import re

    from email_validator import validate_email
    from sqlalchemy.engine import make_url

    example = (settings_module.ROOT / ".env.example").read_text()
    variable = re.compile(r"^# ([A-Z][A-Z0-9_]*)=(.*)$")
    documented: dict[str, str] = {}
    for line in example.splitlines():
        if found := variable.match(line):
            documented[found[1]] = found[2]  # A later example line wins, as in the .env.
    assert len(documented) > 40
    for name, text in documented.items():
        # A note on a value's line (two spaces, "(...)") would become part of the value.
        assert not re.search(r"\s{2,}|\s\(|\s#", text), f"{name}: a note in the value: {text!r}"
        if name.endswith("_URL") or name.endswith("_URLS"):
            assert not re.search(r"\s", text), f"{name}: {text!r} is not one URL"
    validate_email(documented["AGENCY_EMAIL"], check_deliverability=False)
    make_url(documented["REFLEX_DB_URL"])
    env_file = tmp_path / ".env"
    env_file.write_text(
        "\n".join(line[2:] if variable.match(line) else line for line in example.splitlines())
    )
    names = (*documented, "REFLEX_FRONTEND_PORT", "REFLEX_BACKEND_PORT")
    env = {k: v for k, v in os.environ.items() if k not in names}
    loaded = json.loads(python_in_the_site_folder(_DUMP_SETTINGS, str(env_file), env=env))
    for name, text in documented.items():
        assert name in loaded, f"{name} is documented in .env.example but read by nothing"
        value = loaded[name]
        if text == "":
            assert value in (None, ""), name  # Blank means unset.
        elif isinstance(value, bool):  # true/false, as an .env spells them.
            assert str(value).lower() == text.lower(), name
        elif not isinstance(value, int | float):
            assert str(value) == text, name
        else:
            assert value == type(value)(text), name


def test_a_checkouts_write_paths_are_its_ignored_data_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`make run` writes into data/ of the checkout; the generated units move every one of
    these into DEPLOY_DATA_DIR (tests/test_systemd_units.py)."""
    from agency_site.leads.runtime import write_folders

    for name in list(os.environ):
        if name.startswith(("LEADS_", "REFLEX_DB")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(settings_module.ROOT)
    settings = settings_module.Settings(
        reflex=ReflexSettings(_env_file=None),
        agency=settings_module.AgencySettings(_env_file=None),
        emailjs=EmailJSSettings(_env_file=None),
        leads=LeadsSettings(_env_file=None),
        booking=BookingSettings(_env_file=None),
        deploy=settings_module.DeploySettings(_env_file=None),
    )
    data = settings_module.ROOT / "data"
    assert write_folders(settings) == {
        "LEADS_SPOOL_DIR": data / "spool",
        "LEADS_ERASURE_LOG": data,
        "REFLEX_DB_URL": data,
    }
    files = ["data/spool/spool-x.jsonl", "data/erasures.log", "data/reflex.db"]
    ignored = subprocess.run(
        ["git", "check-ignore", *files], cwd=settings_module.ROOT, capture_output=True, text=True
    )
    assert ignored.stdout.split() == files


def test_a_lead_written_to_the_data_folder_does_not_restart_the_development_backend() -> None:
    """`reflex run` restarts its development backend when a file it watches changes. Left to
    itself Reflex watches every file and folder of the site folder, data/ included, where
    each worker's start-up write probe lands: the backend restarted every ten seconds and a
    visitor's answer was lost (CI, test_reflex_run). Asked as `reflex run` asks: a console
    script, so the site folder is not on sys.path (``-P``) until Reflex loads rxconfig.py."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REFLEX_", "AGENCY_"))}
    code = (
        "from reflex.config import get_config; get_config(); "
        "from reflex.utils.exec import get_reload_paths; "
        "print('\\n'.join(str(path) for path in get_reload_paths()))"
    )
    watched = subprocess.run(
        [sys.executable, "-P", "-c", code],
        cwd=settings_module.ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    root = settings_module.ROOT
    assert sorted(Path(path).relative_to(root).as_posix() for path in watched) == [
        "agency_site",
        "alembic",
        "rxconfig.py",
    ]
