"""The pages' hydration boundaries in the production build (components/layout.py,
reflex_ext/entry_server.py): the installed React Router default is the one the build patches,
React's server renderer outlines a large boundary unless told not to, and every page the site
serves has its parts inline, in document order, with no hidden boundary for a script to move."""

import subprocess
from pathlib import Path

import httpx
import pytest

from agency_site.reflex_ext.entry_server import PRISTINE, patch_entry_server
from agency_site.reflex_ext.js import node_binary
from agency_site.routes import ROUTES

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / ".web"  # The site fixture's build installed the frontend packages here.


def test_the_installed_default_is_the_one_the_patch_was_written_for(site) -> None:
    """The build patches the installed default: after an upgrade of React Router, its
    anchors are checked here first (the build fails on them too)."""
    patch_entry_server((WEB / PRISTINE).read_text())


# React's server renderer, as the build's entry calls it: a boundary larger than 12,800 bytes
# goes after the page, hidden, unless progressiveChunkSize is infinite.
_RENDER = """
import { createElement as h, Suspense } from "react";
import { renderToPipeableStream } from "react-dom/server";
import { Writable } from "node:stream";
const part = (n) => h("section", null, ...Array.from({ length: 400 }, (_, i) =>
  h("p", { key: i }, `párrafo ${i} de la sección ${n}`)));
const page = h("html", null, h("body", null, h(Suspense, null, part(1)), h(Suspense, null, part(2))));
const options = OPTIONS;
let html = "";
const { pipe } = renderToPipeableStream(page, { ...options, onAllReady() {
  pipe(new Writable({ write(chunk, _, done) { html += chunk; done(); },
                      final(done) { process.stdout.write(html); done(); } }));
} });
"""


@pytest.mark.parametrize("inline", [False, True])
def test_react_outlines_a_large_boundary_unless_the_chunk_size_is_infinite(
    inline: bool, site, tmp_path: Path
) -> None:
    options = "{ progressiveChunkSize: Number.POSITIVE_INFINITY }" if inline else "{}"
    script = WEB / f"probe-{tmp_path.name}.mjs"  # Resolves .web's react-dom.
    script.write_text(_RENDER.replace("OPTIONS", options))
    try:
        html = subprocess.run([node_binary(), str(script)], capture_output=True, text=True,
                              check=True, timeout=60).stdout  # fmt: skip
    finally:
        script.unlink()
    assert "párrafo 399 de la sección 2" in html
    hidden = html.count("<template") + html.count("$RC(")
    assert (hidden == 0) is inline
    assert html.index("sección 1") < html.index("sección 2")


@pytest.mark.parametrize("route", [route.path for route in ROUTES])
def test_every_page_s_parts_are_inline_boundaries_in_document_order(
    route: str, base_url: str
) -> None:
    """A page as a crawler or a reader without JavaScript gets it: each part a completed
    boundary (``<!--$-->``…``<!--/$-->``) where it stands, none outlined for a script to move
    in. (After the footer, React Router's own boundaries stream the route's data: scripts.)"""
    html = httpx.get(f"{base_url}{route}", timeout=30).text
    end = html.index("<!--/$-->", html.index("</footer>")) + len("<!--/$-->")  # The footer's.
    page = html[html.index("<body") : end]
    assert page.count("<!--$-->") >= 3 and page.count("<!--$-->") == page.count("<!--/$-->")
    assert "<!--$?-->" not in page and "<template" not in page and "<div hidden" not in page
    assert page.index("<header") < page.index("<main") < page.index("<footer")
    after = html[end:]
    for outlined in after.split('<div hidden id="S:')[1:]:
        segment = outlined[: outlined.index("</div>")]
        assert "<p" not in segment and "<section" not in segment  # Data, not the page.
