"""nginx's limits for a burst of visitors: one place for the stack's ``nginx.conf`` and the site
block (``nginx.py``) and for a host's Debian ``nginx.conf`` (``scripts/prepare_host.py``, which
runs with the system's ``python3`` before any venv: so this module imports nothing).
"""

# Connections waiting for a worker to accept them. nginx's own default (511) overflows when a
# burst of visitors meets busy CPUs (the load test's 40,000 readers in 20 s: 158,000 dropped
# SYNs, each retried 1 s, 3 s, 7 s later); the kernel caps it at net.core.somaxconn (4096
# since Linux 5.4, Debian 12's default).
LISTEN_BACKLOG = 4096
# One worker's connections (visitors' and the backends' alike; every open form's websocket
# holds one for the whole visit), and the open files that needs (a proxied request holds two).
# Debian's nginx.conf has 768 per worker: prepare_host.py raises it to this.
WORKER_CONNECTIONS = 16384
WORKER_OPEN_FILES = 2 * WORKER_CONNECTIONS
