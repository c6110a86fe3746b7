"""The production topology on this machine's loopback: ``make stack`` / ``make stack-down``.

    make stack                      # Redis, PostgreSQL, 2 backends x 2 workers, nginx: http://localhost:8080
    make stack STACK_SERVER=caddy   # Caddy in front instead (the documented alternative)
    make stack STACK_PORT=9080      # beside a dev server
    make stack STACK_FRONTEND_ZIP=frontend.zip  # first release: a `make export` made for its URL
    make stack-down                 # stops everything it started, by pid
    make stack-release              # release the checkout to the running stack, checked
    make stack-release STACK_RELEASE_ARGS=--rollback    # back to the previous release
    .venv/bin/python scripts/stack.py kill-backend 1    # fault drills: SIGKILL one backend...
    .venv/bin/python scripts/stack.py start-backend 1   # ...and bring it back
    .venv/bin/python scripts/stack.py restart-redis     # stop by pid, start on the same port
    .venv/bin/python scripts/stack.py restart-postgres  # the same, on the same data
    .venv/bin/python scripts/stack.py stop-postgres     # stopped until start-postgres
    .venv/bin/python scripts/stack.py stop-redis        # stopped until start-redis
    .venv/bin/python scripts/stack.py websocket refuse   # the web server answers 403 to upgrades
    .venv/bin/python scripts/stack.py websocket allow    # ...and passes them on again

What runs (ports from STACK_PORT, default 8080):
    nginx (or Caddy) STACK_PORT      the static export, /_event /ping /_health /_site/* balanced
    backend 1 and 2  STACK_PORT+11, +12   `reflex run --env prod --backend-only`, 2 workers each
    Redis            STACK_PORT+13   shared visitor state and rate-limit counts
    PostgreSQL       STACK_PORT+14   the leads

The backends get the caller's EMAILJS_* and LEADS_* variables. Logs, pids and
configurations live in ``.stack/``; the PostgreSQL cluster, the releases (``www`` is a
symlink to the live one, as on a server), the web workdir releases are built in and
nginx's folders in
``/tmp/agency-stack-<port>/`` (other users' processes read them);
the database starts empty on each ``up``. Its first release is exported from the checkout, or
is ``STACK_FRONTEND_ZIP``: a ``frontend.zip`` exported with the stack's URL baked in
(``REFLEX_API_URL=REFLEX_DEPLOY_URL=http://localhost:8080 make export``: CI does, and serves
the export it checked instead of building the same site again). ``.stack/env`` holds the stack's REFLEX_DB_URL and REFLEX_REDIS_URL for the
operator command or a load test, and DEPLOY_ACCESS_LOG: the web server's access log (nginx's in
its folder, Caddy's ``.stack/access.log``), for ``python -m agency_site.report``.

The web server is nginx, as on a host prepared by ``scripts/prepare_host.py`` (the deployed
default: docs/deploy.md), from the configuration the release renders (its standalone
``nginx.conf`` in ``.stack/conf/``); ``STACK_SERVER=caddy`` puts Caddy there instead, from
the rendered Caddyfile. The load test and the stack tests start the other one beside it
on a free port (``scripts/loadtest/web_servers.py``).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts import local_servers  # noqa: E402
from scripts.prepare_host import CADDY_ENVIRONMENT, DEFAULT_SERVER  # noqa: E402
from scripts.production_site import own_web_workdir, reflex_prod  # noqa: E402

STATE_DIR = ROOT / ".stack"
PIDS = STATE_DIR / "pids.json"
BACKENDS = 2
WORKERS_PER_BACKEND = 2
START_TIMEOUT_S = 300
# Passed on to the backends from the caller's environment.
PASSED_PREFIXES = ("EMAILJS_", "LEADS_", "AGENCY_", "BOOKING_")


def served_dir(base: int) -> Path:
    """What other users' processes read: PostgreSQL's cluster (user ``postgres``), the
    exported site and nginx's folders (its workers run as ``nobody``). Under the system's
    temporary folder, which they reach whatever the permissions of the clone's folders."""
    import tempfile

    return Path(tempfile.gettempdir()) / f"agency-stack-{base}"


def release_web(base: int) -> Path:
    """The releases' web workdir (REFLEX_WEB_WORKDIR), copied from the checkout's .web/ with
    its packages hard-linked (production_site.own_web_workdir: beside its template, on the
    system's temporary folder): a release builds there, and a build of .web/ meanwhile (a
    test's `make prod`) disturbs it no more than it disturbs that build."""
    return served_dir(base) / "web"


