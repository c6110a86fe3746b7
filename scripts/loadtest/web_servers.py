"""The web server in front of the stack's backends during a round: the one ``make stack``
runs (nginx, or Caddy with ``STACK_SERVER=caddy``), or the other one started here beside it
from the configuration ``make stack`` rendered (the same exported site, the same two
backends), so one run can load both side by side. The stack tests use the same servers.

Each is a ``WebServer``: its name, the URL the visitors use, its processes now (master
and workers: their CPU time and open files are sampled beside the visitors) and its
access log.
"""

import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from scripts import local_servers
from scripts.loadtest.topology import StackInfo
from scripts.prepare_host import CADDY_ENVIRONMENT

SERVERS = ("caddy", "nginx")


@dataclass
class WebServer:
    """A web server the visitors of a round go through."""

    name: str
    url: str
    pids: Callable[[], list[int]]
    access_log: Path
    process: subprocess.Popen | None = None  # Started here: stopped by ``stop``.
    restore: list[tuple[Path, str]] = field(default_factory=list)  # Files to put back.


def stack_server(stack: StackInfo) -> str:
    """The web server ``make stack`` runs (Caddy for a stack started before the choice)."""
    return stack.state().get("server", "caddy")


def _nginx_prefix(stack: StackInfo) -> Path:
    return Path(stack.state()["nginx_prefix"])


def _own(stack: StackInfo) -> WebServer:
    """The stack's own web server (its pid read anew: a reload keeps it, a restart changes it)."""
    name = stack_server(stack)
    log = stack.state_dir / "access.log" if name == "caddy" else _nginx_prefix(stack) / "access.log"
    url = stack.url.replace("localhost", "127.0.0.1")
    return WebServer(name, url, lambda: stack.pids(name), log)


def start_nginx(stack: StackInfo) -> WebServer:
    """nginx on a free loopback port, from the stack's rendered configuration (its site file
    edited for the port while it runs, then put back)."""
    prefix = _nginx_prefix(stack)
    port = local_servers.free_port()
    site_conf = prefix / "agency_site.conf"
    main_conf = stack.state_dir / "conf" / "nginx.conf"
    restore = [(site_conf, site_conf.read_text())]
    site_conf.write_text(re.sub(r"listen \d+\b", f"listen 127.0.0.1:{port}", restore[0][1]))
    process = subprocess.Popen(
        ["nginx", "-c", str(main_conf), "-p", str(prefix), "-g", "daemon off;"],
        start_new_session=True,
    )
    local_servers.wait_for_port(port)
    url = f"http://127.0.0.1:{port}"
    return WebServer("nginx", url, lambda: [process.pid], prefix / "access.log", process, restore)


def start_caddy(stack: StackInfo) -> WebServer:
    """Caddy on a free loopback port, from the stack's rendered Caddyfile (a copy: its port,
    no admin endpoint, its own access log), with a prepared host's Go runtime settings."""
    conf = stack.state_dir / "conf"
    port = local_servers.free_port()
    log = stack.state_dir / "caddy-beside-access.log"
    text = (conf / "Caddyfile").read_text()
    text = re.sub(r"http://:\d+ \{", f"http://:{port} {{", text, count=1)
    text = re.sub(r"(?m)^(\s*admin) \S+$", r"\1 off", text, count=1)
    text = re.sub(r"(?m)^(\s*output file) \S+", rf"\1 {log}", text, count=1)
    beside = conf / "Caddyfile.beside"
    beside.write_text(text)
    env = {
        **os.environ,
        **CADDY_ENVIRONMENT,
        "XDG_DATA_HOME": str(stack.state_dir),
        "XDG_CONFIG_HOME": str(stack.state_dir),
    }
    with (stack.state_dir / "caddy-beside.log").open("ab") as out:
        process = subprocess.Popen(
            ["caddy", "run", "--config", str(beside), "--adapter", "caddyfile"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    local_servers.wait_for_port(port)
    return WebServer("caddy", f"http://127.0.0.1:{port}", lambda: [process.pid], log, process)


def start(name: str, stack: StackInfo) -> WebServer:
    """The web server ``name`` (one of ``SERVERS``) in front of the stack, ready: the stack's
    own, or the other one started beside it."""
    if name == stack_server(stack):
        return _own(stack)
    return start_caddy(stack) if name == "caddy" else start_nginx(stack)


def stop(server: WebServer) -> None:
    """Stop what ``start`` started (by its pid) and put its configuration back."""
    if server.process is not None:
        local_servers.stop_pid(server.process.pid)
    for path, text in server.restore:
        path.write_text(text)
