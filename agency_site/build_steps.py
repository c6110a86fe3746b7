"""The site's own steps in every frontend build, in their order: ``rxconfig.py`` hands them
to the Reflex fence's build plugin (``reflex_ext/build_plugin.py``, ``BuildStep``), which
imports none of the site's features.

1. ``robots.txt``, ``sitemap.xml`` and ``manifest.webmanifest`` from the settings, so their
   absolute URLs follow ``REFLEX_DEPLOY_URL`` (``seo/files.py``; the sitemap pairs each page
   with its twins);
2. the ALTCHA widget's files under ``/altcha/`` (``leads/spam/widget.py``: the pinned npm
   tarball's external build, worker and styles, and the site's starter);
3. the site's pictures encoded into ``public/assets/img/`` (``content/images.py``), in the
   background while Reflex installs the frontend packages;
4. each page's own Content-Security-Policy in a ``<meta>`` first in its ``<head>`` (the
   SHA-256 of each of its inline scripts: ``web_base/security_headers.py``), after every
   other rewrite of the pages: the page keeps it on any static host;
5. ``_headers`` and ``_redirects`` for Cloudflare Pages and Netlify (``deploy/static_host.py``).
"""

from pathlib import Path

from agency_site.content import images
from agency_site.deploy.static_host import write_host_files
from agency_site.leads.spam.widget import public_files
from agency_site.paths import MANIFEST_PATH, ROBOTS_PATH, SITEMAP_PATH
from agency_site.reflex_ext.build_plugin import BuildStep, SitemapPages
from agency_site.seo.files import robots_txt, sitemap_xml, web_manifest
from agency_site.settings import get_settings
from agency_site.web_base.security_headers import with_page_policy


def seo_files(pages: SitemapPages) -> dict[str, str]:
    """robots.txt, the manifest and the sitemap of ``pages``, by URL path."""
    return {
        ROBOTS_PATH: robots_txt(),
        MANIFEST_PATH: web_manifest(),
        SITEMAP_PATH: sitemap_xml(pages),
    }


def widget_files(pages: SitemapPages) -> dict[str, str]:
    """The ALTCHA widget's files, by URL path."""
    return public_files()


def publish_pictures(public_dir: Path) -> None:
    """The pictures encoded (or taken from the cache) into ``public_dir``."""
    images.publish(public_dir)


def host_files(static_dir: Path) -> None:
    """``_headers`` and ``_redirects`` beside the pages, for a static host or CDN."""
    write_host_files(static_dir, get_settings().site_url)


SITE_BUILD_STEPS = (
    BuildStep("robots.txt, the manifest and the sitemap", files=seo_files),
    BuildStep("the ALTCHA widget's files", files=widget_files),
    BuildStep("the pictures", publish=publish_pictures),
    BuildStep("each page's Content-Security-Policy", page=with_page_policy),
    BuildStep("the static host's _headers and _redirects", finish=host_files),
)
