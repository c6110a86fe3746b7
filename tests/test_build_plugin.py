"""The build plugin prerenders the 404 page and makes it the 404.html fallback, and runs the
site's build steps it is handed (``agency_site/build_steps.py``)."""

import threading
from pathlib import Path

import pytest

from agency_site.reflex_ext import build_plugin
from agency_site.reflex_ext.build_plugin import (
    NOT_FOUND_PROBE,
    BuildStep,
    SiteBuildPlugin,
    _start_publishing,
    install_not_found_page,
    prerender_not_found,
)

# The build plugin's one static asset (reflex_ext/entry_server.py, tests/test_hydration_boundaries.py).
ENTRY_SERVER = ("app/entry.server.jsx", "export default function handleRequest() {}")


@pytest.fixture(autouse=True)
def _entry_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry server is read from the installed frontend packages (not here)."""
    monkeypatch.setattr(build_plugin, "entry_server_asset", lambda web_dir: ENTRY_SERVER)


ROUTER_CONFIG = (
    'export default {"basename": "/", "ssr": false, "prerender": true, "build": "build"};'
)


def test_router_config_prerenders_static_paths_and_the_404_probe() -> None:
    config = prerender_not_found(ROUTER_CONFIG)
    assert '"prerender": true' not in config
    assert f'[...getStaticPaths(), "/{NOT_FOUND_PROBE}", "/ca/{NOT_FOUND_PROBE}"]' in config


def test_dev_config_without_prerendering_is_left_alone() -> None:
    dev = 'export default {"basename": "/", "ssr": false};'
    assert prerender_not_found(dev) == dev


def _build(tmp_path: Path) -> Path:
    static = tmp_path / "client"
    (static / NOT_FOUND_PROBE).mkdir(parents=True)
    (static / NOT_FOUND_PROBE / "index.html").write_text("<h1>Página no encontrada</h1>")
    (static / f"{NOT_FOUND_PROBE}.html").write_text("<h1>Página no encontrada</h1>")
    (static / "ca" / NOT_FOUND_PROBE).mkdir(parents=True)
    (static / "ca" / NOT_FOUND_PROBE / "index.html").write_text("<h1>Pàgina no trobada</h1>")
    (static / "__spa-fallback.html").write_text("<body></body>")
    return static


def test_the_prerendered_404_page_replaces_the_empty_spa_fallback(tmp_path: Path) -> None:
    static = _build(tmp_path)
    install_not_found_page(static, ["index", "about", "404"])
    assert (static / "__spa-fallback.html").read_text() == "<h1>Página no encontrada</h1>"
    assert not (static / NOT_FOUND_PROBE).exists()
    assert not (static / f"{NOT_FOUND_PROBE}.html").exists()
    # The Catalan one answers unknown /ca/ paths.
    assert (static / "ca" / "404.html").read_text() == "<h1>Pàgina no trobada</h1>"
    assert not (static / "ca" / NOT_FOUND_PROBE).exists()


def test_dynamic_routes_refuse_to_lose_the_spa_fallback(tmp_path: Path) -> None:
    static = _build(tmp_path)
    with pytest.raises(RuntimeError, match="Dynamic routes"):
        install_not_found_page(static, ["index", "blog/[slug]"])
    assert (static / "__spa-fallback.html").read_text() == "<body></body>"


def test_the_icons_go_into_one_chunk_and_the_env_into_its_importer_s() -> None:
    """On Reflex's own vite.config.js template, as a production build renders it."""
    from reflex_base.compiler.templates import vite_config_template

    from agency_site.reflex_ext.build_plugin import chunk_groups

    config = vite_config_template(base="/", hmr=False, force_full_reload=False,
                                  experimental_hmr=False, sourcemap=False)  # fmt: skip
    grouped = chunk_groups(config)  # node --check runs inside
    assert 'name: "icons"' in grouped and "reflex-env" not in grouped and "env.json" not in grouped
    assert grouped.count("groups: [") == 1
    with pytest.raises(RuntimeError, match="chunk_groups"):
        chunk_groups(config.replace("reflex-env", "env"))
    with pytest.raises(RuntimeError, match="does not parse"):
        chunk_groups(config.replace("export default", "export default }", 1))


