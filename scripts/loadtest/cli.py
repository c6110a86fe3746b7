"""The load test's command line, its targets and its bounds."""

import argparse
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from scripts.loadtest.monitor import MONITOR_FAULT
from scripts.loadtest.topology import FAULTS
from scripts.loadtest.web_servers import SERVERS

ROOT = Path(__file__).resolve().parents[2]

# Targets (issue 18). One backend process, Python serving the pages (`make prod`):
SINGLE_READERS, SINGLE_BOOKINGS, SINGLE_WINDOW_S = 2000, 200, 10.0
# The production topology (`make stack`: Caddy, 2 backends x 2 workers):
STACK_READERS, STACK_BOOKINGS, STACK_WINDOW_S = 10000, 400, 20.0
MAX_BOOKING_P95_MS = 250.0  # a booking's submit → the outcome the page shows
MAX_PAGE_P95_MS = 300.0  # a reader's full page load: the HTML and the files it names
MAX_MIB_PER_1000_READERS = 1.0  # backend memory readers cost (stepping: after round 1)
MAX_RSS_PER_TAB_KIB = 150.0  # backend memory per socket tab (socket readers, single process)
RSS_CHECK_MIN_TABS = 100  # fewer tabs make the per-tab figure noise
# A fault round: bookings spread so some are in flight during the fault.
FAULT_BOOKINGS, FAULT_WINDOW_S = 200, 30.0
FAULT_READERS = {"redis-restart": STACK_READERS}  # readers never touch Redis: the full load
FAULT_READERS_DEFAULT = 100
FAULT_HTTP_SHARE = 0.5  # half the bookers post the no-JavaScript form, half use the socket
# Faults after which EmailJS may have an e-mail nobody heard about: a resend (marked as
# such) is the honest limit of at-least-once delivery without an idempotency key.
UNCONFIRMED_FAULTS = ("emailjs-drop", "kill-while-sending", "kill-backend")

# Bounds: the load stays finite whatever the arguments say.
MAX_READERS, MAX_SOCKET_READERS, MAX_BOOKINGS, MAX_SECONDS, MAX_STEPS = 40000, 5000, 2000, 120, 6
PROBE_SHARE, MIN_PROBES, MAX_PROBES = 0.02, 20, 200  # Python readers timing pages beside h2load


def _parser() -> argparse.ArgumentParser:
    from scripts.loadtest import __doc__ as doc

    parser = argparse.ArgumentParser(
        prog="python -m scripts.loadtest",
        description=doc.split("\n\n")[0],
        formatter_class=argparse.RawTextHelpFormatter,
    )
    add = parser.add_argument
    add("--url", help="a running site (loopback only); default: start one")
    add("--start-single", action="store_true", help="build and start `reflex run --env prod`")
    add("--stack", action="store_true", help="drive the running `make stack` (.stack/)")
    add("--server", choices=("caddy", "nginx", "both"),
        help="with --stack: the web server in front (default: the stack's own, nginx unless "
        "STACK_SERVER=caddy; the other is started beside it; both: Caddy's rounds, then "
        "nginx's)")  # fmt: skip
    add("--fault", choices=FAULTS, help="with --stack: one fault mid-round, then check delivery")
    add("--fault-at", type=float, default=5.0, help="the fault starts at (s)")
    add("--settle", type=float, default=240.0, help="with --fault: wait for delivery up to (s)")
    add("--readers", type=int, help=f"default {SINGLE_READERS}, --stack {STACK_READERS}")
    add("--bookings", type=int, help=f"default {SINGLE_BOOKINGS}, --stack {STACK_BOOKINGS}")
    add("--over", type=float, help="bookings spread over (s)")
    add("--ramp", type=float, help="readers arrive over (s)")
    add("--hold", type=float, default=5.0, help="tabs stay connected after (s)")
    add("--navs", type=int, default=3, help="client-side navigations per reader")
    add("--step", help="e.g. 10000,20000,40000: grow the readers until it breaks")
    add("--timeout", type=float, default=30.0, help="wait for an answer (s)")
    add("--http-share", type=float,
        help="share of the bookers posting the no-JavaScript form over HTTP (the others use "
        "the websocket with the page's HTTP fallback); default 0.5 with --fault, else 0")  # fmt: skip
    add("--socket-readers", action="store_true", help="worst case: readers open the websocket")
    add("--readers-via", choices=("auto", "python", "h2load"), default="auto",
        help="who drives the HTTP readers (auto: h2load when installed)")  # fmt: skip
    add("--probes", type=int, help="with h2load: Python readers timing page loads (default 2%%)")
    add("--utm", type=_utm,
        help="source/medium/campaign: the readers land with these utm_* parameters, as a "
        "campaign's visitors (the owner's report counts them; Python readers)")  # fmt: skip
    add("--db-url", help="the site's REFLEX_DB_URL (with --url)")
    add("--emailjs-port", type=int, help="port of the fake EmailJS")
    add("--backend-pid", type=int, help="backend process for RSS (with --url)")
    add("--web-dir", type=Path, default=ROOT / ".web", help="the site's build")
    add("--py-spy", type=Path, help="record the backend with py-spy to this file")
    add("--tracemalloc", action="store_true",
        help="(single process, socket readers) where each tab's memory goes (slow: not the targets)")  # fmt: skip
    return parser


