"""Texts filled in when they are used (an owner's alert, a note in the agency's e-mail, a
date in words): a content field typed ``Template("count", "minutes")`` declares, beside the
field, the ``{names}`` its text may use. They are checked as the file is read, so a
misspelt ``{cuont}`` stops the load naming the file, the field and the name, instead of
raising while an alert is sent in the middle of an outage. ``render`` fills one, through
``loader.fill`` (the one placeholder mechanism of the content).

A template's braces are only its names: ``{count}``, never ``{count:>3}``, ``{0}`` or a
literal brace, so what the check reads is exactly what ``fill`` replaces.
"""

import re
from dataclasses import dataclass
from string import Formatter
from typing import Annotated, Any

from pydantic import BaseModel, GetCoreSchemaHandler
from pydantic_core import core_schema

from agency_site.content.loader import fill

_NAME = re.compile(r"[a-z][a-z0-9_]*")  # What ``loader.fill`` recognises between braces.


def placeholders(text: str) -> list[str]:
    """The ``{names}`` of ``text``, in order; a ``ValueError`` for a brace that is not one
    (unbalanced, a format spec or conversion, a literal ``{{``)."""
    names = []
    for literal, name, spec, conversion in Formatter().parse(text):
        if "{" in literal or "}" in literal:
            raise ValueError("a brace that does not enclose a name (write only {name})")
        if name is None:
            continue
        if spec or conversion or not _NAME.fullmatch(name):
            raise ValueError(f"{{{name}}} is not a plain name (write only {{name}})")
        names.append(name)
    return names


class TemplateText(str):
    """A ``Template`` field's text as loaded: a ``str`` that knows the names it may use,
    so ``render`` refuses a call that leaves one of them out."""

    names: frozenset[str]

    def __new__(cls, text: str, names: frozenset[str]) -> "TemplateText":
        self = super().__new__(cls, text)
        self.names = names
        return self

    def __reduce__(self):
        return TemplateText, (str(self), self.names)


def check_placeholders(text: str, allowed: frozenset[str]) -> TemplateText:
    """``text`` when each of its ``{names}`` is one of ``allowed``; else a ``ValueError``
    naming the first that is not."""
    for name in placeholders(text):
        if name not in allowed:
            known = ", ".join(f"{{{n}}}" for n in sorted(allowed)) or "none"
            raise ValueError(f"unknown placeholder {{{name}}} (this text may use: {known})")
    return TemplateText(text, allowed)


@dataclass(frozen=True)
class Placeholders:
    """The ``{names}`` a text may use: pydantic metadata of a ``Template`` field."""

    names: frozenset[str]

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler):
        return core_schema.no_info_after_validator_function(
            lambda text: check_placeholders(text, self.names), handler(source)
        )


def Template(*allowed: str) -> Any:  # Capitalised: used as a type, like pydantic's constr.
    """A ``str`` field whose ``{names}`` must be among ``allowed`` (checked at load)."""
    for name in allowed:
        if not _NAME.fullmatch(name):
            raise ValueError(f"Template({name!r}): a name is lowercase letters, digits and _")
    return Annotated[str, Placeholders(frozenset(allowed))]


def templates(model: type[BaseModel]) -> dict[str, frozenset[str]]:
    """The ``Template`` fields of ``model`` and the names each may use."""
    return {
        field: marker.names
        for field, info in model.model_fields.items()
        for marker in info.metadata
        if isinstance(marker, Placeholders)
    }


def render(template: str, /, **values: object) -> str:
    """``template`` with each ``{name}`` replaced by ``values[name]`` (``loader.fill``).

    A ``Template`` field's text needs a value for every name its field declares, used or
    not, so a call that forgets one fails in the tests, whatever the text says today."""
    missing = getattr(template, "names", frozenset()) - values.keys()
    if missing:
        raise ValueError(f"no value for {sorted(missing)}, which this text may use")
    return fill(template, values)
