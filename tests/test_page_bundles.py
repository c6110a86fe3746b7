"""The pages' memoized components go where ``routes.py`` bundles them
(``agency_site/reflex_ext/page_bundles.py``), checked on one real compile of the site into a
temporary ``.web`` (Reflex's compile only: no npm install, no Vite build; about 30 s).
"""

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agency_site import paths
from agency_site.content.case_studies import CaseStudy
from agency_site.content.pages import PAGES
from agency_site.content.service_pages import ServicePage
from agency_site.locale import localized_path
from agency_site.reflex_ext.page_bundles import BUNDLES_PACKAGE, bundle_page, memo_library
from agency_site.routes import KINDS

ROOT = Path(__file__).resolve().parents[1]
# Reflex's compile with its web folder in place but no npm packages installed: the site's
# sources of every page, as ``reflex compile`` writes them. The one installed file the build
# plugin reads (React Router's default server entry, reflex_ext/entry_server.py) is put in
# place from the tests' copy of it.
_COMPILE = textwrap.dedent(
    """
    import shutil
    from reflex.utils import js_runtimes, path_ops
    from reflex.utils.prerequisites import get_compiled_app, get_web_dir
    from reflex_base.constants import Templates
    from agency_site.reflex_ext.entry_server import PRISTINE

    path_ops.copy_tree(Templates.Dirs.WEB_TEMPLATE, str(get_web_dir()))
    (get_web_dir() / PRISTINE).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy("tests/data/react-router-8.4.0-entry.server.node.jsx", get_web_dir() / PRISTINE)
    js_runtimes.install_frontend_packages = lambda packages, config: None
    get_compiled_app(use_rich=False)
    """
)
_MEMO_IMPORT = re.compile(r'from "(\$/app_components/[^"]+)"')


@pytest.fixture(scope="module")
def web_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``.web`` folder of one compile of the site."""
    web = tmp_path_factory.mktemp("compiled") / ".web"
    result = subprocess.run(
        [sys.executable, "-c", _COMPILE],
        cwd=ROOT,
        env=os.environ | {"REFLEX_WEB_WORKDIR": str(web)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return web


def memo_modules(web: Path, path: str) -> set[str]:
    """The memo modules the compiled route of ``path`` imports (React Router's flat routes:
    ``/services/branding`` is ``[services].[branding]._index.jsx``)."""
    parts = [f"[{part}]" for part in path.strip("/").split("/") if part]
    route = web / "app" / "routes" / ".".join([*parts, "_index.jsx"])
    return set(_MEMO_IMPORT.findall(route.read_text()))


def _paths_of(kind: type, language: str) -> list[str]:
    """The paths of the pages of one kind of content in a language."""
    return [entry.path for entry in PAGES.of(language).values() if type(entry.content) is kind]


def test_pages_of_one_kind_share_one_memo_module_and_other_pages_do_not(web_dir: Path) -> None:
    first, second = _paths_of(ServicePage, "es")[:2]
    case_study = _paths_of(CaseStudy, "es")[0]
    bundle = memo_library(KINDS[ServicePage].bundle)
    assert memo_modules(web_dir, first) == memo_modules(web_dir, second) == {bundle}
    assert bundle not in memo_modules(web_dir, case_study)
    assert memo_modules(web_dir, case_study) == {memo_library(KINDS[CaseStudy].bundle)}
    assert memo_modules(web_dir, paths.ABOUT).isdisjoint({bundle})
    written = web_dir / (bundle.removeprefix("$/") + ".jsx")
    assert written.is_file(), f"Reflex no longer writes {written}"


def test_each_language_has_its_own_module_of_a_bundle(web_dir: Path) -> None:
    spanish = _paths_of(ServicePage, "es")[0]
    catalan = localized_path(spanish, "ca")
    assert memo_modules(web_dir, catalan).isdisjoint(memo_modules(web_dir, spanish))


def test_a_bundle_is_named_by_an_identifier() -> None:
    def page() -> None: ...

    bundle_page(page, "service_sections_ca")
    assert page.__module__ == f"{BUNDLES_PACKAGE}.service_sections_ca"
    with pytest.raises(ValueError, match="identifier"):
        bundle_page(page, "services/branding")


_NAMED_IMPORT = re.compile(r"^import \{([^}]*)\} from", re.MULTILINE)
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")


def test_every_name_a_compiled_page_imports_is_an_identifier(web_dir: Path) -> None:
    """Reflex names a memoized component after its tag: a web component's (``altcha-widget``,
    the spam challenge's widget) must never be memoized, or no page builds."""
    sources = [*(web_dir / "app").rglob("*.jsx"), *(web_dir / "app_components").rglob("*.jsx")]
    assert sources
    for source in sources:
        for names in _NAMED_IMPORT.findall(source.read_text()):
            for name in filter(None, (part.strip() for part in names.split(","))):
                imported = name.split(" as ")[-1].strip()
                assert _IDENTIFIER.fullmatch(imported), f"{source.name} imports {name!r}"
    forms = "".join(path.read_text() for path in sources)
    assert 'jsx("altcha-widget"' in forms  # The widget is drawn in the forms.
