"""The languages' paths and the language in use (``agency_site/locale.py``)."""

import pytest

from agency_site import locale
from agency_site.content.site import SITE
from agency_site.locale import locale_of, localized_path, unlocalized_path


@pytest.mark.parametrize(
    ("spanish", "catalan"),
    [
        ("/", "/ca"),
        ("/about", "/ca/about"),
        ("/services/branding", "/ca/services/branding"),
        ("/contact?service=seo&pack=x", "/ca/contact?service=seo&pack=x"),
        ("/careers#posiciones", "/ca/careers#posiciones"),
    ],
)
def test_a_page_path_has_its_twin_under_ca_and_back(spanish: str, catalan: str) -> None:
    assert localized_path(spanish, "ca") == catalan
    assert localized_path(spanish, "es") == spanish
    assert locale_of(catalan) == "ca" and locale_of(spanish) == "es"
    assert (
        unlocalized_path(catalan.split("?")[0].split("#")[0]) == spanish.split("?")[0].split("#")[0]
    )


@pytest.mark.parametrize(
    "other",
    [
        "https://wa.me/34973390000",
        "mailto:hola@impulsodigital.es",
        "#main",
        "/_site/forms/booking",
        "/social-card.png",
        "/ca/about",  # Already Catalan.
        "//evil.example/x",
    ],
)
def test_other_links_stay_as_written(other: str) -> None:
    assert localized_path(other, "ca") == other


def test_a_path_that_only_starts_like_ca_is_spanish() -> None:
    assert locale_of("/careers") == "es" and locale_of("/cat") == "es"


def test_content_reads_the_language_in_use_and_spanish_outside() -> None:
    spanish = SITE.address.country
    with locale.active("ca"):
        assert SITE.address.country == "Espanya" != spanish
        assert locale.current() == "ca"
    assert locale.current() == "es" and SITE.address.country == spanish


def test_an_unknown_language_is_refused_and_a_sent_one_is_parsed_safely() -> None:
    with pytest.raises(ValueError, match="unknown language"), locale.active("fr"):
        pass
    assert [locale.parse(v) for v in ("ca", "es", "fr", None, 3, "CA")] == [
        "ca",
        "es",
        "es",
        "es",
        "es",
        "es",
    ]