def postgres_dir(base: int) -> Path:
    """The cluster's folder."""
    return served_dir(base) / "postgres"


def ports(base: int) -> dict[str, int]:
    """Every port of the stack, from its public one."""
    return {
        "web": base,
        **{f"backend{n}": base + 10 + n for n in range(1, BACKENDS + 1)},
        "redis": base + 13,
        "postgres": base + 14,
    }


def _log(message: str, started: float) -> None:
    print(f"[stack {time.monotonic() - started:6.1f}s] {message}", flush=True)


def _load() -> dict:
    return json.loads(PIDS.read_text()) if PIDS.exists() else {}


def _save(state: dict) -> None:
    PIDS.write_text(json.dumps(state, indent=2))
    PIDS.chmod(0o600)  # It keeps the EmailJS settings the backends were started with.


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().split()[2] != "Z"


def _site_env(state: dict, base: int) -> dict[str, str]:
    """The environment every backend and the export share (a restarted backend gets the same)."""
    url = f"http://localhost:{base}"
    passed = {k: v for k, v in os.environ.items() if k.startswith(PASSED_PREFIXES)}
    state.setdefault("passed", passed)
    own = (*PASSED_PREFIXES, "REFLEX_", "GRANIAN_")
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(own)},
        **state["passed"],
        "REFLEX_DEPLOY_URL": url,
        "REFLEX_API_URL": url,
        "REFLEX_DB_URL": state["db_url"],
        "REFLEX_REDIS_URL": state["redis_url"],
        "REFLEX_TRUSTED_PROXY_HOPS": "1",
        "PYTHONUNBUFFERED": "1",
    }


def _run(command: list[str], env: dict[str, str], log: Path) -> None:
    with log.open("ab") as out:
        result = subprocess.run(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    if result.returncode:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:])
        raise SystemExit(f"`{' '.join(command)}` failed:\n{tail}")


