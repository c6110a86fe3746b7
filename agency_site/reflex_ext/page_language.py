"""The language of the page being shown, from its path, as JavaScript expressions.

``<html lang>`` is written once for every page by Reflex's document root
(``App(html_lang=...)``); here it is the expression ``document_lang()`` instead of a fixed
string, so each prerendered page says its own language (``/ca/...``: ``ca``) and a
client-side navigation to the other language updates it. It reads React Router's
``useLocation``, which the document's ``Layout`` renders inside (framework mode), and no
other hook: Reflex refuses hooks in the document root (``create_document_root``), and
this one is an import and a call, not a hook of Reflex's.

``is_language(locale)`` is the same test as a boolean, for a component that shows one of
its languages (the not-found page, which answers every unknown path).
"""

import json

import reflex as rx

from agency_site.locale import DEFAULT_LOCALE, HTML_LANG, LOCALES
from agency_site.reflex_ext.internals import ImportVar, VarData

_USE_LOCATION = VarData(imports={"react-router": [ImportVar(tag="useLocation")]})
# The first segment of the current path, e.g. "ca" for /ca/about, "about" for /about.
_FIRST_SEGMENT = 'useLocation().pathname.split("/")[1]'
_OTHER_LANGUAGES = json.dumps([HTML_LANG[locale] for locale in LOCALES if locale != DEFAULT_LOCALE])


def document_lang() -> rx.Var:
    """``<html lang>``: the path's language (``ca`` under /ca), else the default (``es``)."""
    expression = (
        f"((segment) => ({_OTHER_LANGUAGES}.includes(segment) ? segment : "
        f"{json.dumps(HTML_LANG[DEFAULT_LOCALE])}))({_FIRST_SEGMENT})"
    )
    return rx.Var(expression, _var_data=_USE_LOCATION).to(str)


def is_language(locale: str) -> rx.Var:
    """Whether the page shown is in ``locale`` (by its path)."""
    return rx.Var(
        f"({document_lang()!s} === {json.dumps(HTML_LANG[locale])})", _var_data=_USE_LOCATION
    ).to(bool)
