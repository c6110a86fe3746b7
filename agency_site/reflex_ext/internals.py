"""The Reflex names the site uses that are not its public ``rx.`` API, imported here only.

After a Reflex upgrade, an import error here (every unit test imports the site) is the
first sign that one of them moved; ``tests/test_reflex_ext.py`` checks what they mean.
"""

from pathlib import Path

from reflex.compiler.utils import compile_client_storage
from reflex.components.core.banner import has_connection_errors
from reflex.experimental.client_state import ClientStateVar
from reflex.state import FrontendEventExceptionState
from reflex.utils.build import zip_app
from reflex.utils.prerequisites import get_web_dir
from reflex.vars import VarData
from reflex_base.config import get_config
from reflex_base.constants import Dirs, Templates
from reflex_base.plugins.base import Plugin
from reflex_base.plugins.sitemap import generate_links_for_sitemap
from reflex_base.utils import format as reflex_format
from reflex_base.utils.form import FORM_DATA_ENTRIES_KEY
from reflex_base.utils.format import format_event_handler, to_snake_case
from reflex_base.utils.imports import ImportVar
from reflex_components_core.el.elements.inline import A as PlainAnchor
from reflex_components_lucide.icon import LUCIDE_ICON_LIST

# Who uses what: event_guard.py (FORM_DATA_ENTRIES_KEY, format_event_handler, the browser's
# error reports' event: FrontendEventExceptionState.handle_frontend_exception), state/ui.py
# and components/form_hooks.py (ClientStateVar, VarData, ImportVar, has_connection_errors),
# components/layout.py (PlainAnchor: an <a> that is not a React Router link), server.py
# (static_dir), site_api.py (get_config), lazy_socket.py
# (WEB_TEMPLATE_DIR); the tests check
# the site against Reflex's own rules with the rest.
__all__ = [
    "FORM_DATA_ENTRIES_KEY",
    "LUCIDE_ICON_LIST",
    "WEB_TEMPLATE_DIR",
    "ClientStateVar",
    "FrontendEventExceptionState",
    "ImportVar",
    "PlainAnchor",
    "Plugin",
    "VarData",
    "compile_client_storage",
    "format_event_handler",
    "generate_links_for_sitemap",
    "get_config",
    "has_connection_errors",
    "reflex_format",
    "static_dir",
    "to_snake_case",
    "zip_app",
]

# Reflex's own browser code (``utils/state.js`` and the rest), copied into ``.web``.
WEB_TEMPLATE_DIR: Path = Templates.Dirs.WEB_TEMPLATE


def static_dir() -> Path:
    """Where the production build of the frontend lives (``.web/build/client``)."""
    config = get_config()
    return (get_web_dir() / Dirs.STATIC / config.frontend_path.strip("/")).resolve()
