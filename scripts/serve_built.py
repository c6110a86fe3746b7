"""Serve a production build already made, as ``reflex run --env prod --frontend-port PORT``
serves it once its build is done: the backend on one port with the built pages mounted
(``build/client`` of ``REFLEX_WEB_WORKDIR``), its URLs derived from that port.

The browser tests' sessions build the site once and each serves that build from a server
of its own (scripts/production_site.py ``start_site``): a second build of the same code
takes about a minute of both cores and gives the same files.

    python -m scripts.serve_built PORT
"""

import os
import sys


def main(argv: list[str] | None = None) -> None:
    (port,) = argv if argv is not None else sys.argv[1:]
    # What `reflex run` applies before it starts the backend: its ports (the site's and
    # Reflex's URLs follow them) and production mode, and the compile is not run again.
    os.environ["REFLEX_FRONTEND_PORT"] = os.environ["REFLEX_BACKEND_PORT"] = port
    from reflex import constants
    from reflex.environment import environment
    from reflex.utils import exec as reflex_exec

    environment.REFLEX_ENV_MODE.set(constants.Env.PROD)
    environment.REFLEX_SKIP_COMPILE.set(True)
    reflex_exec.run_backend_prod(
        "0.0.0.0", int(port), constants.LogLevel.INFO, mount_frontend_compiled_app=True
    )


if __name__ == "__main__":
    main()
