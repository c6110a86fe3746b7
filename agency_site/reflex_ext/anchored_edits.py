"""Exact-anchor edits of a file Reflex or React Router ships (``lazy_socket.py``,
``entry_server.py``): texts that must occur a known number of times, anchors that must occur
exactly once, each replaced. Any difference is returned as a sentence for the caller's loud
build error."""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Edit:
    """Replace ``anchor`` (exactly once in the template) by ``replacement``."""

    name: str
    anchor: str
    replacement: str


class AnchorMismatch(ValueError):
    """The pristine file is not the one the edits were written for (the message says how)."""


def check_counts(template: str, counts: Mapping[str, int]) -> None:
    """Each text occurs exactly as often as expected (raises ``AnchorMismatch``)."""
    for text, expected in counts.items():
        if (found := template.count(text)) != expected:
            raise AnchorMismatch(f"{text!r} occurs {found} time(s), expected {expected}")


def apply_edits(template: str, edits: Iterable[Edit]) -> str:
    """The template with each edit applied, its anchor found exactly once first (raises
    ``AnchorMismatch``)."""
    for edit in edits:
        if (found := template.count(edit.anchor)) != 1:
            raise AnchorMismatch(
                f"the anchor {edit.name!r} occurs {found} time(s), expected exactly once"
            )
        template = template.replace(edit.anchor, edit.replacement)
    return template
