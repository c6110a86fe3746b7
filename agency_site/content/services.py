"""What the services share: ``content/es/services/common/services.yaml`` (their order, the
wording of a price, the buttons several pages show) and their priced packs.

A service file names a shared button instead of writing it out (``cta: request_info``):
a label changed there changes on every page. The services themselves (one page
each) are ``service_pages.py``'s.
"""

import re
import unicodedata
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from pydantic import BeforeValidator, Field

from agency_site import paths
from agency_site.content.base import Action, Content, Figure, euros
from agency_site.content.files import load
from agency_site.content.loader import fill
from agency_site.locale import Localized

Id = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$")]


class ServicesCommon(Content):
    """The services' order (one file each in ``services/``) and their shared buttons by name."""

    order: tuple[Id, ...] = Field(min_length=1)
    price_from: str = Field(pattern=r"\{price\}")  # A pack's price as shown: "Desde {price}".
    buttons: dict[Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")], Action]


COMMON = Localized(lambda: load("services/common/services.yaml", ServicesCommon))
ButtonName = Literal[tuple(COMMON.buttons)]  # type: ignore[valid-type]  # For the JSON Schema.


def _named_button(value: object) -> object:
    """A shared button's name as that button; anything else as given."""
    if isinstance(value, str):
        if value not in COMMON.buttons:
            raise ValueError(f"no shared button {value!r} (known: {', '.join(COMMON.buttons)})")
        return COMMON.buttons[value]
    return value


# A button written out, or named from the shared ones.
Button = Annotated[
    Action, BeforeValidator(_named_button, json_schema_input_type=Action | ButtonName)
]


class Pack(Figure):
    """A priced pack: title, starting price in euros, features and its button (written out
    or a shared one, by name). ``key`` names its price for the texts that quote it."""

    title: str
    price_from: int = Field(gt=0)
    features: tuple[str, ...] = Field(min_length=1)
    cta: Button
    highlighted: bool = False

    @property
    def figure(self) -> str:
        """The starting price as quoted in a sentence: '99€'."""
        return euros(self.price_from)


def price_label(pack: Pack) -> str:
    """A pack's price as shown, worded in ``services/common/services.yaml``: 'Desde 99€'."""
    return fill(COMMON.price_from, {"price": pack.figure}, "price_from")


def pack_id(pack: Pack) -> str:
    """A pack's id in the quote form and its link: its ``key``, else its title as a slug."""
    if pack.key:
        return pack.key
    ascii_title = unicodedata.normalize("NFKD", pack.title).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_title.lower()).strip("-")


def quote_link(service_id: str, pack: str = "") -> str:
    """The quote form on /contact with the service (and pack) chosen."""
    query = {"service": service_id} | ({"pack": pack} if pack else {})
    return f"{paths.CONTACT}?{urlencode(query)}"


def _to_quote_form(button: Any, service_id: str, pack: str) -> Any:
    """A button (by name or written out) leading to /contact, as a link to the quote form."""
    action = COMMON.buttons.get(button) if isinstance(button, str) else button
    if isinstance(action, Action):
        action = action.model_dump()
    if not isinstance(action, dict) or action.get("href") != paths.CONTACT:
        return button
    return action | {"href": quote_link(service_id, pack)}


def with_quote_links(data: Any, service_id: str, pack: str = "") -> Any:
    """A service page's raw data with every button to /contact leading to the quote form
    with the service chosen (and, on a pack's button, the pack: ``ServicePack`` ids)."""
    if isinstance(data, list):
        return [with_quote_links(item, service_id, pack) for item in data]
    if not isinstance(data, dict):
        return data
    if "price_from" in data and isinstance(data.get("title"), str):  # A pack.
        pack = data.get("key") or pack_id(Pack.model_construct(title=data["title"]))
    data = {key: with_quote_links(value, service_id, pack) for key, value in data.items()}
    for key in ("cta", "actions", "help_link"):
        if isinstance(data.get(key), list):
            data[key] = [_to_quote_form(item, service_id, pack) for item in data[key]]
        elif key in data:
            data[key] = _to_quote_form(data[key], service_id, pack)
    return data
