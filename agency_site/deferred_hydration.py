"""Start the JavaScript of a prerendered page only after its first paint.

Every page's text is already in its HTML. React Router's bootstrap, though, fetches
~170 KB of modules (and its ``<link rel="modulepreload">`` tags more) before the
first paint, and Lighthouse's simulated mobile load counts them against the largest
contentful paint. The build therefore rewrites each page so the module preloads and
the bootstrap start one frame after the first paint: the visitor reads at once and
the page becomes interactive right after.
"""

import json
import re
from pathlib import Path

_PRELOAD = re.compile(r'<link rel="modulepreload"(?: fetchpriority="low")? href="([^"]+)"/>')
_BOOTSTRAP = re.compile(
    r'<script type="module" async="">(?P<body>[^<]*?window\.__reactRouterRouteModules'
    r"[^<]*?)</script>"
)
_SIDE_EFFECT_IMPORT = re.compile(r'^import "([^"]+)";$')
_NAMESPACE_IMPORT = re.compile(r'^import \* as (\w+) from "([^"]+)";$')

# Runs the boot function after the first paint (at once in a hidden tab, which paints nothing).
_SCHEDULE = (
    'if (document.visibilityState === "visible") '
    "requestAnimationFrame(() => setTimeout(__boot, 0)); else setTimeout(__boot, 0);"
)


def deferred_bootstrap(body: str, preloads: list[str]) -> str:
    """The bootstrap script rewritten to preload and import its modules after the first paint."""
    lines = []
    for line in (raw.strip() for raw in body.strip().splitlines()):
        if not line:
            continue
        if match := _SIDE_EFFECT_IMPORT.match(line):
            lines.append(f"await import({json.dumps(match[1])});")
        elif match := _NAMESPACE_IMPORT.match(line):
            lines.append(f"const {match[1]} = await import({json.dumps(match[2])});")
        else:
            lines.append(line)
    return (
        '<script type="module" async="">'
        f"const __preloads = {json.dumps(preloads)};\n"
        "const __boot = async () => {\n"
        "for (const href of __preloads) { const link = document.createElement('link'); "
        "link.rel = 'modulepreload'; link.href = href; document.head.appendChild(link); }\n"
        + "\n".join(lines)
        + "\n};\n"
        + _SCHEDULE
        + "</script>"
    )


def defer_page(html: str) -> str:
    """One page's HTML with its module preloads and bootstrap moved after the first paint."""
    preloads = _PRELOAD.findall(html)
    bootstrap = _BOOTSTRAP.search(html)
    if bootstrap is None:
        if preloads:
            msg = "A page preloads modules but its React Router bootstrap was not recognised."
            raise RuntimeError(msg)
        return html
    html = _PRELOAD.sub("", html)
    bootstrap = _BOOTSTRAP.search(html)
    return (
        html[: bootstrap.start()]
        + deferred_bootstrap(bootstrap["body"], preloads)
        + html[bootstrap.end() :]
    )


def defer_hydration(static_dir: Path) -> None:
    """Rewrite every prerendered page of the build (see the module docstring)."""
    for page in static_dir.rglob("*.html"):
        html = page.read_text()
        deferred = defer_page(html)
        if deferred != html:
            page.write_text(deferred)
