"""The report's three charts, drawn on the server as SVG by pygal (pure Python): visits
per day, the funnel, leads per source (``CHARTS``, by name). Inline in the page, with no
script: pygal's interactive JavaScript is left out (``js=()``, and the config script it
writes anyway is cut: ``_without_script``), so the SVG shows as drawn."""

import re
from collections.abc import Callable

import pygal
from pygal.style import CleanStyle

from agency_site.content.report import WORDS
from agency_site.locale import DEFAULT_LOCALE
from agency_site.report.figures import Figures

# Each chart's title, legend and description (``content/es/report.yaml``'s ``charts``).
_CHARTS = WORDS.of(DEFAULT_LOCALE).charts

_OPTIONS = {
    "style": CleanStyle,
    "js": (),
    "disable_xml_declaration": True,
    "show_legend": False,
    "width": 640,
    "height": 360,
    "explicit_size": False,
    "print_values": True,
}


_SCRIPT = re.compile(r"<script\b.*?</script>", re.DOTALL | re.IGNORECASE)


def _without_script(svg: str) -> str:
    """pygal's SVG without its script (the page runs none; the CSP would refuse it)."""
    return _SCRIPT.sub("", svg)


def visits_per_day(figures: Figures) -> str:
    words = _CHARTS.visits
    chart = pygal.Bar(title=words.title, x_label_rotation=0, **_OPTIONS)
    chart.x_labels = [str(day.day) for day, _ in figures.visits_by_day]
    chart.x_labels_major_every = 5
    chart.show_minor_x_labels = False
    chart.add(words.series, [n for _, n in figures.visits_by_day])
    chart.print_values = False
    return _without_script(chart.render(is_unicode=True))


def _bars(title: str, series: str, pairs: list[tuple[str, int]]) -> str:
    """Horizontal bars, the first pair on top."""
    chart = pygal.HorizontalBar(title=title, **_OPTIONS)
    rows = list(reversed(pairs))
    chart.x_labels = [label for label, _ in rows]
    chart.add(series, [n for _, n in rows])
    return _without_script(chart.render(is_unicode=True))


def funnel(figures: Figures) -> str:
    return _bars(_CHARTS.funnel.title, _CHARTS.funnel.series, list(figures.funnel))


def leads_per_source(figures: Figures) -> str:
    words = _CHARTS.sources
    return _bars(words.title, words.series, list(figures.leads_by_source))


# Each chart by its name: its description (its text alternative) and how it is drawn. The
# report page draws them all inline; the owner's desk serves each as an SVG file of its own.
CHARTS: dict[str, tuple[str, Callable[[Figures], str]]] = {
    "visits": (_CHARTS.visits.description, visits_per_day),
    "funnel": (_CHARTS.funnel.description, funnel),
    "sources": (_CHARTS.sources.description, leads_per_source),
}


def charts(figures: Figures) -> list[tuple[str, str]]:
    """Each chart's description (its text alternative) and its SVG."""
    return [(description, draw(figures)) for description, draw in CHARTS.values()]
