"""The month's report as one HTML page readable on a phone: the text's sections and the
three charts, inline SVG, no script, no outside request."""

from html import escape

from agency_site.report.charts import charts
from agency_site.report.figures import Figures
from agency_site.report.text import sections, title

_STYLE = (
    "body{font-family:system-ui,sans-serif;margin:0 auto;max-width:42rem;padding:1rem;"
    "line-height:1.4;color:#1f2937}h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.5rem}"
    "ul{padding-left:1.2rem}figure{margin:1rem 0}svg{width:100%;height:auto}"
)


def report_page(figures: Figures) -> str:
    """The whole HTML document."""
    page_title = title(figures)
    figures_html = "".join(
        f'<figure role="img" aria-label="{escape(description)}">{svg}'
        f"<figcaption>{escape(description)}</figcaption></figure>"
        for description, svg in charts(figures)
    )
    body = "".join(
        f"<h2>{escape(heading)}</h2><ul>"
        + "".join(f"<li>{escape(line)}</li>" for line in lines)
        + "</ul>"
        for heading, lines in sections(figures)
    )
    return (
        '<!doctype html><html lang="es"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="robots" content="noindex"><title>{escape(page_title)}</title>'
        f"<style>{_STYLE}</style></head><body><h1>{escape(page_title)}</h1>"
        f"{figures_html}{body}</body></html>\n"
    )
