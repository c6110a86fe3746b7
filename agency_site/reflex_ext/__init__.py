"""Every use of Reflex's internals, in one package: a Reflex upgrade is checked here.

- ``internals.py``: the non-public Reflex names (``reflex_base``, ``reflex.utils``, ...).
- ``client_state.py``: ClientStateVar's slots in Reflex's ``refs``; Vars carrying React hooks.
- ``js.py`` and ``js/*.js``: the site's browser code, as real JavaScript files.
- ``app_wraps.py``: Reflex's connection overlay removed.
- ``event_namespace.py``: a check in front of Reflex's websocket event handler.
"""
