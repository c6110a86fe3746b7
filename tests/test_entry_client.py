"""React Router's client entry hydrates one task after its modules are evaluated
(reflex_ext/entry_client.py): its anchors on Reflex's pristine template, the one change, the
loud failure when the template changes. The tap on load it speeds up is measured by
``make bench-inp``; every browser test hydrates through it (``e2e/helpers.open_page``)."""

import pytest

from agency_site.reflex_ext.build_plugin import SiteBuildPlugin
from agency_site.reflex_ext.entry_client import (
    ANCHOR,
    ENTRY_CLIENT,
    REPLACEMENT,
    EntryClientBuildError,
    entry_client,
    patch_entry_client,
)
from agency_site.reflex_ext.internals import WEB_TEMPLATE_DIR

PRISTINE = (WEB_TEMPLATE_DIR / ENTRY_CLIENT).read_text()


def test_the_installed_template_hydrates_in_a_later_task() -> None:
    path, text = entry_client()
    assert path == "app/entry.client.js"
    assert text == PRISTINE.replace(ANCHOR, REPLACEMENT)
    assert text.count("hydrateRoot(") == 1
    assert text.index("setTimeout(() => {") < text.index("hydrateRoot(document")


def test_the_plugin_writes_the_entry_and_reflex_does_not() -> None:
    """Reflex skips its own write of the entry only when a plugin says it provides one."""
    saved: list = []
    SiteBuildPlugin().pre_compile(
        add_save_task=lambda task, *args: saved.append(task),
        add_modify_task=lambda name, task: None,
        unevaluated_pages=[],
    )
    assert entry_client in saved
    assert SiteBuildPlugin().provides_entry_client()


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (
            ("startTransition(() => {\n  hydrateRoot", "startTransition(() => hydrateRoot"),
            "occurs 0",
        ),
        ((ANCHOR, ANCHOR + "createRoot(document.body);\n"), "createRoot"),
        ((ANCHOR, ANCHOR + ANCHOR), "hydrateRoot"),
        (('from "react";\n', 'from "react";;\n}\n'), "node --check"),
    ],
)
def test_a_changed_template_fails_the_build_naming_what_changed(change, named: str) -> None:
    changed = PRISTINE.replace(*change, 1)
    assert changed != PRISTINE
    with pytest.raises(EntryClientBuildError, match=named):
        patch_entry_client(changed)
