"""The site's languages: Spanish at the root (``/about``), Catalan under ``/ca``
(``/ca/about``), and which one is being rendered or answered in.

The language in use is a context variable: ``routes.py`` renders a page inside
``active(locale)``, the leads code answers a submission inside the language its form
was sent in, and every content object (``Localized``) then reads its file of that
language. Outside any ``active`` block the language is Spanish, the default.

This module imports nothing of ours but ``paths`` (which imports nothing): content,
components, pages and leads all use it.
"""

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Generic, TypeVar

from agency_site.paths import NOT_FOUND_FILE, SITE_API_PREFIX

DEFAULT_LOCALE = "es"
# Every language of the site, the default first.
LOCALES: tuple[str, ...] = (DEFAULT_LOCALE, "ca")
# The value of <html lang>, hreflang and JSON-LD inLanguage; Open Graph's locale.
HTML_LANG: dict[str, str] = {"es": "es", "ca": "ca"}
OG_LOCALE: dict[str, str] = {"es": "es_ES", "ca": "ca_ES"}
# Each language's name in itself, as the language switch offers it.
AUTONYMS: dict[str, str] = {"es": "Español", "ca": "Català"}

_CURRENT: ContextVar[str] = ContextVar("locale", default=DEFAULT_LOCALE)
# The Spanish path of the page being rendered (the language switch links to its twins).
_PAGE: ContextVar[str] = ContextVar("page", default="/")

T = TypeVar("T")


def current() -> str:
    """The language being rendered or answered in."""
    return _CURRENT.get()


def current_page() -> str:
    """The Spanish path of the page being rendered (``/`` outside a page)."""
    return _PAGE.get()


@contextmanager
def active(locale: str, page: str | None = None) -> Iterator[str]:
    """Render or answer in ``locale`` inside the block; ``page``: the Spanish path of the
    page being rendered, if any."""
    if locale not in LOCALES:
        raise ValueError(f"unknown language {locale!r} (known: {', '.join(LOCALES)})")
    token = _CURRENT.set(locale)
    page_token = _PAGE.set(page) if page is not None else None
    try:
        yield locale
    finally:
        _CURRENT.reset(token)
        if page_token is not None:
            _PAGE.reset(page_token)


def per_language(function: Callable[..., T]) -> Callable[..., T]:
    """``function`` cached per its (hashable) arguments and the language in use: what it
    builds from content once per language (a form's validation model, its options)."""

    @functools.cache
    def in_language(language: str, *args: Any) -> T:
        return function(*args)

    @functools.wraps(function)
    def cached(*args: Any) -> T:
        return in_language(current(), *args)

    return cached


def parse(value: object) -> str:
    """A language a visitor's form sent (a hidden field): a known one, else the default."""
    return value if isinstance(value, str) and value in LOCALES else DEFAULT_LOCALE


def prefix(locale: str) -> str:
    """The path prefix of a language's pages: ``""`` for Spanish, ``/ca`` for Catalan."""
    return "" if locale == DEFAULT_LOCALE else f"/{locale}"


def not_found_file(language: str) -> str:
    """The build's not-found page for a language's unknown paths: ``/404.html``, and
    ``/ca/404.html`` for ``/ca/...``."""
    return prefix(language) + NOT_FOUND_FILE


def _is_page_link(href: str) -> bool:
    """A link to one of the site's pages: a root path, not a backend endpoint or a file."""
    if not href.startswith("/") or href.startswith("//") or href.startswith(SITE_API_PREFIX):
        return False
    last = href.split("?", 1)[0].split("#", 1)[0].rsplit("/", 1)[-1]
    return "." not in last


def localized_path(path: str, locale: str | None = None) -> str:
    """A Spanish page's path (or link) in ``locale`` (default: the one in use):
    ``/about`` → ``/ca/about``, ``/`` → ``/ca``, ``/contact?service=seo`` →
    ``/ca/contact?service=seo``. Other links (files, ``/_site/``, URLs, anchors) as given."""
    locale = locale or current()
    if locale == DEFAULT_LOCALE or not _is_page_link(path) or locale_of(path) != DEFAULT_LOCALE:
        return path
    if path == "/" or path.startswith(("/?", "/#")):
        return prefix(locale) + path[1:]
    return prefix(locale) + path


def locale_of(path: str) -> str:
    """The language of a page path: ``/ca/about`` → ``ca``, ``/about`` → ``es``."""
    first = path.split("?", 1)[0].split("#", 1)[0].strip("/").split("/", 1)[0]
    return first if first in LOCALES and first != DEFAULT_LOCALE else DEFAULT_LOCALE


def unlocalized_path(path: str) -> str:
    """The Spanish twin of a page path: ``/ca/about`` → ``/about``, ``/ca`` → ``/``."""
    locale = locale_of(path)
    if locale == DEFAULT_LOCALE:
        return path
    rest = path[len(prefix(locale)) :]
    return rest if rest.startswith("/") else "/" + rest


class Localized(Generic[T]):
    """One content object per language, used as the one of the language in use.

    ``Localized(lambda: load("pages/home.yaml", HomePage))`` loads the file of every
    language (each inside ``active``, so what it reads while loading is of its language
    too) when the module is imported; ``PAGE.hero`` is then the hero of the page in the
    language being rendered, and ``PAGE.of("ca")`` the Catalan page itself.
    """

    __slots__ = ("_by_locale",)

    def __init__(self, make: Callable[[], T]) -> None:
        by_locale: dict[str, T] = {}
        for locale in LOCALES:
            with active(locale):
                by_locale[locale] = make()
        object.__setattr__(self, "_by_locale", by_locale)

    def of(self, locale: str) -> T:
        """The object of ``locale``."""
        return self._by_locale[locale]

    @property
    def value(self) -> T:
        """The object of the language in use."""
        return self._by_locale[current()]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._by_locale[current()], name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("content is read-only")

    def __iter__(self) -> Iterator[Any]:
        return iter(self.value)  # type: ignore[call-overload]

    def __len__(self) -> int:
        return len(self.value)  # type: ignore[arg-type]

    def __getitem__(self, key: Any) -> Any:
        return self.value[key]  # type: ignore[index]

    def __contains__(self, key: Any) -> bool:
        return key in self.value  # type: ignore[operator]

    def __eq__(self, other: object) -> bool:
        return self.value == (other.value if isinstance(other, Localized) else other)

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return f"Localized({self.value!r})"