def test_the_pictures_encode_while_the_build_goes_on_and_are_in_public_before_vite(
    tmp_path: Path,
) -> None:
    """The save task returns at once; the static assets (after npm install, before Vite)
    are asked for only once the pictures are in public/."""
    go_on = threading.Event()

    def publish(public_dir: Path) -> None:
        go_on.wait(timeout=10)
        (public_dir / "picture.avif").write_bytes(b"encoded")

    _start_publishing(publish, tmp_path)
    assert not (tmp_path / "picture.avif").exists()  # Still encoding: the build went on.
    threading.Timer(0.2, go_on.set).start()
    assert SiteBuildPlugin().get_static_assets() == [ENTRY_SERVER]
    assert (tmp_path / "picture.avif").read_bytes() == b"encoded"


def test_a_picture_that_cannot_be_encoded_fails_the_build(tmp_path: Path) -> None:
    def publish(public_dir: Path) -> None:
        raise OSError("no space left on device")

    _start_publishing(publish, tmp_path)
    with pytest.raises(OSError, match="no space left"):
        SiteBuildPlugin().get_static_assets()
    assert SiteBuildPlugin().get_static_assets() == [ENTRY_SERVER]  # Nothing is left waiting.


def test_the_plugin_runs_the_steps_it_is_handed_each_at_its_moment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fence knows no feature: files queued before the compile (given the sitemap's
    pages), background work waited for before Vite, every final page rewritten in the
    steps' order after the fence's own rewrites, then the last files."""
    calls: list[str] = []
    monkeypatch.setattr(build_plugin, "get_web_dir", lambda: tmp_path / "web")
    steps = (
        BuildStep("files", files=lambda pages: {"/a.txt": f"{len(pages)} pages"}),
        BuildStep("background", publish=lambda public: calls.append(f"publish {public.name}")),
        BuildStep("first", page=lambda html, api, site: html + "<!--1-->"),
        BuildStep("second", page=lambda html, api, site: html + "<!--2-->"),
        BuildStep("last", finish=lambda static: calls.append(f"finish {static.name}")),
    )
    plugin = SiteBuildPlugin(steps=steps)
    saved: list[tuple] = []
    page = type("Page", (), {"route": "about", "context": {"sitemap": {}}})()
    plugin.pre_compile(
        add_save_task=lambda task, *args: saved.append((task, args)),
        add_modify_task=lambda name, task: None,
        unevaluated_pages=[page],
    )
    files = [task(*args) for task, args in saved if task is build_plugin._public_file]
    assert files == [("public/a.txt", "1 pages")]
    for task, args in saved:
        if task is build_plugin._start_publishing:
            task(*args)
    assert plugin.get_static_assets() == [ENTRY_SERVER] and calls == ["publish public"]
    static = _build(tmp_path / ".web" / "build")
    (tmp_path / ".web" / "routes.json").write_text('["index", "about"]')
    plugin.post_build(static_dir=static)
    assert (static / "__spa-fallback.html").read_text().endswith("<!--1--><!--2-->")
    assert calls == ["publish public", "finish client"]


def test_the_site_s_steps_give_the_crawlers_files_and_the_page_policy_comes_last() -> None:
    from agency_site.build_steps import SITE_BUILD_STEPS, seo_files
    from agency_site.paths import MANIFEST_PATH, ROBOTS_PATH, SITEMAP_PATH
    from agency_site.web_base.security_headers import with_page_policy

    assert set(seo_files([])) == {ROBOTS_PATH, MANIFEST_PATH, SITEMAP_PATH}
    rewrites = [step.page for step in SITE_BUILD_STEPS if step.page]
    assert rewrites[-1] is with_page_policy  # After every other rewrite of the pages.
