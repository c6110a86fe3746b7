"""The EmailJS account the forms deliver through (``EMAILJS_*``): its credentials, and
each form's template id by one pattern (``EMAILJS_<KIND>_TEMPLATE_ID``)."""

import re
from typing import Annotated, Any, ClassVar

from pydantic import (
    Field,
    PositiveFloat,
    PrivateAttr,
    SecretStr,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource

from agency_site.settings.env_file import section
from agency_site.settings.text_values import strip_slash

# Each form's own EmailJS template id: EMAILJS_<KIND>_TEMPLATE_ID, the form's declared kind
# in capitals (agency_site/forms/template_ids.py); as the environment and .env spell them.
_FORM_TEMPLATE = re.compile(r"emailjs_([a-z][a-z0-9_]*)_template_id", re.IGNORECASE)


class _FormTemplateIds(PydanticBaseSettingsSource):
    """Every ``EMAILJS_<KIND>_TEMPLATE_ID`` of the environment, as ``<kind>_template_id``
    (``.env``'s reach the settings as its other variables do, prefix removed)."""

    def __init__(self, settings_cls: type[BaseSettings], env: EnvSettingsSource) -> None:
        super().__init__(settings_cls)
        self.env = env

    def get_field_value(self, field: object, field_name: str) -> tuple[None, str, bool]:
        return None, field_name, False  # Every value comes from ``__call__``.

    def __call__(self) -> dict[str, str]:
        found = (_FORM_TEMPLATE.fullmatch(name) for name in self.env.env_vars)
        return {
            f"{match[1].lower()}_template_id": value
            for match in found
            if match and (value := self.env.env_vars[match[0]])
        }


class EmailJSSettings(BaseSettings):
    """Credentials and templates of the EmailJS account the forms deliver through.

    One template may serve several kinds of e-mail (EmailJS's free plan allows few
    templates, docs/leads.md): a form's template id left unset is the agency template's,
    ``EMAILJS_CONTACT_TEMPLATE_ID`` (its sections on ``is_booking``, ``is_quote``... show
    each kind's fields). Each form's own is ``EMAILJS_<KIND>_TEMPLATE_ID``, read for any
    kind (``form_template_ids``): a new form needs no line here. The visitor's e-mails have
    a template of their own or none.
    """

    model_config = section("EMAILJS_")
    # The template every form's unset template id falls back to, and the one that never does.
    AGENCY_TEMPLATE: ClassVar[str] = "contact_template_id"
    VISITOR_TEMPLATE: ClassVar[str] = "visitor_template_id"

    api_base: Annotated[str, Field(min_length=1)] = "https://api.emailjs.com"
    service_id: str = ""
    public_key: str = ""
    private_key: SecretStr = SecretStr("")
    # The agency template; also the Home form's own (its kind is ``contact``).
    contact_template_id: str = ""
    # The visitor's e-mails about their booking (confirmed, declined, cancelled): optional;
    # without it the agency answers visitors by hand.
    visitor_template_id: str = ""
    timeout_seconds: PositiveFloat = 10.0
    # Every other EMAILJS_<KIND>_TEMPLATE_ID set, by its ``<kind>_template_id``.
    _form_template_ids: dict[str, str] = PrivateAttr(default_factory=dict)

    _slash = field_validator("api_base")(strip_slash)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The usual sources, the environment's form template ids after its fields."""
        assert isinstance(env_settings, EnvSettingsSource)
        form_ids = _FormTemplateIds(settings_cls, env_settings)
        return init_settings, env_settings, form_ids, dotenv_settings, file_secret_settings

    @model_validator(mode="wrap")
    @classmethod
    def _keep_form_template_ids(cls, data: Any, handler: Any) -> "EmailJSSettings":
        """Keep every ``<kind>_template_id`` given that is no field (from the environment,
        ``.env`` or the caller) as a form's template id."""
        given = data if isinstance(data, dict) else {}
        form_ids = {
            name.lower(): str(value)
            for name, value in given.items()
            if name.lower().endswith("_template_id")
            and name.lower() not in cls.model_fields
            and value
        }
        settings = handler(data)
        settings._form_template_ids.update(form_ids)
        return settings

    @staticmethod
    def variable(name: str) -> str:
        """The environment variable of one of these settings: ``EMAILJS_QUOTE_TEMPLATE_ID``."""
        return f"EMAILJS_{name.upper()}"

    @property
    def form_template_ids(self) -> dict[str, str]:
        """Every form template id set besides the agency's, by its ``<kind>_template_id``
        (whether a declared form uses it: ``forms/template_ids.py``)."""
        return dict(self._form_template_ids)

    @property
    def missing(self) -> tuple[str, ...]:
        """The variables delivery needs and lacks (the private key is optional; every form's
        template but the agency's falls back to it): leads wait until they are set."""
        needed = ("service_id", "public_key", self.AGENCY_TEMPLATE)
        return tuple(self.variable(name) for name in needed if not getattr(self, name))

    @property
    def configured(self) -> bool:
        """Whether delivery can be attempted."""
        return not self.missing

    def own_template_id(self, setting: str) -> str:
        """The id set for ``setting`` (``contact_template_id``, ``visitor_template_id`` or a
        form's ``<kind>_template_id``), "" when unset."""
        if setting in type(self).model_fields:
            return getattr(self, setting)
        return self._form_template_ids.get(setting, "")

    def template_id(self, setting: str) -> str:
        """The template id the e-mails of ``setting`` go through: its own; for a form's
        left unset, the agency template's."""
        own = self.own_template_id(setting)
        if own or setting == self.VISITOR_TEMPLATE:
            return own
        return getattr(self, self.AGENCY_TEMPLATE)
