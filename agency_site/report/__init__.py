"""The owner's funnel with no cookie and no script (issue 34): visits from the web
server's access log, leads and bookings from their tables, a monthly report in Spanish.

Only **daily counts** are stored (``tables.py``), never an address nor a user agent:

- ``log_lines.py``: one JSON line of the access log (agency_site/deploy/access_log.py) as a
  ``Hit``; ``log_cursor.py``: the log read incrementally (inode + offset, across a rotation).
- ``visitors.py``: what a hit is: a page view (route and language), a bot, a 404; the
  device class, the external referrer's domain, the ``utm_*`` of its URL.
- ``ingest.py``: new lines counted into the daily tables, with the cursor, in one transaction;
  ``retention.py``: what they keep (the top rows a day and "otros", 25 months).
- ``started.py``: the "form started" counter (a page's token request, ``/_site/forms/token``,
  once per address, form and day; counted in memory, flushed once a minute per worker).
- ``figures.py``: a month's figures (the daily tables, the leads and bookings tables);
  ``text.py`` prints them, ``page.py`` writes the phone-readable HTML page with the
  charts of ``charts.py`` (pygal, inline SVG).

``python -m agency_site.report`` (``__main__.py``): ingest, then the month's report.
"""
