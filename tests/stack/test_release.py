"""`make stack-release`: a copywriter's one-line change goes live, checked in a browser; a broken
release switches back by itself; `--rollback` returns to the release before.

The tests run in order on the session's stack and leave it on its first release.
"""

import os
import subprocess
import time

import pytest
from playwright.sync_api import Page, expect
from pytest_httpserver import HTTPServer

from agency_site import paths
from agency_site.content.form_words import COPY
from tests.e2e.conftest import ROOT
from tests.e2e.helpers import open_page
from tests.stack.conftest import Stack
from tests.stack.test_through_the_stack import SUBMIT, wait_for_senders

CONTENT_FILE = ROOT / "agency_site" / "content" / "es" / "pages" / "home.yaml"
OLD_LINE = "  heading: Hacemos crecer tu negocio en el mundo digital\n"
NEW_HEADING = "Hacemos crecer tu negocio en internet, paso a paso"


def stack_release(stack: Stack, *args: str) -> subprocess.CompletedProcess:
    """`make stack-release` with ``args``; its output printed for the closing note."""
    started = time.monotonic()
    result = subprocess.run(
        ["make", "stack-release", f"STACK_RELEASE_ARGS={' '.join(args)}"],
        cwd=ROOT,
        env={**os.environ, "STACK_PORT": str(stack.port)},
        capture_output=True,
        text=True,
    )
    print(f"\n$ make stack-release {' '.join(args)}  ({time.monotonic() - started:.0f} s)")
    print(result.stdout[-3000:], result.stderr[-3000:])
    return result


@pytest.fixture(scope="module")
def edited_content():
    """The copywriter's change: one line of the home page's YAML; put back at the end."""
    original = CONTENT_FILE.read_text()
    assert original.count(OLD_LINE) == 1
    CONTENT_FILE.write_text(original.replace(OLD_LINE, f"  heading: {NEW_HEADING}\n"))
    yield
    CONTENT_FILE.write_text(original)


def hydrates_without_csp_violation(page: Page, path: str) -> None:
    """Open ``path``: it hydrates and the browser reports no CSP violation."""
    violations: list[str] = []
    page.on(
        "console",
        lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None,
    )
    open_page(page, path)
    assert violations == []


def test_a_copywriters_change_goes_live(
    stack: Stack, edited_content, page: Page, fake: HTTPServer
) -> None:
    result = stack_release(stack)
    assert result.returncode == 0, result.stderr
    assert "smoke check:" in result.stdout and "live in" in result.stdout
    hydrates_without_csp_violation(page, paths.HOME)
    expect(page.get_by_role("heading", level=1)).to_have_text(NEW_HEADING)
    hero = page.locator("#hero-capture-form")
    hero.get_by_label(COPY.hero.fields["email"].label).fill("stack-release@example.com")
    hero.locator(SUBMIT).click()
    expect(hero.get_by_text(COPY.hero.success)).to_be_visible(timeout=30_000)
    assert "stack-release@example.com" in wait_for_senders(fake, ["stack-release@example.com"])


def test_a_broken_release_switches_back_by_itself(stack: Stack, page: Page) -> None:
    live = stack.state()["www"]
    before = os.path.realpath(live)
    result = stack_release(stack, "--fault", "csp")
    assert result.returncode != 0
    assert "blocked by the CSP" in result.stderr and "Switched back to release" in result.stderr
    assert os.path.realpath(live) == before
    hydrates_without_csp_violation(page, paths.HOME)
    expect(page.get_by_role("heading", level=1)).to_have_text(NEW_HEADING)


def test_rollback_returns_to_the_release_before(stack: Stack, page: Page) -> None:
    result = stack_release(stack, "--rollback")
    assert result.returncode == 0, result.stderr
    hydrates_without_csp_violation(page, paths.HOME)
    expect(page.get_by_role("heading", level=1)).not_to_have_text(NEW_HEADING)
