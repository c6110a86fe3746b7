"""Load test of the site as browsers use it: readers over HTTP, bookers over the websocket or HTTP.

    make loadtest                                          # single process: 2,000 readers + 200 bookings
    make loadtest LOADTEST_ARGS="--readers 0 --bookings 1"  # one booking alone
    make loadtest LOADTEST_ARGS="--stack"                   # a running `make stack`: 10,000 + 400
    make loadtest LOADTEST_ARGS="--stack --step 10000,20000,40000"   # grow the readers
    make loadtest LOADTEST_ARGS="--stack --fault redis-restart"      # Redis restarted mid-round
    make loadtest LOADTEST_ARGS="--stack --fault postgres-stop-60"   # see topology.FAULTS
    make loadtest LOADTEST_ARGS="--stack --socket-readers --readers 2000"  # worst case
    .venv/bin/python -m scripts.loadtest --url http://127.0.0.1:8000 \\
        --db-url postgresql+psycopg://... --emailjs-port 8765 --backend-pid 1234

Visitors (docs/loadtest.md):
- readers (``readers.py``) load a page over HTTP — its HTML and every file it names —
  then make ``--navs`` client-side navigations, each fetching only the route modules
  not fetched yet; no websocket. With h2load installed (``nghttp2-client``) the bulk of
  them are h2load clients fed the same request lists (``static_load.py``) and a share of
  Python readers (``--probes``) times whole page loads;
- bookers load /schedule the same way, then connect the websocket as a visitor using
  the form does and submit a valid booking with their own e-mail
  (``loadtest+<run>-<n>@example.com``), waiting for the outcome the page would show
  (``protocol.py``: Reflex's websocket protocol, copied), falling back to the form's
  HTTP path as the page does when the socket fails; ``--http-share`` of them (half in
  a fault round) post the no-JavaScript form instead (``bookers.py``);
- ``--socket-readers``: the worst case, readers that open the websocket, hydrate,
  navigate over it and stay connected.

By default (``--start-single``) it builds and starts the production site like
``reflex run --env prod --single-port`` on a free port, with a temporary SQLite
database, the per-IP form limit raised (it must not be what is measured) and EmailJS
pointed at a fake on loopback (``fake_emailjs.py``), then stops both by pid. ``--url``
drives a site already running on loopback. ``--stack`` drives a running ``make stack``
(URL, database and the fake's port from ``.stack/``), sums RSS over every backend
worker, samples Caddy's CPU and open files and the Redis and PostgreSQL connections;
``--fault MODE`` adds one fault (``topology.py``; ``monitor.py`` for the monitor
polling through nginx while a lead is held) and checks delivery after.

It prints the targets, one table per round, writes ``bench-results/loadtest-*.json``
and exits 1 when a target is missed. A benchmark, not part of ``make test``.
"""
