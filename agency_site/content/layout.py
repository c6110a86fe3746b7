"""What every page shares around its own text (skip link, navigation bar, footer):
``content/es/layout.yaml``."""

from typing import Annotated

from pydantic import Field

from agency_site.content.base import Content, Link
from agency_site.content.files import load
from agency_site.locale import Localized

# A menu entry: a page's path (named as the page names itself), or a link with its own label
# (a page the site does not have yet, such as the blog).
MenuItem = Annotated[str, Field(pattern=r"^/[a-z0-9/-]*$")] | Link


class SocialLink(Content):
    """A social network profile of the agency."""

    network: str
    href: str


class NavbarCopy(Content):
    """The navigation bar's words: its name, the services menu and the mobile menu button."""

    label: str
    links: tuple[MenuItem, ...]  # Its top-level pages, in order, by their navigation label.
    services: str  # The dropdown of the services, after the first link.
    contact: str  # The page of the button at the end.
    mobile_menu: str
    open_menu: str
    close_menu: str


class FooterCopy(Content):
    """The footer's headings, the social links' names (``{network}``), copyright, back to top."""

    services: str
    company: str
    company_links: tuple[MenuItem, ...]
    legal: str
    legal_links: tuple[MenuItem, ...]
    contact: str
    social: tuple[SocialLink, ...]
    social_label: str
    rights: str
    back_to_top: str


class LayoutCopy(Content):
    """The words of the layout every page shares."""

    skip_link: str
    new_tab_note: str  # After an external link's label, for screen readers, in brackets.
    navbar: NavbarCopy
    footer: FooterCopy


LAYOUT = Localized(lambda: load("layout.yaml", LayoutCopy))
