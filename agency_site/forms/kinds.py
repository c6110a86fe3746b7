"""The kinds of lead the site collects: one per declared form (``declarations.FORMS``),
made from the declarations, never written by hand. A member is named after its form
(``LeadKind.BOOKING`` for the ``booking`` form) and its value is the form's ``kind``, what
the leads table stores (``LeadKind.HERO == "contact"``, a value that predates the name)."""

from enum import StrEnum

from agency_site.forms.declarations import FORMS

# Which form a lead came from.
LeadKind = StrEnum(
    "LeadKind",
    [(form.name.upper(), form.kind) for form in FORMS],
    module=__name__,
    qualname="LeadKind",
)