def start_backend(state: dict, number: int) -> int:
    """Start backend ``number`` (1-based) and record its pid."""
    base = state["port"]
    port = ports(base)[f"backend{number}"]
    log = STATE_DIR / f"backend{number}.log"
    env = {**_site_env(state, base), "GRANIAN_WORKERS": str(WORKERS_PER_BACKEND)}
    with log.open("ab") as out:
        process = subprocess.Popen(
            reflex_prod(port, "--backend-only", "--backend-host", "127.0.0.1"),
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    state["pids"][f"backend{number}"] = process.pid
    _save(state)
    return process.pid


def kill_backend(state: dict, number: int) -> None:
    """SIGKILL backend ``number`` and all its workers (a crash, not a shutdown)."""
    import signal

    pid = state["pids"].pop(f"backend{number}", None)
    if pid:
        local_servers.stop_pid(pid, signal.SIGKILL, timeout=5)
    _save(state)


def stop_redis(state: dict) -> None:
    """Stop Redis by pid (it keeps nothing on disk)."""
    if pid := state["pids"].pop("redis", None):
        local_servers.stop_pid(pid)
    _save(state)


def start_redis(state: dict) -> None:
    """Start Redis again on its port."""
    redis = local_servers.start_redis(STATE_DIR / "redis", ports(state["port"])["redis"])
    state["pids"]["redis"] = redis.pid
    _save(state)


def restart_redis(state: dict, down_s: float = 0.0) -> None:
    """Stop Redis by pid and start it again on its port ``down_s`` later."""
    stop_redis(state)
    time.sleep(down_s)
    start_redis(state)


def stop_postgres(state: dict) -> None:
    """Stop PostgreSQL by pid (fast shutdown)."""
    import signal

    if pid := state["pids"].pop("postgres", None):
        local_servers.stop_pid(pid, signal.SIGINT, group=False)
    _save(state)


def start_postgres(state: dict) -> None:
    """Start PostgreSQL again on its port and data."""
    folder, port = postgres_dir(state["port"]), ports(state["port"])["postgres"]
    state["pids"]["postgres"] = local_servers.start_postgres_cluster(folder, port)
    _save(state)


def restart_postgres(state: dict, down_s: float = 0.0) -> None:
    """Stop PostgreSQL by pid and start it again on its port and data ``down_s`` later."""
    stop_postgres(state)
    time.sleep(down_s)
    start_postgres(state)


# A fault drill's Caddyfile: websocket upgrades of /_event answered 403 (a proxy or a
# corporate network that blocks websockets); everything else as generated.
_REFUSE_WEBSOCKET = """\t# Fault drill (stack.py websocket refuse): no websocket upgrade.
\t@upgrade {
\t\tpath /_event /_event/*
\t\theader Connection *Upgrade*
\t\theader Upgrade websocket
\t}
\thandle @upgrade {
\t\trespond 403
\t}

"""


def refusing_websockets(caddyfile: str) -> str:
    """The generated Caddyfile with websocket upgrades of /_event answered 403."""
    anchor = "\t# Websocket events, liveness/health"
    if anchor not in caddyfile:
        raise SystemExit("The Caddyfile has no backend block to put the refusal before.")
    return caddyfile.replace(anchor, _REFUSE_WEBSOCKET + anchor, 1)


# The same drill in nginx's site: an upgrade of /_event is answered 403 in its location.
_NGINX_EVENT = "    location /_event {\n"
_NGINX_REFUSE = "        if ($http_upgrade) {  # Fault drill (stack.py websocket refuse).\n            return 403;\n        }\n"


def refusing_websockets_nginx(site: str) -> str:
    """The generated nginx site with websocket upgrades of /_event answered 403."""
    if site.count(_NGINX_EVENT) != 1:
        raise SystemExit("The nginx site has no single /_event location to refuse upgrades in.")
    return site.replace(_NGINX_EVENT, _NGINX_EVENT + _NGINX_REFUSE, 1)


def web_server(state: dict) -> str:
    """The web server in front of this stack (Caddy for one started before there was a choice)."""
    return state.get("server", "caddy")


def _web_files(state: dict) -> tuple[Path, Callable[[str], str]]:
    """The file the drill edits and how: Caddy's Caddyfile or nginx's site."""
    if web_server(state) == "caddy":
        return STATE_DIR / "conf" / "Caddyfile", refusing_websockets
    return Path(state["nginx_prefix"]) / "agency_site.conf", refusing_websockets_nginx


def websocket(state: dict, refuse: bool) -> None:
    """Make the stack's web server refuse websocket upgrades (``refuse``) or pass them again."""
    path, refusing = _web_files(state)
    generated = path.with_name(path.name + ".generated")
    if not generated.exists():
        shutil.copy2(path, generated)
    text = generated.read_text()
    path.write_text(refusing(text) if refuse else text)
    _web_reload(state)


def access_log_env() -> dict[str, str]:
    """The rendered Caddyfile's access log, in .stack/."""
    return {"DEPLOY_ACCESS_LOG": str(STATE_DIR / "access.log")}


def access_log(state: dict) -> Path:
    """The access log of the stack's web server, where `python -m agency_site.report` reads:
    Caddy's (``access_log_env``), or nginx's in its folder (``nginx.standalone_config``)."""
    if web_server(state) == "caddy":
        return STATE_DIR / "access.log"
    return Path(state["nginx_prefix"]) / "access.log"


def backend_addresses(base: int) -> list[str]:
    """host:port of every backend, in order."""
    return [f"127.0.0.1:{ports(base)[f'backend{n}']}" for n in range(1, BACKENDS + 1)]


def _caddy_admin(state: dict) -> str:
    """Caddy's admin endpoint: a socket only this stack knows (reloads go through it)."""
    return f"unix/{served_dir(state['port']) / 'caddy-admin.sock'}"


def _web_reload(state: dict) -> None:
    """The stack's web server reads its configuration again: Caddy through its admin socket,
    nginx by its signal (``nginx -s reload``), as ``systemctl reload`` does on a host."""
    from agency_site.deploy import release as releases

    if web_server(state) == "caddy":
        command = ["caddy", "reload", "--config", str(STATE_DIR / "conf" / "Caddyfile"),
                   "--adapter", "caddyfile", "--address", _caddy_admin(state)]  # fmt: skip
    else:
        command = ["nginx", "-c", str(STATE_DIR / "conf" / "nginx.conf"),
                   "-p", state["nginx_prefix"], "-s", "reload"]  # fmt: skip
    releases.run(command, f"{web_server(state)} reload")


def release_target(state: dict):
    """The release steps of this stack (agency_site/deploy/release.py does them in order)."""
    from agency_site.deploy import release as releases

    base = state["port"]
    env = _site_env(state, base)
    # The release runs in this process: the settings it renders from are the stack's.
    os.environ.update(
        {**env, "DEPLOY_BACKENDS": ",".join(backend_addresses(base)), **access_log_env()}
    )

    web = release_web(base)

    def export(folder: Path) -> None:
        if not web.is_dir():
            own_web_workdir(web, env)
        _run(
            [sys.executable, "-m", "reflex", "export", "--frontend-only", "--no-zip"],
            {**env, "REFLEX_WEB_WORKDIR": str(web)},
            STATE_DIR / "export.log",
        )
        releases.copy_export(ROOT, folder, web)

    def restart_backend(address: str) -> None:
        number = backend_addresses(base).index(address) + 1
        pid = state["pids"].pop(f"backend{number}", None)
        if pid:
            local_servers.stop_pid(pid)
        start_backend(state, number)

    return releases.Target(
        static_root=Path(state["www"]),
        conf_dir=STATE_DIR / "conf",
        server=web_server(state),
        public_url=f"http://localhost:{base}",
        reload=lambda: _web_reload(state),
        migrate=lambda: _run(
            [sys.executable, "-m", "reflex", "db", "migrate"], env, STATE_DIR / "migrate.log"
        ),
        backends=backend_addresses(base),
        restart_backend=restart_backend,
        export=export,
        keep=3,
        nginx_prefix=Path(state["nginx_prefix"]),
        caddy_admin=_caddy_admin(state),
    )


def unpack_export(frontend_zip: Path, folder: Path, url: str) -> None:
    """``frontend_zip`` (``reflex export``'s) unpacked as the release ``folder``, once its home
    page says it was built for ``url`` (SystemExit if not: its links would lead elsewhere)."""
    with zipfile.ZipFile(frontend_zip) as exported:
        home = exported.read("index.html").decode()
        if f'<link href="{url}/" rel="canonical"/>' not in home:
            raise SystemExit(
                f"{frontend_zip} was not exported for {url}: export it with "
                f"REFLEX_API_URL={url} REFLEX_DEPLOY_URL={url} make export"
            )
        exported.extractall(folder)
    folder.chmod(0o755)


def release(state: dict, rollback: bool, fault: str | None) -> int:
    """`make stack-release`: the release (or rollback) of the checkout to this stack."""
    from agency_site.deploy import release as releases
    from agency_site.deploy.release_checks import ReleaseError

    if not state.get("pids", {}).get(web_server(state)):
        raise SystemExit("No stack is running: `make stack` first.")
    target = release_target(state)
    export = target.export
    if fault == "csp":
        # A fault drill: an inline script the CSP does not list (what a stale web-server
        # file did to every page), so the smoke check fails and the release switches back.
        # What it drills is the switch back, not the build: it releases the last export
        # (in release_web) again, broken, instead of building the same one a second time.
        def broken_export(folder: Path) -> None:
            web = release_web(state["port"])
            if (web / "build" / "client").is_dir():
                releases.copy_export(ROOT, folder, web)
            else:
                export(folder)
            page = folder / "index.html"
            page.write_text(page.read_text().replace("</body>", "<script>1</script></body>", 1))

        target.export = broken_export
    try:
        (releases.rollback if rollback else releases.release)(target)
    except ReleaseError as error:
        print(f"Release failed: {error}", file=sys.stderr)
        return 1
    finally:
        _save(state)
    return 0


def _wait_ok(url: str, timeout: float, check=None, pid: int | None = None) -> None:
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        if pid is not None and not _alive(pid):
            raise SystemExit(f"The process behind {url} (pid {pid}) died; see .stack/*.log")
        try:
            with urllib.request.urlopen(url, timeout=3) as response:
                body = response.read().decode(errors="replace")
                if response.status == 200 and (check is None or check(body)):
                    return
                last = f"{response.status} {body[:200]}"
        except OSError as error:
            last = str(error)
        time.sleep(0.5)
    raise SystemExit(f"{url} did not answer in {timeout:.0f} s (last: {last}); see .stack/*.log")


def _start_servers(state: dict, started: float) -> None:
    """Redis and PostgreSQL (an empty cluster), and ``.stack/env`` naming them."""
    base, port = state["port"], ports(state["port"])
    redis = local_servers.start_redis(STATE_DIR / "redis", port["redis"])
    state["pids"]["redis"] = redis.pid
    state["redis_url"] = redis.url
    _save(state)
    _log(f"Redis on {redis.url}", started)
    if served_dir(base).exists():
        shutil.rmtree(served_dir(base))
    served_dir(base).mkdir(mode=0o755)
    served_dir(base).chmod(0o755)
    postgres = local_servers.start_postgres(postgres_dir(base), port["postgres"])
    state["pids"]["postgres"] = postgres.pid
    state["db_url"] = postgres.url
    _save(state)
    _observe_postgres(state)
    _log(f"PostgreSQL on 127.0.0.1:{postgres.port}", started)
    (STATE_DIR / "env").write_text(
        f"REFLEX_DB_URL={postgres.url}\nREFLEX_REDIS_URL={redis.url}\n"
        f"REFLEX_API_URL=http://localhost:{base}\nREFLEX_DEPLOY_URL=http://localhost:{base}\n"
        f"DEPLOY_ACCESS_LOG={access_log(state)}\n"
    )


# What the stack's PostgreSQL records for a load test's questions (docs/loadtest.md, "A year
# of leads"): every statement's count and time (pg_stat_statements, its view in the
# database), each statement slower than 50 ms, lock waits, checkpoints and autovacuum's
# runs in its log.
_OBSERVE_POSTGRES = {
    "shared_preload_libraries": "pg_stat_statements",
    "log_min_duration_statement": "50ms",
    "log_lock_waits": "on",
    "log_checkpoints": "on",
    "log_autovacuum_min_duration": "0",
}


def _observe_postgres(state: dict) -> None:
    """Turn on the stack's PostgreSQL's statement statistics and log (``_OBSERVE_POSTGRES``):
    written with ALTER SYSTEM, read after a restart; the extension's view created."""
    import sqlalchemy as sa

    engine = sa.create_engine(state["db_url"], isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            for name, value in _OBSERVE_POSTGRES.items():
                connection.execute(sa.text(f"ALTER SYSTEM SET {name} = '{value}'"))
        engine.dispose()
        restart_postgres(state)
        with engine.connect() as connection:
            connection.execute(sa.text("CREATE EXTENSION IF NOT EXISTS pg_stat_statements"))
    finally:
        engine.dispose()


def _start_web_server(state: dict) -> int:
    """The stack's web server with the installed configuration; its pid."""
    if web_server(state) == "caddy":
        env = {
            **os.environ,
            **CADDY_ENVIRONMENT,  # What a prepared host's caddy.service gets.
            "XDG_DATA_HOME": str(STATE_DIR),
            "XDG_CONFIG_HOME": str(STATE_DIR),
        }
        config = str(STATE_DIR / "conf" / "Caddyfile")
        command = ["caddy", "run", "--config", config, "--adapter", "caddyfile"]
    else:
        env = dict(os.environ)
        command = ["nginx", "-c", str(STATE_DIR / "conf" / "nginx.conf"),
                   "-p", state["nginx_prefix"], "-g", "daemon off;"]  # fmt: skip
    with (STATE_DIR / f"{web_server(state)}.log").open("ab") as out:
        process = subprocess.Popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    state["pids"][web_server(state)] = process.pid
    _save(state)
    return process.pid


def up(base: int, server: str) -> None:
    """Start the whole topology and return once the web server serves / and /_health."""
    from agency_site.deploy import release as releases

    started = time.monotonic()
    if any(_alive(pid) for pid in _load().get("pids", {}).values()):
        raise SystemExit("The stack is already running: `make stack-down` first.")
    local_servers.ensure_installed()
    if STATE_DIR.exists():
        shutil.rmtree(STATE_DIR)
    STATE_DIR.mkdir()
    STATE_DIR.chmod(0o755)  # PostgreSQL runs as its own user and must reach its folder.
    state: dict = {"port": base, "pids": {}, "server": server}
    state["nginx_prefix"] = str(served_dir(base) / "nginx")
    _save(state)
    _start_servers(state, started)
    env = _site_env(state, base)
    _run([sys.executable, "-m", "reflex", "db", "migrate"], env, STATE_DIR / "migrate.log")
    _log("Leads database migrated", started)
    state["www"] = str(served_dir(base) / "www")
    _save(state)
    target = release_target(state)
    first = releases.new_release(target)
    if exported := os.environ.get("STACK_FRONTEND_ZIP"):
        unpack_export(Path(exported), first, f"http://localhost:{base}")
        how = f"unpacked from {exported}, exported with its URL"
    else:
        target.export(first)
        how = "exported with its URL baked in"
    releases.switch(target, first)
    _log(f"Site {how} ({first})", started)
    # One at a time, like a release: `reflex run` clears the disk-state folder as it
    # starts, and two starting at once in the same folder can trip over each other.
    for number in range(1, BACKENDS + 1):
        pid = start_backend(state, number)
        backend = f"127.0.0.1:{ports(base)[f'backend{number}']}"
        _wait_ok(f"http://{backend}/ping", START_TIMEOUT_S, pid=pid)
        _log(f"Backend {number} answers on {backend}", started)
    releases.install(target, releases.rendered_files(target, first))
    web = _start_web_server(state)
    url = f"http://localhost:{base}"
    _wait_ok(f"{url}/", 30, pid=web)
    _wait_ok(f"{url}/_health", 60, lambda body: json.loads(body).get("status") is True)
    backends = ",".join(backend_addresses(base))
    _log(f"Up: {url}  ({server}; backends {backends}, {WORKERS_PER_BACKEND} workers each)", started)
    print(url)


def down() -> None:
    """Stop every process the stack started, by pid (the web server first, PostgreSQL last)."""
    import signal

    state = _load()
    pids: dict[str, int] = state.get("pids", {})
    backends = sorted(k for k in pids if k.startswith("backend"))
    order = ["caddy", "nginx", *backends, "redis", "postgres"]
    for name in order:
        pid = pids.get(name)
        if pid and _alive(pid):
            if name == "postgres":
                local_servers.stop_pid(pid, signal.SIGINT, group=False)
            else:
                local_servers.stop_pid(pid)
            print(f"stopped {name} (pid {pid})")
    if PIDS.exists():
        PIDS.unlink()


SERVER_COMMANDS = {
    "stop-postgres": stop_postgres,
    "start-postgres": start_postgres,
    "stop-redis": stop_redis,
    "start-redis": start_redis,
}


def main() -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(prog="scripts/stack.py", description=__doc__.split("\n")[0])
    parser.add_argument(
        "command",
        choices=[
            "up",
            "down",
            "kill-backend",
            "start-backend",
            "restart-redis",
            "restart-postgres",
            *SERVER_COMMANDS,
            "websocket",
            "release",
        ],
    )
    parser.add_argument(
        "number", nargs="?", default="1", help="backend 1 or 2; websocket: refuse|allow"
    )
    parser.add_argument(
        "--down-seconds", type=float, default=0.0, help="restart-*: stay stopped this long"
    )
    parser.add_argument("--rollback", action="store_true", help="release: the previous one")
    parser.add_argument("--fault", choices=["csp"], help="release: a broken release (drill)")
    parser.add_argument("--port", type=int, default=int(os.environ.get("STACK_PORT", "8080")))
    parser.add_argument(
        "--server",
        choices=("nginx", "caddy"),
        default=os.environ.get("STACK_SERVER") or DEFAULT_SERVER,
        help="up: the web server in front (STACK_SERVER; default nginx, as a prepared host)",
    )
    args = parser.parse_args()
    if args.command == "up":
        try:
            up(args.port, args.server)
        except BaseException:
            down()  # Leave nothing half-started behind.
            raise
    elif args.command == "down":
        down()
    elif args.command == "release":
        return release(_load(), args.rollback, args.fault)
    elif args.command == "kill-backend":
        kill_backend(_load(), int(args.number))
    elif args.command in SERVER_COMMANDS:
        SERVER_COMMANDS[args.command](_load())
    elif args.command == "websocket":
        if args.number not in ("refuse", "allow"):
            parser.error("websocket refuse|allow")
        websocket(_load(), refuse=args.number == "refuse")
    elif args.command == "restart-redis":
        restart_redis(_load(), args.down_seconds)
    elif args.command == "restart-postgres":
        restart_postgres(_load(), args.down_seconds)
    else:
        state = _load()
        number = int(args.number)
        pid = start_backend(state, number)
        port = ports(state["port"])[f"backend{number}"]
        _wait_ok(f"http://127.0.0.1:{port}/ping", START_TIMEOUT_S, pid=pid)
    return 0


if __name__ == "__main__":
    sys.exit(main())
