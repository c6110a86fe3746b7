"""Each form's EmailJS template id, by one pattern: ``EMAILJS_<KIND>_TEMPLATE_ID``, its
declared kind in capitals (``EMAILJS_BOOKING_TEMPLATE_ID``; the Home form's kind is
``contact``, so its variable is the agency template's, ``EMAILJS_CONTACT_TEMPLATE_ID``).
Left unset, a form's e-mails go through the agency template. ``EmailJSSettings`` reads
every variable of the pattern; these functions say which of them the declared forms use.
"""

import hashlib

from agency_site.forms import declarations
from agency_site.settings import EmailJSSettings


def template_settings() -> tuple[str, ...]:
    """The settings of every template id in use, sorted: each declared form's
    (``booking_template_id``...), the agency's and the visitor's."""
    names = {form.template_setting for form in declarations.FORMS}
    return tuple(
        sorted(names | {EmailJSSettings.AGENCY_TEMPLATE, EmailJSSettings.VISITOR_TEMPLATE})
    )


def form_templates(emailjs: EmailJSSettings) -> dict[str, str]:
    """Each form's EmailJS template id, by kind (unset: the agency template's)."""
    return {form.kind: emailjs.template_id(form.template_setting) for form in declarations.FORMS}


def shared_templates(emailjs: EmailJSSettings) -> dict[str, str]:
    """The variables of the forms' template ids left unset, each with the variable of the
    template their e-mails go through instead (the agency template's)."""
    agency = EmailJSSettings.variable(EmailJSSettings.AGENCY_TEMPLATE)
    return {
        EmailJSSettings.variable(name): agency
        for name in template_settings()
        if name not in (EmailJSSettings.AGENCY_TEMPLATE, EmailJSSettings.VISITOR_TEMPLATE)
        and not emailjs.own_template_id(name)
    }


def fingerprint(emailjs: EmailJSSettings) -> str:
    """A short digest of the settings, to tell whether the configuration has changed (held
    leads are released when it does): the account and every template id in use (each
    form's, fallback included, the agency's and the visitor's)."""
    account = (
        emailjs.api_base,
        emailjs.service_id,
        emailjs.public_key,
        emailjs.private_key.get_secret_value(),
    )
    templates = (f"{name}={emailjs.template_id(name)}" for name in template_settings())
    joined = "\n".join((*account, *templates))
    return hashlib.sha256(joined.encode()).hexdigest()[:16]
