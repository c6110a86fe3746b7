"""Loading a content file with the site-wide values filled in: what every content module
calls, in the language in use (``agency_site.locale``). Reading and validating is ``loader.py``'s; the values are ``values.py``'s table.

``values`` adds names a file may use besides the site's (``{forms.name_max}``: a figure
the code owns, such as a form's limit).
"""

from collections.abc import Iterable, Mapping

from agency_site.content import loader
from agency_site.content import values as site_wide
from agency_site.content.loader import ContentError, Model
from agency_site.locale import current

__all__ = ["ContentError", "load", "load_folder", "load_markdown"]


def _known(extra: Mapping[str, str] | None) -> dict[str, str]:
    """The site-wide values and the ``extra`` names of one file."""
    return site_wide.site_values() | dict(extra or {})


def load(
    name: str,
    model: type[Model],
    locale: str | None = None,
    values: Mapping[str, str] | None = None,
) -> Model:
    """The YAML file ``content/<locale>/<name>`` validated as ``model``."""
    return loader.read_yaml(name, model, _known(values), locale or current())


def load_folder(
    folder: str, model: type[Model], order: Iterable[str], locale: str | None = None
) -> tuple[Model, ...]:
    """One ``model`` per ``<id>.yaml`` of the folder, in ``order``; each file's ``id`` is its name."""
    return loader.read_folder(folder, model, order, _known(None), locale or current())


def load_markdown(
    name: str,
    model: type[Model],
    *,
    supported: Iterable[str],
    blocks: Iterable[str] = (),
    headings: Iterable[str] = ("h2", "h3"),
    locale: str | None = None,
) -> Model:
    """``content/<locale>/<name>``: its YAML front matter plus ``body`` (the Markdown), as
    ``model``."""
    return loader.read_markdown(
        name,
        model,
        _known(None),
        supported=supported,
        blocks=blocks,
        headings=headings,
        locale=locale or current(),
    )
