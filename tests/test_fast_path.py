"""`make test-unit` without root and without servers: tests that need PostgreSQL, Redis or a
web server skip with the reason, and fail instead under CI=true (tests/conftest.py).

A pytest run in a subprocess loads tests/conftest.py as a plugin, plus one that makes
this machine look like a developer's laptop without PostgreSQL and Redis; its tests ask
for the servers and run a program that is not installed, as ``caddy validate`` would.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

WITHOUT_SERVERS = """
import pytest
from scripts import local_servers

@pytest.fixture(autouse=True, scope="session")
def _no_servers_here():
    patch = pytest.MonkeyPatch()
    patch.setattr(local_servers, "postgres_bin", lambda: None)
    patch.setattr(local_servers, "missing_programs", lambda: ["redis-server", "postgresql"])
    yield
    patch.undo()
"""

NEEDS_SERVERS = """
import subprocess

def test_needs_postgres(postgres_url):
    pass

def test_needs_redis(redis_server):
    pass

def test_needs_caddy(tmp_path):
    subprocess.run([str(tmp_path / "caddy"), "validate"], check=True)
"""


def run_pytest(tmp_path: Path, tests: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    """Run ``tests`` (a test file's text) on a machine without PostgreSQL and Redis."""
    (tmp_path / "laptop.py").write_text(WITHOUT_SERVERS)
    (tmp_path / "test_here.py").write_text(tests)
    unset = ("CI", "TEST_DATABASE_URL", "TEST_REDIS_URL")
    base = {k: v for k, v in os.environ.items() if k not in unset}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "laptop", "-rs", "-q",
         "-p", "no:cacheprovider", "-c", os.devnull, "--rootdir", str(tmp_path),
         str(tmp_path / "test_here.py"), *args],
        cwd=ROOT,
        env={**base, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip


def test_missing_servers_skip_with_the_reason(tmp_path: Path) -> None:
    result = run_pytest(tmp_path, NEEDS_SERVERS)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 skipped" in result.stdout
    assert "PostgreSQL is not installed" in result.stdout
    assert "redis-server is not installed" in result.stdout
    assert "caddy is not installed or not on PATH" in result.stdout


def test_under_ci_missing_servers_fail_instead(tmp_path: Path) -> None:
    result = run_pytest(tmp_path, NEEDS_SERVERS, CI="true")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "skipped" not in result.stdout
    assert "CI=true: CI must provide it" in result.stdout
    assert "FileNotFoundError" in result.stdout


NAMED_SERVERS = """
def test_postgres(postgres_server):
    assert postgres_server.url == "postgresql+psycopg://agency:pw@127.0.0.1:9/agency"

def test_redis(redis_server):
    assert redis_server.url == "redis://127.0.0.1:9"
"""


@pytest.mark.parametrize(
    ("variable", "url"),
    [
        ("TEST_DATABASE_URL", "postgresql://agency:pw@127.0.0.1:9/agency"),
        ("TEST_REDIS_URL", "redis://127.0.0.1:9/0"),
    ],
)
def test_a_running_server_named_in_the_environment_is_used_instead(
    tmp_path: Path, variable: str, url: str
) -> None:
    """Without the programs, the tests are handed the server the variable names."""
    which = "postgres" if variable == "TEST_DATABASE_URL" else "redis"
    result = run_pytest(tmp_path, NAMED_SERVERS, "-k", which, **{variable: url})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
