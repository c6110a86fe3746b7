"""Which JavaScript module holds a page's memoized components.

Reflex writes the memoized components of the pages to one JavaScript module per Python
module of the page's function (its ``__module__``, ``reflex_base/utils/memo_paths.py``),
``.web/app_components/<module path>.jsx``, which each page's route imports. The site's
page functions are all made in ``routes.py``, so each gets the name of its bundle as its
module: the pages of one kind that share a bundle (the nine service pages of a language)
load one module between them; any other page has a bundle of its own.

A bundle's module name is under ``agency_site.page_bundles``, a name only: no such
Python package exists (Reflex then mirrors the name as it stands).
"""

from collections.abc import Callable

BUNDLES_PACKAGE = "agency_site.page_bundles"
# Where Reflex writes the mirrored modules, as the routes import them.
_MEMO_LIBRARY_PREFIX = "$/app_components/"


def bundle_page(page: Callable, bundle: str) -> None:
    """Put the memoized components of ``page`` into the JavaScript module ``bundle``."""
    if not bundle.isidentifier():
        msg = f"A page bundle's name is a Python identifier, not {bundle!r}"
        raise ValueError(msg)
    page.__module__ = f"{BUNDLES_PACKAGE}.{bundle}"


def memo_library(bundle: str) -> str:
    """The import specifier of a bundle's module in the compiled pages."""
    return _MEMO_LIBRARY_PREFIX + f"{BUNDLES_PACKAGE}.{bundle}".replace(".", "/")
