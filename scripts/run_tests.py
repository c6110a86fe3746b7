"""``make test``: the browser tests and the unit tests at once, one pytest each.

The browser tests share one build of ``.web/`` and spend most of their time waiting on
the browser and the site; the unit tests are CPU work. On a 2-core machine running them
side by side, each in its own pytest process, takes about the time of the browser tests
alone. The browser tests print as they go; the unit tests' output follows when both are
done. The exit code is non-zero when either run failed.

Usage: ``python scripts/run_tests.py [pytest arguments for both runs]``
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BROWSER = "e2e and not stack"
UNIT = "not e2e and not stack"


def pytest(marks: str, extra: list[str], **kwargs) -> subprocess.Popen:
    """A pytest run of the tests matching ``marks``."""
    command = [sys.executable, "-m", "pytest", "-m", marks, *extra]
    return subprocess.Popen(command, cwd=ROOT, **kwargs)


def main(extra: list[str]) -> int:
    with tempfile.TemporaryFile("w+") as unit_log:
        unit = pytest(UNIT, extra, stdout=unit_log, stderr=subprocess.STDOUT)
        browser = pytest(BROWSER, extra)
        browser_rc, unit_rc = browser.wait(), unit.wait()
        unit_log.seek(0)
        print("\n=== unit tests (run beside the browser tests) ===", flush=True)
        sys.stdout.write(unit_log.read())
    print(f"\nbrowser tests: exit {browser_rc}; unit tests: exit {unit_rc}", flush=True)
    # pytest's 5 (no test collected) is a failure here: both selections hold tests.
    return 0 if browser_rc == unit_rc == 0 else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main(sys.argv[1:]))
