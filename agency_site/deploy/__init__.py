"""The production topology as files: web-server configurations, systemd units, backups.

Everything here is generated from the site's settings (the ``agency_site/settings/`` package)
so that a deployer edits ``.env``, never a configuration by hand:

- ``topology.py``  what the configurations are made of (addresses, paths, headers, pages),
  and ``render``: a Jinja2 template of ``templates/`` filled in
- ``caddy.py``     the Caddyfile (static export, precompressed files, TLS by itself), whose
  text is ``templates/Caddyfile.tmpl``
- ``nginx.py``     the same as an nginx server block (``templates/nginx-site.conf.tmpl``)
- ``release.py``   a release: export, render, validate, switch, reload, migrate, restart,
  check, and back on failure; ``release_checks.py`` what it checks once live
- ``systemd.py``   the backend unit (migrate, then serve; restart on failure) and the backup timer
- ``backup.py``    a copy of the leads database (``pg_dump`` or SQLite's online backup)

``python -m agency_site.deploy render --out DIR`` writes them all; see docs/production.md and docs/deploy.md.
"""
