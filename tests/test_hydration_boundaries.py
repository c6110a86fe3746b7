"""Each part of a page is a hydration boundary (components/layout.py), prerendered inline by
the build's server entry (reflex_ext/entry_server.py): its anchors on React Router's default,
the option it adds, the loud failure when the default changes. The installed default and
React's server renderer, with the frontend packages a build installs:
``e2e/test_hydration_boundaries.py``. The tap on load they speed up is measured by
``make bench-inp``."""

from pathlib import Path

import pytest
import reflex as rx

from agency_site.components.layout import HydrationBoundary, layout
from agency_site.reflex_ext.entry_server import (
    ANCHOR,
    OPTION,
    PRISTINE,
    TARGET,
    EntryServerBuildError,
    entry_server_asset,
    patch_entry_server,
)

# React Router 8.4.0's default (@react-router/dev/dist/config/defaults/entry.server.node.jsx).
DEFAULT = (Path(__file__).parent / "data" / "react-router-8.4.0-entry.server.node.jsx").read_text()


def test_every_part_of_a_page_is_a_hydration_boundary() -> None:
    page = layout(rx.el.section("uno"), rx.el.section("dos"))
    skip_link, header, main, footer = page.children
    assert not isinstance(skip_link, HydrationBoundary)
    assert isinstance(header, HydrationBoundary) and isinstance(footer, HydrationBoundary)
    assert [type(part) for part in main.children] == [HydrationBoundary, HydrationBoundary]
    assert str(page).count("jsx(Suspense,{}") == 4
    assert any(var.tag == "Suspense" for var in page._get_all_imports()["react"])


def test_the_server_entry_is_react_router_s_default_with_every_boundary_inline() -> None:
    patched = patch_entry_server(DEFAULT)
    assert patched == DEFAULT.replace(ANCHOR, ANCHOR + OPTION)
    assert patched.count("progressiveChunkSize: Number.POSITIVE_INFINITY,") == 1


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (("      {\n        [readyOption]", "      { [readyOption]"), "render call. occurs 0"),
        (("renderToPipeableStream(\n", "renderToReadableStream(\n"), "renderToPipeableStream"),
        (
            (
                "export default function",
                "export function render() { renderToString(x); }\nexport default function",
            ),
            "renderToString",
        ),
        (("    return new Response(null, {", "    return new Response(null, {{"), "node --check"),
    ],
)
def test_a_changed_default_fails_the_build_naming_what_changed(change, named: str) -> None:
    changed = DEFAULT.replace(*change, 1)
    assert changed != DEFAULT
    with pytest.raises(EntryServerBuildError, match=named):
        patch_entry_server(changed)


def test_the_build_s_asset_is_app_entry_server_and_a_missing_default_fails_it(
    tmp_path: Path,
) -> None:
    with pytest.raises(EntryServerBuildError, match="are the frontend packages installed"):
        entry_server_asset(tmp_path)
    (tmp_path / PRISTINE).parent.mkdir(parents=True)
    (tmp_path / PRISTINE).write_text(DEFAULT)
    assert entry_server_asset(tmp_path) == (str(TARGET), patch_entry_server(DEFAULT))
    assert str(TARGET) == "app/entry.server.jsx"
