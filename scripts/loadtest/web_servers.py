"""The web server in front of the stack's backends during a round: Caddy, which ``make stack``
runs, or nginx started here from the configuration ``make stack`` generated (the same
exported site, the same two backends), so one run can load both side by side.

Each is a ``WebServer``: its name, the URL the visitors use, and its processes now (master
and workers: their CPU time and open files are sampled beside the visitors).
"""

import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from scripts import local_servers
from scripts.loadtest.topology import StackInfo

SERVERS = ("caddy", "nginx")


@dataclass
class WebServer:
    """A web server the visitors of a round go through."""

    name: str
    url: str
    pids: Callable[[], list[int]]
    process: subprocess.Popen | None = None  # Started here: stopped by ``stop``.
    restore: list[tuple[Path, str]] = field(default_factory=list)  # Files to put back.


def caddy(stack: StackInfo) -> WebServer:
    """The stack's own Caddy (its pid read anew: a reload keeps it, a restart changes it)."""
    return WebServer(
        "caddy", stack.url.replace("localhost", "127.0.0.1"), lambda: stack.pids("caddy")
    )


def start_nginx(stack: StackInfo) -> WebServer:
    """nginx on a free loopback port, from the stack's generated configuration, with as many
    workers as the machine has cores (``worker_processes auto``, Debian's default)."""
    prefix = Path(stack.state()["nginx_prefix"])
    port = local_servers.free_port()
    site_conf = prefix / "agency_site.conf"
    main_conf = stack.state_dir / "conf" / "nginx.conf"
    restore = [(site_conf, site_conf.read_text()), (main_conf, main_conf.read_text())]
    site_conf.write_text(re.sub(r"listen \d+;", f"listen 127.0.0.1:{port};", restore[0][1]))
    main_conf.write_text(re.sub(r"worker_processes \d+;", "worker_processes auto;", restore[1][1]))
    process = subprocess.Popen(
        ["nginx", "-c", str(main_conf), "-p", str(prefix), "-g", "daemon off;"],
        start_new_session=True,
    )
    local_servers.wait_for_port(port)
    return WebServer("nginx", f"http://127.0.0.1:{port}", lambda: [process.pid], process, restore)


def start(name: str, stack: StackInfo) -> WebServer:
    """The web server ``name`` (one of ``SERVERS``) in front of the stack, ready."""
    return caddy(stack) if name == "caddy" else start_nginx(stack)


def stop(server: WebServer) -> None:
    """Stop what ``start`` started (by its pid) and put its configuration back."""
    if server.process is not None:
        local_servers.stop_pid(server.process.pid)
    for path, text in server.restore:
        path.write_text(text)
