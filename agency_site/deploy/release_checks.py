"""What a release checks once it is live, and how it reports: ``release.py`` runs them.

The backends each answer ``/ping`` after their restart (``wait_for_ping``); through the web
server (``smoke_check``) every route answers 200 with this release's page, every inline
script of it is allowed by the page's own CSP, the short CSP header comes with it,
``/_health`` answers and a form's endpoint answers a bad submission with its page of field
errors (nothing is stored); and a page hydrates in a browser with no CSP violation
(``browser_check``: Chromium through Playwright, when installed).
"""

import os
import shutil
import time
import urllib.error
import urllib.request
from email.message import Message
from pathlib import Path

from agency_site.paths import HEALTH, PING, form_post
from agency_site.web_base.security_headers import allowed_scripts, policy_of_page, script_hashes

PING_TIMEOUT_S = 300
# A web server's reload ends after its command returns: nginx's master (``nginx -s reload``,
# ``systemctl reload nginx``) starts new workers on the new file after the signal, and the
# old ones serve the release before until then. How long the smoke check waits for it.
RELOAD_TIMEOUT_S = 15
HYDRATED = "html[data-hydrated='true']"
# Pages the browser check opens: the home page and a form page.
BROWSER_ROUTES = ("/", "/contact")


class ReleaseError(Exception):
    """A release step failed; the message says which and why."""


def log(message: str) -> None:
    """A line of the release's progress, as it happens."""
    print(f"[release] {message}", flush=True)


def wait_for_ping(address: str, timeout: float = PING_TIMEOUT_S) -> None:
    """Wait until ``http://address/ping`` answers 200."""
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://{address}{PING}", timeout=3) as response:
                if response.status == 200:
                    return
        except OSError as error:
            last = str(error)
        time.sleep(0.5)
    raise ReleaseError(f"backend {address} did not answer {PING} in {timeout:.0f} s ({last})")


def _get(url: str) -> tuple[int, Message, str]:
    """Status, headers and text of a GET (identity encoding: the file as released)."""
    try:
        with urllib.request.urlopen(url, timeout=20) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode(errors="replace")


def _page_file(release: Path, path: str) -> Path:
    return release / ("index.html" if path == "/" else f"{path.strip('/')}.html")


def wait_for_release(url: str, release: Path, timeout: float = RELOAD_TIMEOUT_S) -> None:
    """Wait until the web server at ``url`` serves ``release``'s home page (its reload took
    effect), ``timeout`` seconds at most: the smoke check then says what is still wrong."""
    deadline = time.monotonic() + timeout
    page = _page_file(release, "/").read_text()
    while time.monotonic() < deadline:
        try:
            if _get(url + "/")[2] == page:
                return
        except OSError:
            pass  # The server between its old and new workers; asked again.
        time.sleep(0.2)


def smoke_check(public_url: str, release: Path, browser: str) -> None:
    """Every route, the CSP, /_health and a form endpoint through the web server at
    ``public_url``; then, unless ``browser`` is "no", ``browser_check`` ("yes": required)."""
    from agency_site.routes import ROUTES

    url = public_url.rstrip("/")
    wait_for_release(url, release)
    problems = []
    for route in ROUTES:
        status, headers, body = _get(url + route.path)
        if status != 200:
            problems.append(f"{route.path} answered {status}")
            continue
        if body != _page_file(release, route.path).read_text():
            problems.append(f"{route.path} is not this release's page")
        # The page's own policy (its <meta>) lists its inline scripts; the header adds
        # what <meta> cannot carry (frame-ancestors).
        if blocked := script_hashes(body) - allowed_scripts(policy_of_page(body) or ""):
            problems.append(f"{route.path}: {len(blocked)} inline script(s) blocked by the CSP")
        if "frame-ancestors" not in headers.get("Content-Security-Policy", ""):
            problems.append(f"{route.path}: no frame-ancestors in the CSP header")
    status, _, body = _get(url + HEALTH)
    if status != 200:
        problems.append(f"{HEALTH} answered {status}: {body[:200]}")
    form = urllib.request.Request(
        url + form_post("contact"),
        data=b"email=no-es-un-correo&website=",
        headers={"Origin": url, "Content-Type": "application/x-www-form-urlencoded"},
    )
    try:
        with urllib.request.urlopen(form, timeout=20) as response:
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    if status != 400:  # The page of field errors: the form's endpoint validated it.
        problems.append(f"the contact form's endpoint answered {status}, not 400")
    if not problems and browser != "no":
        problems += browser_check(url, required=browser == "yes")
    if problems:
        raise ReleaseError("smoke check through the web server: " + "; ".join(problems))
    log(f"smoke check: {len(ROUTES)} routes 200 with this release's pages, CSP allows them")


def _chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM_PATH"), "/usr/bin/chromium"):
        if candidate and Path(candidate).exists():
            return candidate
    return shutil.which("chromium")


def browser_check(url: str, *, required: bool) -> list[str]:
    """Open pages in Chromium: each hydrates and the browser reports no CSP violation."""
    executable = _chromium()
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError:
        executable = None
    if executable is None:
        if required:
            return ["the browser check needs Playwright and Chromium"]
        log("browser check skipped (no Playwright or Chromium here)")
        return []
    problems = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page()
            page.add_init_script(
                "window.__cspViolations = [];"
                "document.addEventListener('securitypolicyviolation',"
                " e => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));"
            )
            for path in BROWSER_ROUTES:
                page.goto(url + path)
                try:
                    page.wait_for_selector(HYDRATED, state="attached", timeout=30_000)
                except PlaywrightError:
                    problems.append(f"{path} did not hydrate in the browser")
                violations = page.evaluate("window.__cspViolations")
                if violations:
                    problems.append(f"{path}: CSP violations {violations[:3]}")
        finally:
            browser.close()
    if not problems:
        log(f"browser check: {', '.join(BROWSER_ROUTES)} hydrate with no CSP violation")
    return problems
