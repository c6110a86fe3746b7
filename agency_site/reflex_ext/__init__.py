"""Every use of Reflex's internals, in one package: a Reflex upgrade is checked here.

- ``internals.py``: the non-public Reflex names (``reflex_base``, ``reflex.utils``, ...).
- ``client_state.py``: ClientStateVar's slots in Reflex's ``refs``; Vars carrying React hooks.
- ``js.py`` and ``js/*.js``: the site's browser code, as real JavaScript files.
- ``hydration.py``: each prerendered page's React Router bootstrap deferred after first paint.
- ``build_plugin.py``: the Reflex build plugin (robots.txt, manifest, prerendered 404,
  deferred hydration, CSP hashes of the inline scripts).
- ``connection_overlay.py``: Reflex's connection overlay (an app wrap) removed.
- ``event_namespace.py``: a check in front of Reflex's websocket event handler.
"""
