"""The load test's bookers and fault drills, without a stack: what they send and change."""

import pytest

from agency_site.deploy import caddy
from agency_site.deploy.topology import from_settings
from agency_site.forms.declarations import IDEMPOTENCY_FIELD, submission_fields
from agency_site.forms.kinds import LeadKind
from agency_site.settings import load_settings
from scripts import stack
from scripts.loadtest import cli
from scripts.loadtest.bookers import booking_fields
from scripts.loadtest.visitors import RoundPlan
from tests.test_deploy import caddy_validate


def test_the_booking_posted_has_the_form_s_fields_and_a_key_per_submission() -> None:
    first, again = (
        booking_fields("run", 1, ("2030-01-07", "10:00")),
        booking_fields("run", 1, ("2030-01-07", "10:00")),
    )
    assert list(first) == [*submission_fields(LeadKind.BOOKING), IDEMPOTENCY_FIELD]
    assert first[IDEMPOTENCY_FIELD] != again[IDEMPOTENCY_FIELD]
    assert (
        booking_fields("run", 1, ("2030-01-07", "10:00"), key="k" * 32)[IDEMPOTENCY_FIELD]
        == "k" * 32
    )


@pytest.mark.parametrize("share, http", [(0.0, 0), (0.5, 100), (0.25, 50), (1.0, 200)])
def test_the_http_share_of_the_bookers_is_spread_evenly(share: float, http: int) -> None:
    plan = RoundPlan("u", 0, 200, 1, 1, 1, 0, [], "r", None, http_share=share)  # type: ignore[arg-type]
    chosen = [n for n in range(200) if plan.books_over_http(n)]
    assert len(chosen) == http
    assert share != 0.5 or chosen == list(range(1, 200, 2))


def test_a_fault_round_sends_bookings_over_both_paths_by_default() -> None:
    args = cli.parse_args(["--stack", "--fault", "postgres-stop-60"])
    assert args.http_share == cli.FAULT_HTTP_SHARE and args.bookings == cli.FAULT_BOOKINGS
    assert cli.parse_args(["--stack"]).http_share == 0
    monitor = cli.parse_args(["--stack", "--fault", "monitor-held-lead"])
    assert monitor.distinct_addresses and not monitor.h2load


def test_the_caddyfile_refusing_websockets_is_valid_and_keeps_the_rest(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setenv("REFLEX_DEPLOY_URL", "http://localhost:8080")
    monkeypatch.setenv("REFLEX_API_URL", "http://localhost:8080")
    generated = caddy.caddyfile(from_settings(load_settings(), static_root=str(tmp_path)))
    refusing = stack.refusing_websockets(generated)
    assert refusing.replace(stack._REFUSE_WEBSOCKET, "") == generated
    assert refusing.index("respond 403") < refusing.index("@backend path")
    result = caddy_validate(refusing, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]


def test_the_nginx_site_refusing_websockets_is_valid_and_refuses_only_upgrades(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The drill on the stack's default server: nginx answers 403 to an upgrade of /_event
    and passes the rest (the socket's polling, the pages) as generated."""
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    import httpx

    from agency_site.deploy import nginx
    from scripts import local_servers
    from tests.test_deploy import _static_site

    served_root = Path(tempfile.mkdtemp(prefix="agency-drill-"))  # nginx's workers read it.
    _static_site(served_root)

    port = local_servers.free_port()
    monkeypatch.setenv("REFLEX_DEPLOY_URL", f"http://localhost:{port}")
    monkeypatch.setenv("REFLEX_API_URL", f"http://localhost:{port}")
    monkeypatch.setenv("DEPLOY_BACKENDS", f"127.0.0.1:{local_servers.free_port()}")
    generated = nginx.server_block(from_settings(load_settings(), static_root=str(served_root)))
    refusing = stack.refusing_websockets_nginx(generated)
    assert refusing.replace(stack._NGINX_REFUSE, "") == generated
    prefix = served_root / "nginx"
    prefix.mkdir()
    (prefix / "agency_site.conf").write_text(refusing)
    (prefix / "nginx.conf").write_text(nginx.standalone_config(str(prefix)))
    process = subprocess.Popen(
        ["nginx", "-c", str(prefix / "nginx.conf"), "-p", str(prefix), "-g", "daemon off;"],
        start_new_session=True,
    )
    try:
        local_servers.wait_for_port(port)
        url = f"http://127.0.0.1:{port}"
        upgrade = {"Upgrade": "websocket", "Connection": "Upgrade"}
        assert (
            httpx.get(url + "/_event/?EIO=4&transport=websocket", headers=upgrade).status_code
            == 403
        )
        # Polling goes on to the backends (none listens here: 502), the pages are served.
        assert httpx.get(url + "/_event/?EIO=4&transport=polling").status_code == 502
        assert httpx.get(url + "/").status_code == 200
    finally:
        local_servers.stop_pid(process.pid)
        shutil.rmtree(served_root, ignore_errors=True)


def test_every_booking_of_a_run_asks_for_its_own_slot() -> None:
    import datetime as dt

    from scripts.loadtest.bookers import SlotPlan

    plan = SlotPlan(dt.datetime(2026, 12, 4, 9, 0, tzinfo=dt.UTC))  # A Friday.
    taken = [plan.take() for _ in range(400)]
    assert len(set(taken)) == 400
    assert taken[0] == ("2026-12-07", "09:00")  # Monday (Sunday + 1), the first slot.
    assert ("2026-12-08", "09:00") not in taken  # A public holiday (Immaculate Conception).
