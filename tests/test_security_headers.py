"""Each page carries its own Content-Security-Policy in a <meta>; servers send a short header."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agency_site.web_base.security_headers import (
    HEADER_POLICY,
    allowed_scripts,
    content_security_policy,
    page_policy,
    policy_of_page,
    script_hashes,
    with_page_policy,
)

API, SITE = "https://api.example.es", "https://www.example.es"
PAGE = (
    '<!DOCTYPE html><html lang="es"><head><meta charSet="utf-8"/><title>Inicio</title>'
    '<script>window.boot = 1;</script><script type="application/ld+json">{"a": 1}</script>'
    '<script type="module" src="/assets/entry-Ab12.js"></script></head>'
    "<body><h1>Hola</h1><script>hydrate()</script></body></html>"
)


def _directives(policy: str) -> dict[str, str]:
    return dict(directive.split(" ", 1) for directive in policy.split("; "))


def test_the_page_policy_lets_the_page_reach_the_backend_and_allows_hashed_scripts_only() -> None:
    policy = _directives(page_policy(API + "/path", SITE, ["sha256-b", "sha256-a", "sha256-a"]))
    assert policy["script-src"] == "'self' 'sha256-a' 'sha256-b'"
    assert policy["connect-src"] == f"'self' {API} wss://api.example.es"
    assert policy["style-src"] == "'self' 'unsafe-inline'"
    assert policy["form-action"] == f"'self' {SITE} {API}"  # The no-JavaScript post.
    assert policy["object-src"] == "'none'"
    assert "unsafe-eval" not in str(policy)


def test_meta_carries_no_directive_a_meta_policy_cannot_hold() -> None:
    """Chromium ignores frame-ancestors, report-uri and sandbox in <meta>, with a console
    error: they are the header's."""
    policy = page_policy(API, SITE, ["sha256-a"])
    for directive in ("frame-ancestors", "report-uri", "report-to", "sandbox"):
        assert directive not in policy
    assert "frame-ancestors 'self'" in HEADER_POLICY
    assert len(HEADER_POLICY) < 100  # Fits any static host's header file.


def test_the_backend_s_own_pages_get_the_page_policy_and_the_header_s_in_one() -> None:
    whole = content_security_policy(API, SITE)
    assert whole == page_policy(API, SITE) + "; frame-ancestors 'self'"


def test_a_page_gets_its_own_policy_first_in_its_head() -> None:
    page = with_page_policy(PAGE, API, SITE)
    assert page.startswith(
        '<!DOCTYPE html><html lang="es"><head><meta http-equiv="Content-Security-Policy" content="'
    )
    policy = policy_of_page(page)
    assert policy == page_policy(API, SITE, script_hashes(PAGE))
    # Its two inline scripts and its JSON-LD, not the bundle it loads by src.
    assert len(allowed_scripts(policy)) == 3 == len(script_hashes(PAGE))
    assert page.replace(re.search(r"<meta http-equiv[^>]*>", page)[0], "", 1) == PAGE


def test_a_rewritten_page_gets_its_policy_again_not_twice() -> None:
    first = with_page_policy(PAGE, API, SITE)
    rewritten = first.replace("hydrate()", "hydrate(); later()")
    again = with_page_policy(rewritten, API, SITE)
    assert again.count("Content-Security-Policy") == 1
    assert allowed_scripts(policy_of_page(again)) == script_hashes(rewritten)


def test_a_page_without_head_is_a_build_error() -> None:
    with pytest.raises(ValueError, match="without <head>"):
        with_page_policy("<p>nada</p>", API, SITE)
    assert policy_of_page(PAGE) is None


_SCRIPT_BODY = st.text(
    alphabet=st.characters(blacklist_characters="<", blacklist_categories=("Cs",)), max_size=40
)


@given(bodies=st.lists(_SCRIPT_BODY, max_size=6), head_attrs=st.sampled_from(["", ' id="h"']))
def test_every_inline_script_of_any_page_is_allowed_by_its_own_policy_and_nothing_else(
    bodies: list[str], head_attrs: str
) -> None:
    scripts = "".join(f"<script>{body}</script>" for body in bodies)
    html = f"<html><head{head_attrs}><title>t</title></head><body>{scripts}</body></html>"
    page = with_page_policy(html, API, SITE)
    assert allowed_scripts(policy_of_page(page) or "") == script_hashes(html)
    assert script_hashes(page) == script_hashes(html)  # The meta is no script.
