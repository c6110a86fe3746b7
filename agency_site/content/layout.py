"""What every page shares around its own text (skip link, navigation bar, footer):
``content/es/layout.yaml``."""

from agency_site.content.base import Content
from agency_site.content.files import load


class NavbarCopy(Content):
    """The navigation bar's words: its name, the services menu and the mobile menu button."""

    label: str
    services: str
    mobile_menu: str
    open_menu: str
    close_menu: str


class FooterCopy(Content):
    """The footer's headings, the social links' names (``{network}``), copyright, back to top."""

    services: str
    company: str
    legal: str
    contact: str
    social_label: str
    rights: str
    back_to_top: str


class LayoutCopy(Content):
    """The words of the layout every page shares."""

    skip_link: str
    new_tab_note: str  # After an external link's label, for screen readers, in brackets.
    navbar: NavbarCopy
    footer: FooterCopy


LAYOUT = load("layout.yaml", LayoutCopy)
