"""The legal pages: Markdown files in ``content/es/legal/`` and the data they show as blocks.

``privacy.md``, ``terms.md`` and ``cookies.md`` each have a front matter (hero, date of
the last update) and Markdown text whose ``##`` headings are the numbered sections. A
fenced block names data kept in YAML: ```` ```identity ```` (the owner's LSSI-CE art. 10
identification, ``common.yaml``) or ```` ```storage ```` (what the site stores in the
browser, ``storage.yaml``, checked against the build by ``tests/e2e/test_legal_pages.py``).
"""

from pydantic import Field, field_validator

from agency_site.content.base import Content, Fact, Hero, PageMeta
from agency_site.content.files import load, load_markdown
from agency_site.content.loader import markdown_tree
from agency_site.locale import Localized

# The Markdown the legal pages may use (components/legal.py renders each), and their blocks.
MARKDOWN_NODES = (
    "heading",
    "paragraph",
    "inline",
    "text",
    "softbreak",
    "bullet_list",
    "ordered_list",
    "list_item",
    "link",
    "strong",
    "em",
    "code_inline",
)
BLOCKS = ("identity", "storage")
HEADINGS = ("h2", "h3")  # Sections and their parts: the hero holds the page's h1.


class LegalCommon(Content):
    """What the three legal pages share: the update label and the owner's identification."""

    updated_label: str
    identity: tuple[Fact, ...] = Field(min_length=1)


class StorageItem(Content):
    """Something the site stores in the visitor's browser, as the cookie policy lists it."""

    name: str
    storage: str
    purpose: str
    duration: str
    party: str


class StorageLabels(Content):
    """The labels of a stored item's data."""

    storage: str
    purpose: str
    duration: str
    party: str


class StorageTable(Content):
    """Everything the site stores in the browser, with how the list is labelled."""

    caption: str
    labels: StorageLabels
    items: tuple[StorageItem, ...] = Field(min_length=1)


class LegalPage(Content):
    """A legal page: its name and description, hero, date of the last update (front matter)
    and its Markdown text."""

    meta: PageMeta
    hero: Hero
    updated: str
    body: str = Field(min_length=1)

    @field_validator("body")
    @classmethod
    def _opens_with_a_section(cls, body: str) -> str:
        """The text opens with a ``##`` section heading."""
        blocks = markdown_tree(body).children
        if not blocks or blocks[0].tag != "h2":
            raise ValueError("the text must start with a '## ' section heading")
        return body

    @property
    def headings(self) -> tuple[str, ...]:
        """The section headings (``##``), in order, without their numbers."""
        return tuple(
            node.children[0].content
            for node in markdown_tree(self.body).children
            if node.type == "heading" and node.tag == "h2"
        )


def _legal_page(name: str) -> LegalPage:
    return load_markdown(
        f"legal/{name}", LegalPage, supported=MARKDOWN_NODES, blocks=BLOCKS, headings=HEADINGS
    )


SHARED = Localized(lambda: load("legal/common.yaml", LegalCommon))
STORAGE = Localized(lambda: load("legal/storage.yaml", StorageTable))
PRIVACY = Localized(lambda: _legal_page("privacy.md"))
TERMS = Localized(lambda: _legal_page("terms.md"))
COOKIES = Localized(lambda: _legal_page("cookies.md"))
# The legal pages, in the order of the footer and the sitemap.
DOCUMENTS: Localized[tuple[LegalPage, ...]] = Localized(
    lambda: (PRIVACY.value, TERMS.value, COOKIES.value)
)
