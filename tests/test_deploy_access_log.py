"""The access log's rules (agency_site/deploy/access_log.py) for every input: the URI keeps
its path and utm_* keys, the Referer its origin or the site's own path. Python's ``re``
picks a match as Go's RE2 and PCRE do (leftmost, first alternative); the servers
themselves run them in tests/test_deploy.py and tests/stack/."""

import re

from hypothesis import given
from hypothesis import strategies as st

from agency_site.deploy import access_log
from agency_site.deploy.topology import Topology

TOPOLOGY = Topology(
    site_url="https://www.agencia.example",
    static_root="/srv",
    backends=("127.0.0.1:8001",),
    asset_headers=(),
    document_headers=(),
    pages=(),
)
# Keys that look like the kept ones without being them, and other query keys.
NEAR_KEYS = ("utm_", "utm", "u", "ut", "utm_sources", "utm_source_", "UTM_SOURCE", "utm_Id")
OTHER_KEYS = ("gclid", "fbclid", "mc_eid", "_hsenc", "token", "t", "", "a?b", "%75tm_source")
key = st.one_of(
    st.sampled_from(access_log.UTM_KEYS + NEAR_KEYS + OTHER_KEYS),
    st.text(alphabet="utm_sourcegclid?%/.=-", max_size=14).map(lambda text: text.split("=")[0]),
)
value = st.none() | st.text(alphabet="abcXYZ012=/%:._-+", max_size=10)
path = st.text(alphabet="abcdefghij/._-%:@", max_size=20).map(lambda text: "/" + text)


def filtered(uri: str) -> str:
    pattern, replacement = access_log.uri_filter()
    assert replacement == "$1"
    return re.sub(pattern, lambda match: match.group(1) or "", uri)


@given(path, st.none() | st.lists(st.tuples(key, value), max_size=8))
def test_a_logged_uri_is_its_path_and_its_utm_keys_in_order(path, parameters) -> None:
    if parameters is None:
        assert filtered(path) == path
        return
    written = [name if given is None else f"{name}={given}" for name, given in parameters]
    kept = [
        text
        for text, (name, _) in zip(written, parameters, strict=True)
        if name in access_log.UTM_KEYS
    ]
    expected = path + ("?" + "&".join(kept) if kept else "")
    assert filtered(f"{path}?{'&'.join(written)}") == expected


@given(path, st.lists(st.tuples(key, st.text(alphabet="ab?&=", max_size=6)), max_size=8))
def test_no_other_key_s_value_survives_even_with_question_marks(path, parameters) -> None:
    """A "?" inside a value may cut a kept value short, never keep another key's."""
    written = [f"{name}=SECRET{index}Z{tail}" for index, (name, tail) in enumerate(parameters)]
    uri = f"{path}?{'&'.join(written).replace('&&', '&')}"
    logged = filtered(uri)
    assert logged.startswith(path)
    for index, (name, _) in enumerate(parameters):
        if name not in access_log.UTM_KEYS:
            assert f"SECRET{index}Z" not in logged, uri


def test_the_identifiers_of_the_issue_are_dropped() -> None:
    uri = "/about?gclid=G1&fbclid=F2&utm_source=news&mc_eid=M3&_hsenc=H4&token=T5&t=B6"
    assert filtered(uri) == "/about?utm_source=news"
    assert filtered("/_event/?EIO=4&token=T5&transport=websocket") == "/_event/"


def kept_referer(referer: str) -> str:
    """What the servers keep of a Referer: the group of the first pattern matching it."""
    for pattern in access_log.referer_patterns(TOPOLOGY):
        if match := re.match(pattern + "$", referer, re.IGNORECASE):
            return match.group(1)
    return ""


host = st.sampled_from(
    ("www.agencia.example", "agencia.example", "www.google.com", "agencia.example.evil.com",
     "x.example:8443", "WWW.AGENCIA.EXAMPLE", "user@evil.example")
)  # fmt: skip
rest = st.text(alphabet="abc/?#=&%.-_:@ ", max_size=30)


@given(st.sampled_from(("http", "https", "android-app", "")), host, rest)
def test_a_logged_referer_is_another_site_s_origin_or_our_own_path(scheme, host, rest) -> None:
    referer = f"{scheme}://{host}{'/' if rest and rest[0] not in '/?#' else ''}{rest}"
    kept = kept_referer(referer)
    bare = host.lower().removeprefix("www.")
    if not kept:
        return
    assert not re.search(r"[?#\s]", kept), kept  # Never a query or a fragment,
    assert "@" not in kept.split("/")[2], kept  # nor a user.
    assert referer.startswith(kept)
    if bare == "agencia.example":
        assert kept == referer.split("?")[0].split("#")[0]  # Our own page: its path.
    else:
        assert kept == f"{scheme}://{host}", referer  # Another site: its origin only.


def test_a_referer_with_a_user_or_no_scheme_is_not_kept() -> None:
    assert kept_referer("https://ana@mail.example/inbox") == ""
    assert kept_referer("android-app://com.google.android.gm/") == ""
    assert kept_referer("https://www.google.com/search?q=ana") == "https://www.google.com"
