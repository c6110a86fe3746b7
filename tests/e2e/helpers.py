"""Small helpers shared by the browser tests."""

from playwright.sync_api import Page, expect


def open_page(page: Page, path: str) -> None:
    """Go to ``path`` and wait until React has hydrated (buttons respond)."""
    page.goto(path)
    expect(page.locator("html[data-hydrated='true']")).to_have_count(1, timeout=20_000)


def scroll_to(page: Page, y: int) -> None:
    """Scroll the window to ``y`` and wait until the browser reports it."""
    page.evaluate("y => window.scrollTo(0, y)", y)
    page.wait_for_function("y => Math.abs(window.scrollY - y) < 1", arg=y)