def _utm(value: str) -> str:
    """``newsletter/email/nov`` as the query ``utm_source=newsletter&utm_medium=email&...``."""
    parts = value.split("/")
    if len(parts) != 3 or not all(part.strip() for part in parts):
        raise argparse.ArgumentTypeError(f"source/medium/campaign, not {value!r}")
    return urlencode(dict(zip(("utm_source", "utm_medium", "utm_campaign"), parts, strict=True)))


def _check_modes(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.fault and not args.stack:
        parser.error("--fault needs --stack")
    if args.server and not args.stack:
        parser.error("--server needs --stack")
    if args.server and args.fault:
        parser.error("--server and --fault exclude each other (a fault run has its own path)")
    if args.tracemalloc and (args.stack or args.url or not args.socket_readers):
        parser.error("--tracemalloc starts its own single-process site, with --socket-readers")
    if args.stack and (args.url or args.start_single):
        parser.error("--stack excludes --url and --start-single")
    if args.url and args.start_single:
        parser.error("--url and --start-single exclude each other")
    if args.url:
        host = urlsplit(args.url).hostname or ""
        if host not in ("localhost", "127.0.0.1", "::1") and not host.startswith("127."):
            parser.error("--url must be a loopback address")
        if not args.db_url:
            parser.error("--url needs --db-url (the site's REFLEX_DB_URL)")
        if not args.emailjs_port:
            parser.error("--url needs --emailjs-port (where the site sends its e-mails)")


def _fill_defaults(args: argparse.Namespace) -> None:
    if args.fault:
        readers = FAULT_READERS.get(args.fault, FAULT_READERS_DEFAULT)
        bookings, window = FAULT_BOOKINGS, FAULT_WINDOW_S
    elif args.stack:
        readers, bookings, window = STACK_READERS, STACK_BOOKINGS, STACK_WINDOW_S
    else:
        readers, bookings, window = SINGLE_READERS, SINGLE_BOOKINGS, SINGLE_WINDOW_S
    args.readers = readers if args.readers is None else args.readers
    args.bookings = bookings if args.bookings is None else args.bookings
    args.over = window if args.over is None else args.over
    args.ramp = min(window, 20.0 if args.fault else window) if args.ramp is None else args.ramp
    args.start_single = not (args.url or args.stack)
    args.steps = [int(s) for s in args.step.split(",")] if args.step else [args.readers]
    args.servers = list(SERVERS) if args.server == "both" else [args.server]
    # The monitor run goes through nginx, each visitor from its own address: Python readers.
    args.distinct_addresses = args.fault == MONITOR_FAULT
    # Who drives the HTTP readers follows from the options alone: "auto" means h2load
    # wherever HTTP readers can be h2load clients. Whether it is installed is checked where
    # the run starts (``check_machine``), so parsing answers the same on every machine.
    args.h2load = (
        args.readers_via != "python" and not args.socket_readers and not args.distinct_addresses
    )
    if args.http_share is None:
        args.http_share = FAULT_HTTP_SHARE if args.fault else 0.0


def _check_bounds(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    most = MAX_SOCKET_READERS if args.socket_readers else MAX_READERS
    if len(args.steps) > MAX_STEPS or any(not 0 <= s <= most for s in args.steps):
        parser.error(f"at most {MAX_STEPS} steps of 0..{most} readers")
    if not args.h2load and not args.socket_readers and max(args.steps) > MAX_SOCKET_READERS:
        parser.error(f"Python readers: at most {MAX_SOCKET_READERS} (h2load drives more)")
    if not 0 <= args.bookings <= MAX_BOOKINGS:
        parser.error(f"--bookings must be 0..{MAX_BOOKINGS}")
    for name in ("over", "ramp", "hold", "timeout", "fault_at"):
        if not 0 <= getattr(args, name) <= MAX_SECONDS:
            parser.error(f"--{name.replace('_', '-')} must be 0..{MAX_SECONDS} s")
    if not 0 <= args.http_share <= 1:
        parser.error("--http-share must be 0..1")
    if not 0 <= args.settle <= 600:
        parser.error("--settle must be 0..600 s")
    if args.probes is not None and not 0 <= args.probes <= MAX_SOCKET_READERS:
        parser.error(f"--probes must be 0..{MAX_SOCKET_READERS}")


def check_machine(args: argparse.Namespace, *, h2load_installed: bool) -> str | None:
    """What this machine lacks for the parsed run, or None: called where the run starts.

    A run whose readers are h2load clients needs h2load (``make loadtest`` installs
    Debian's nghttp2-client); "auto" falls back to Python readers when it is missing and
    the load is within what Python readers can drive.
    """
    if not args.h2load or h2load_installed:
        return None
    if args.readers_via == "h2load" or max(args.steps) > MAX_SOCKET_READERS:
        return (
            f"h2load is not installed and {max(args.steps)} readers need it (Python readers: "
            f"at most {MAX_SOCKET_READERS}): `make loadtest` installs it, or "
            "apt-get install nghttp2-client"
        )
    args.h2load = False
    return None


def probes_for(args: argparse.Namespace, readers: int) -> int:
    """How many of ``readers`` are Python readers timing page loads (all without h2load)."""
    if not args.h2load:
        return readers
    if args.probes is not None:
        return min(args.probes, readers)
    return min(readers, max(MIN_PROBES, min(MAX_PROBES, round(readers * PROBE_SHARE))))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options, checked, with the mode's defaults filled in."""
    parser = _parser()
    args = parser.parse_args(argv)
    _check_modes(parser, args)
    _fill_defaults(args)
    _check_bounds(parser, args)
    args.utm = args.utm or ""
    if args.utm and args.h2load:
        parser.error("--utm is for Python readers: add --readers-via python")
    return args
