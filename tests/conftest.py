"""Shared test configuration: browser tests live in tests/e2e and are marked ``e2e``;
tests of the production topology live in tests/stack and are marked ``stack``.

Real servers (PostgreSQL, Redis) come from Debian's packages and run on loopback,
started here once per session and stopped by pid (``scripts/local_servers.py``).
"""

import itertools
import shutil
import tempfile
from pathlib import Path

import pytest
import sqlalchemy as sa

from scripts import local_servers


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test under tests/e2e as a browser test, under tests/stack as a stack test."""
    for item in items:
        path = str(item.path).replace("\\", "/")
        if "/e2e/" in path:
            item.add_marker(pytest.mark.e2e)
        if "/stack/" in path:
            item.add_marker(pytest.mark.stack)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """Browser tests (e2e and stack): Debian's Chromium with this closed network's flags."""
    from tests.e2e.conftest import CHROMIUM_ARGS, chromium_path

    return {
        **browser_type_launch_args,
        "executable_path": chromium_path(),
        "args": [*browser_type_launch_args.get("args", []), *CHROMIUM_ARGS],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    """Spanish desktop browser by default."""
    return {**browser_context_args, "locale": "es-ES", "viewport": {"width": 1280, "height": 800}}


@pytest.fixture(scope="session")
def postgres_server():
    """A throwaway PostgreSQL cluster on a free loopback port, for the whole session."""
    if local_servers.postgres_bin() is None:
        pytest.fail(
            "PostgreSQL is not installed: run `make test` (installs it as root) or "
            "`sudo apt-get install postgresql`."
        )
    # PostgreSQL refuses to run as root and pytest's folders are private to root.
    folder = Path(tempfile.mkdtemp(prefix="agency-pg-"))
    folder.chmod(0o755)
    server = local_servers.start_postgres(
        folder / "cluster", local_servers.free_port(), durable=False
    )
    yield server
    local_servers.stop_postgres(server)
    shutil.rmtree(folder, ignore_errors=True)


_databases = itertools.count(1)


@pytest.fixture
def postgres_url(postgres_server: local_servers.Server) -> str:
    """The URL of a new, empty database on the session's PostgreSQL."""
    name = f"test_{next(_databases)}"
    admin = sa.create_engine(postgres_server.url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return postgres_server.url.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory):
    """A Redis on a free loopback port, for the whole session."""
    if "redis-server" in local_servers.missing_programs():
        pytest.fail(
            "redis-server is not installed: run `make test` (installs it as root) or "
            "`sudo apt-get install redis-server`."
        )
    server = local_servers.start_redis(tmp_path_factory.mktemp("redis"), local_servers.free_port())
    yield server
    local_servers.stop_pid(server.pid)
