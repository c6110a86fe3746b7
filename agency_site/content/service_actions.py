"""What the service pages share: ``content/es/services/common/services.yaml``.

The services' order (menus, the Home grid) and the buttons several pages show with the
same label and target, which a service file names instead of writing out
(``cta: request_info``): a label changed there changes on every page.
"""

from typing import Annotated, Literal

from pydantic import BeforeValidator, Field

from agency_site.content.base import Action, Content
from agency_site.content.files import load

Id = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$")]


class ServicesCommon(Content):
    """The services' order (one file each in ``services/``) and their shared buttons by name."""

    order: tuple[Id, ...] = Field(min_length=1)
    price_from: str = Field(pattern=r"\{price\}")  # A pack's price as shown: "Desde {price}".
    buttons: dict[Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")], Action]


COMMON = load("services/common/services.yaml", ServicesCommon)
BUTTONS: dict[str, Action] = COMMON.buttons
ButtonName = Literal[tuple(BUTTONS)]  # type: ignore[valid-type]  # For the JSON Schema.


def _named_button(value: object) -> object:
    """A shared button's name as that button; anything else as given."""
    if isinstance(value, str):
        if value not in BUTTONS:
            raise ValueError(f"no shared button {value!r} (known: {', '.join(BUTTONS)})")
        return BUTTONS[value]
    return value


# A button written out, or named from the shared ones.
Button = Annotated[
    Action, BeforeValidator(_named_button, json_schema_input_type=Action | ButtonName)
]
