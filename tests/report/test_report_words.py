"""The report's words are content (issue 46 item 5): ``content/es/report.yaml`` says them,
the report's Python only puts them together; each key that names a value of the code names
one that exists; whatever the month's figures, every text is filled in."""

import ast
import datetime as dt
from collections import Counter
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from agency_site.bookings.models import Attendance, BookingStatus
from agency_site.content.loader import locale_dir
from agency_site.content.template import placeholders
from agency_site.locale import DEFAULT_LOCALE, LOCALES
from agency_site.report import mail, text
from agency_site.report.charts import CHARTS
from agency_site.report.figures import Figures

REPORT = Path(text.__file__).parent
SPANISH = yaml.safe_load((locale_dir(DEFAULT_LOCALE) / "report.yaml").read_text())


def leaves(tree) -> list[str]:
    if isinstance(tree, dict):
        return [leaf for value in tree.values() for leaf in leaves(value)]
    if isinstance(tree, list):
        return [leaf for value in tree for leaf in leaves(value)]
    return [tree] if isinstance(tree, str) else []


def wording(phrase: str) -> list[str]:
    """The pieces of a text between its placeholders that are words (two or more)."""
    pieces = [phrase]
    for name in placeholders(phrase):
        pieces = [part for piece in pieces for part in piece.split(f"{{{name}}}")]
    return [piece.strip(" :(),.") for piece in pieces if len(piece.split()) >= 2]


def python_strings() -> dict[str, str]:
    """The string literals of each module of ``agency_site/report/`` (f-strings' text
    among them), docstrings aside, by file."""
    found = {}
    for path in sorted(REPORT.glob("*.py")):
        tree = ast.parse(path.read_text())
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        found[path.name] = "\n".join(
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        )
    return found


def test_no_sentence_of_the_report_is_typed_in_its_python() -> None:
    strings = python_strings()
    typed = [
        (name, piece)
        for phrase in leaves(SPANISH)
        for piece in wording(phrase)
        for name, literals in strings.items()
        if piece and piece in literals
    ]
    assert typed == []


def test_each_key_names_a_value_of_the_code() -> None:
    words = text.WORDS
    assert set(words.devices) == {"mobile", "tablet", "desktop"}  # visitors.device's.
    assert set(words.languages) == set(LOCALES)
    steps = {"requested", *BookingStatus, *Attendance} - {BookingStatus.PENDING}
    assert set(words.booking_steps.model_dump()) == steps
    assert set(words.charts.model_dump()) == set(CHARTS)


counts = st.integers(min_value=0, max_value=10**6)
names = st.text(min_size=1, max_size=12)


@st.composite
def any_figures(draw) -> Figures:
    pairs = st.lists(st.tuples(names, counts), max_size=4)
    return Figures(
        month=dt.date(draw(st.integers(2000, 2999)), draw(st.integers(1, 12)), 1),
        visits_by_day=[(dt.date(2026, 1, 1), n) for n in draw(st.lists(counts, max_size=3))],
        visits_by_page=draw(st.lists(st.tuples(names, st.sampled_from(["es", "ca"]), counts))),
        devices=Counter(draw(st.dictionaries(st.sampled_from(list(text.DEVICES)), counts))),
        referrers=draw(pairs),
        campaigns=draw(st.lists(st.tuples(names | st.just(""), names, names, counts))),
        bots=draw(pairs),
        not_found=draw(st.lists(st.tuples(names, names | st.just(""), counts))),
        started=Counter(draw(st.dictionaries(st.sampled_from(["", "quote", "gone"]), counts))),
        leads=Counter(draw(st.dictionaries(st.sampled_from(["sent", "spam"]), counts))),
        leads_by_source=draw(pairs),
        leads_by_service=draw(pairs),
        bookings=Counter(draw(st.dictionaries(st.sampled_from(["requested", "no_show"]), counts))),
    )


@settings(max_examples=60, deadline=None)
@given(any_figures())
def test_any_month_s_report_and_mail_are_filled_in(figures: Figures) -> None:
    """No ``{name}`` of the words is left unfilled (the figures' own text aside), every
    section is there, and the months and counts are said."""
    said = text.report_text(figures) + mail.summary(figures, "", None)
    own = "".join(str(v) for v in vars(figures).values())
    for phrase in leaves(SPANISH):
        for name in placeholders(phrase):
            assert f"{{{name}}}" not in said or f"{{{name}}}" in own
    for heading, _ in text.sections(figures):
        assert heading in said
    assert text.month_name(figures) in said and text.set_aside(figures.leads["spam"]) in said
