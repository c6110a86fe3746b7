"""Every use of Reflex's internals, in one package: a Reflex upgrade is checked here.

Outside this package the site uses Reflex's public ``rx.`` API only (``import reflex as
rx``, no ``__module__`` set: ``test_reflex_ext.py::…outside_the_fence…``); the rest is here:

- ``internals.py``: the non-public Reflex names (``reflex_base``, ``reflex.utils``, ...).
- ``client_state.py``: ClientStateVar's slots in Reflex's ``refs``; Vars carrying React hooks.
- ``js.py``: the browser code read from real JavaScript files, its placeholders filled in;
  ``js/*.js`` holds Reflex's code as the site patches it (the rest, the site's own
  features, is in ``components/js/``).
- ``hydration.py``: each prerendered page's React Router bootstrap deferred after first paint.
- ``anchored_edits.py``: exact-anchor edits and counted texts, for the two files patched
  from a pristine upstream copy (``lazy_socket.py``, ``entry_server.py``).
- ``entry_client.py``: React Router's client entry, hydrating one task after its modules are
  evaluated (a tap meanwhile is the browser's).
- ``entry_server.py``: React Router's server entry with every Suspense boundary of a page
  (``components/layout.py``'s parts) prerendered inline, from its installed default.
- ``build_plugin.py``: the Reflex build plugin (robots.txt, manifest, prerendered 404,
  deferred hydration, each page's CSP in its <meta>, the static-host files).
- ``lazy_socket.py`` and ``js/lazy_socket.js``: the websocket opens only when a form is used.
- ``connection_overlay.py``: Reflex's connection overlay (an app wrap) removed.
- ``event_namespace.py``: a check in front of Reflex's websocket event handler.
- ``backend_origin.py``: a one-origin build reaches its backend at the page's own origin
  (``getBackendURL`` patched through ``lazy_socket.py``); the socket's origin check.
- ``page_bundles.py``: which JavaScript module holds a page's memoized components (the
  page function's ``__module__``): one per bundle of pages (``routes.py``).
- ``page_language.py``: ``<html lang>`` and the not-found page's language from the path
  (React Router's ``useLocation`` in the document root).

Upgrade checklist: what to re-check after a Reflex (or React Router) upgrade, and the test
that guards it (``test_reflex_ext.py::…`` is ``tests/test_reflex_ext.py::test_…``; ``e2e/``
tests need ``make test-e2e``).

- Every name of ``internals.py`` imports: any unit test, first ``test_reflex_ext.py``.
- React Router's bootstrap lines (unknown ones fail the build): ``test_deferred_hydration.py``.
- Pages hydrate after the deferred boot: every ``e2e/`` test (``helpers.open_page`` waits).
- Reflex's ``app/entry.client.js`` template: its one ``hydrateRoot`` call and the anchor
  around it (a mismatch fails the build): ``test_entry_client.py::test_a_changed_template_…``,
  ``::test_the_installed_template_hydrates_in_a_later_task``; every page still hydrates:
  every ``e2e/`` test (``helpers.open_page`` waits for it).
- React Router's default server entry (``@react-router/dev``'s ``entry.server.node.jsx``):
  its one render call and the anchor of its options (a mismatch fails the build):
  ``test_hydration_boundaries.py::test_a_changed_default_fails_the_build_naming_what_changed``
  (on ``tests/data/``'s copy of the 8.4.0 default), the installed one:
  ``e2e/test_hydration_boundaries.py::test_the_installed_default_is_the_one_the_patch_…``;
  React still outlines a large boundary unless the chunk size is infinite:
  ``e2e/test_hydration_boundaries.py::test_react_outlines_a_large_boundary_…``; every page's
  parts inline in the served build: ``…::test_every_page_s_parts_are_inline_boundaries_…``.
- ``"prerender": true``, ``routes.json``, ``__spa-fallback.html``: ``test_build_plugin.py``.
- ``vite.config.js``'s one code-splitting group (env.json), replaced by ours (the icons'):
  ``test_build_plugin.py::test_the_icons_go_into_one_chunk_and_the_env_into_its_importer_s``
  (Reflex's own template, ``node --check``); the pages' scripts: ``e2e/test_reader_model.py``.
- The prerendered 404: ``e2e/test_seo.py::test_unknown_paths_answer_404_with_the_…``.
- Plugin context (``add_save_task``, ``static_dir``): ``e2e/test_seo.py::test_robots_txt_…``.
- CSP hashes match the served inline scripts: ``e2e/test_lead_safety.py::test_the_pages_…``.
- React hydrates a page whose ``<head>`` starts with the build's ``<meta>`` CSP (no
  hydration error in the console on any route): ``e2e/test_a11y.py::test_every_route_…``.
- ClientStateVar's ``refs`` keys: ``test_reflex_ext.py::…client_state_keys_are_where_…``.
- Hook text pasted as written: ``test_reflex_ext.py::…browser_code_is_valid_javascript_…``;
  every file of ``js/`` and ``components/js/`` as written: ``…every_js_file_is_valid_…``.
- Menus, scroll and date hooks at work: ``e2e/test_a11y.py``, ``e2e/test_ui_traffic.py``.
- The booking slot filter's free slots and clocks, and the layout's visit-source hook (a
  hidden field filled in the submit's capture phase): ``e2e/test_bookings.py``.
- ``state.js``'s anchors and its connect paths (``CONNECT_PATHS``; a mismatch fails the
  build): ``test_lazy_socket.py::…connect_path…``; readers open no socket, a form user one:
  ``e2e/test_lazy_socket.py``.
- The load test's copy of the websocket protocol (``scripts/loadtest/protocol.py``) and of
  React Router's manifest and bootstrap (``scripts/loadtest/readers.py``):
  ``test_loadtest_protocol.py``, ``test_loadtest_readers.py``, ``e2e/test_reader_model.py``.
- The ``(5, "Overlay")`` app wrap: ``test_reflex_ext.py::…connection_overlay…``.
- No overlay while the backend is away: ``e2e/test_split_origins.py``.
- ``getBackendURL``'s anchor (``backend_origin.py``): ``test_backend_origin.py::…anchor…``;
  ``app.sio.eio.cors_allowed_origins`` is what engineio checks the handshake against:
  ``test_backend_origin.py::…handshake…``; one server under each of its names:
  ``e2e/test_one_origin.py``.
- ``EventNamespace.on_event`` is socket.io's handler: ``test_reflex_ext.py::…socketio_routes…``.
- The form-entries key of ``state.js``: ``test_reflex_ext.py::…form_s_entries_travel…``.
- A page function's ``__module__`` names the module of its memoized components
  (``reflex_base/utils/memo_paths.py``), which its route imports: two service pages share
  one, other pages not: ``test_page_bundles.py`` (one Reflex compile, no npm; its compile
  leans on ``js_runtimes.install_frontend_packages`` and React Router's flat route files).
- The build's folder (``.web/build/client``): ``test_reflex_ext.py::…frontend_build_is_…``.
- ``<html lang>`` as an expression of ``html_custom_attrs`` in the document root (Reflex
  refuses hooks there; ``useLocation`` is a call, not a Reflex hook), the 404 probe of each
  language and ``ca/404.html``: ``e2e/test_languages.py::test_every_catalan_page_…`` and
  ``…unknown_catalan_paths…``; the title of the not-found route as a Var (``rx.cond``):
  the same tests.
"""
