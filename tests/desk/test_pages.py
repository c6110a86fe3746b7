"""The desk's pages as files: every value of the code has its words in the templates
(``_words.html``), no template has an inline script or style (the strict CSP would block
it), ``desk.js`` is valid JavaScript with no words of its own, and nothing of the desk
reaches the public site: not its pages' JavaScript, not its sitemap, not robots.txt."""

import re
from pathlib import Path

import jinja2

from agency_site import paths
from agency_site.desk import inbox, static
from agency_site.desk.audit import AuditAction
from agency_site.desk.guard import TEMPLATES, environment
from agency_site.forms.kinds import LeadKind
from agency_site.reflex_ext.js import node_check
from agency_site.routes import ROUTES
from agency_site.seo.files import robots_txt, sitemap_xml

DESK = Path(inbox.__file__).parent


def _words() -> jinja2.environment.TemplateModule:
    return environment(lambda name, **params: "").get_template("_words.html").module


def test_every_form_status_and_action_has_its_words() -> None:
    words = _words()
    assert set(words.KINDS) == {str(kind) for kind in LeadKind}
    assert set(words.STATUS) == set(words.STATUS_HELP) == {str(s) for s in inbox.Shown}
    assert set(words.ACTIONS) == {str(action) for action in AuditAction}
    assert len(words.MONTHS) == 12


def test_every_refusal_the_server_or_the_script_names_has_its_message() -> None:
    code = "\n".join(path.read_text() for path in DESK.glob("*.py"))
    named = set(re.findall(r'(?:PasskeyRefused|refusal)\("([a-z_]+)"', code))
    script = (static.FOLDER / "desk.js").read_text()
    named |= set(re.findall(r'(?:failure|say)\(form?,? ?"([a-z_]+)"\)', script))
    named |= set(re.findall(r'failure\("([a-z_]+)"\)', script))
    named |= set(re.findall(r'"(cancelled|passkey)"', script))
    assert {"invite", "challenge", "rate_limited", "session", "fresh"} <= named
    assert {"unsupported", "network", "cancelled"} <= named
    assert named <= set(_words().MESSAGES), named - set(_words().MESSAGES)


def test_no_template_has_an_inline_script_or_style() -> None:
    for template in TEMPLATES.glob("*.html"):
        text = template.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), template.name
        assert not re.search(r"<style|\sstyle=|\son[a-z]+=", text), template.name


def test_desk_js_is_valid_and_has_no_words_of_its_own() -> None:
    script = static.FOLDER / "desk.js"
    assert node_check(script) == ""
    code = "\n".join(
        line for line in script.read_text().splitlines() if not line.strip().startswith("//")
    )
    assert code.isascii()
    literals = re.findall(r'"([^"\n]*)"|`([^`]*)`', code)
    sentences = [a or b for a, b in literals if re.search(r"[a-z]+ [a-z]+ [a-z]+", a or b)]
    assert sentences == []


def test_the_public_site_knows_nothing_of_the_desk() -> None:
    """No page of the site (routes.py) is the desk's, so neither the sitemap nor the build
    lists it; robots.txt does not name it (a Disallow would point to it; its pages say
    noindex themselves). Nothing the frontend is built from imports the desk:
    tests/test_architecture.py."""
    assert not [route.path for route in ROUTES if route.path.startswith(paths.SITE_API_PREFIX)]
    sitemap = sitemap_xml([(route.path, {}) for route in ROUTES])
    assert paths.DESK not in sitemap and paths.DESK not in robots_txt()
