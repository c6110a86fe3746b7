"""``python -m agency_site.forms``: each form's fields and the variables its EmailJS
template gets, read from the declarations (what to write in the EmailJS dashboard)."""

from agency_site.forms import declarations
from agency_site.forms.email import form_params, kind_params
from agency_site.forms.fields import Control
from agency_site.settings import EmailJSSettings


def describe() -> str:
    """One paragraph per form: its setting, fields and template variables (its kind's flags
    too: one template may serve several kinds, docs/leads.md)."""
    lines = []
    for form in declarations.FORMS:
        sample = {f.name: "2026-01-05" if f.control is Control.DATE else "x" for f in form.fields}
        variables = list(form_params(form, sample, "") | kind_params(form.kind))
        setting = EmailJSSettings.variable(form.template_setting)
        if form.template_setting != EmailJSSettings.AGENCY_TEMPLATE:
            agency = EmailJSSettings.variable(EmailJSSettings.AGENCY_TEMPLATE)
            setting += f"; unset: {agency}'s"
        lines += [
            f"{form.kind} form ({setting}), on {form.page}",
            "  fields: "
            + ", ".join(
                f"{field.name}{'' if field.required else ' (optional)'}" for field in form.fields
            ),
            "  template variables: " + ", ".join(variables),
        ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(describe())
