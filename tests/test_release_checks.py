"""A release's checks wait for the web server's reload to take effect: nginx's reload ends
after its command returns, its old workers serving the release before for a moment."""

import itertools
import time
from pathlib import Path

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from agency_site.deploy import release_checks


def test_the_check_waits_while_the_old_workers_still_serve_the_release_before(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    (tmp_path / "index.html").write_text("<p>nueva</p>")
    answers = itertools.chain(["<p>anterior</p>"] * 5, itertools.repeat("<p>nueva</p>"))
    asked = []

    def home(request: Request) -> Response:
        asked.append(time.monotonic())
        return Response(next(answers), content_type="text/html")

    httpserver.expect_request("/").respond_with_handler(home)
    release_checks.wait_for_release(httpserver.url_for("").rstrip("/"), tmp_path, timeout=10)
    assert len(asked) == 6  # Five of the release before, then this one's: done.


def test_a_server_that_never_serves_the_release_is_left_to_the_smoke_check(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    (tmp_path / "index.html").write_text("<p>nueva</p>")
    httpserver.expect_request("/").respond_with_data("<p>anterior</p>")
    started = time.monotonic()
    release_checks.wait_for_release(httpserver.url_for("").rstrip("/"), tmp_path, timeout=1)
    assert time.monotonic() - started < 5  # Bounded: the smoke check then names the pages.
