"""Interaction to Next Paint of the lead forms on a mid-range phone: ``make bench-inp``.

    make bench-inp                                     # every form, 5 runs each
    make bench-inp BENCH_INP_ARGS="--forms hero --runs 3"
    python -m scripts.bench_inp --url http://localhost:3000   # a running site

For each form (the Home hero's e-mail capture, the /schedule booking, the /contact quote,
and the booking's Catalan twin) and each run, a fresh phone-sized browser context of
Debian's Chromium (Playwright), its CPU throttled 4x (``Emulation.setCPUThrottlingRate``, as
Lighthouse's timespan mode does), opens the page of the production build, waits until it
has hydrated and is quiet, then:

1. taps the form's first field: the first focus in a form fetches its token and opens the
   lazy websocket (``components/js/form_http_fallback.js``, ``reflex_ext/js/lazy_socket.js``);
2. fills the other fields (``fill``: no interaction) with a valid lead, waits until the token
   has come, and taps the submit button.

The page's ``PerformanceObserver({type: "event", durationThreshold: 16, buffered: true})``
gives each interaction's entries (``interactionId``, ``duration``, processing start and end);
an interaction's latency is the longest duration of its entries, split into input delay,
processing and presentation delay. An interaction whose every entry is under 16 ms is
reported as 16 ms (Chromium reports none under it). The ``long-animation-frame`` entries
name the script of the longest frame during an interaction (its attribution). After the
submit tap the script also times the painted feedback: from the tap to the frame after the
form first shows its "sending" state or its answer (a websocket round trip: no INP).

The budget: each interaction's median latency at most ``TARGET_MS``; the worst run is printed
beside it. Exits non-zero when a median misses it. Not part of ``make test``: a benchmark,
to be run on a quiet machine (``docs/benchmark.md``).
"""

import argparse
import datetime as dt
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from agency_site import locale, paths
from agency_site.forms.declarations import (
    BOOKING,
    FORM_TOKEN_FIELD,
    HERO,
    QUOTE,
    FormDeclaration,
)
from agency_site.forms.fields import Control
from agency_site.working_calendar import agency_now, default_calendar
from scripts.production_site import (
    CHROMIUM_ARGS,
    headless_shell_path,
    start_site,
    stop_site,
)

TARGET_MS = 200.0
CPU_SLOWDOWN = 4  # Lighthouse's mobile CPU throttling.
RUNS = 5
# Chromium reports no event entry under this duration (the observer's minimum).
MIN_REPORTED_MS = 16.0
# Lighthouse's mobile device (a Moto G Power): its screen, its pixel ratio.
PHONE = {
    "viewport": {"width": 412, "height": 823},
    "device_scale_factor": 1.75,
    "is_mobile": True,
    "has_touch": True,
}
# How long the page must be quiet (no long animation frame) before a tap.
QUIET_MS = 1000
# A person starts typing a moment after the tap, a key every ~150 ms: the first field's
# first characters are typed so (the token's answer and the socket's connect land among
# them), the rest filled in at once.
TYPING_AFTER_MS = 150
KEY_INTERVAL_MS = 150
TYPED_CHARS = 6
ANSWER_TIMEOUT_MS = 30_000

# Collected in the page from its first script on: every event entry of 16 ms or more and
# every long animation frame, with what ``Interaction`` and ``attribution`` read of them.
OBSERVER_JS = """
(() => {
  const log = (window.__benchInp = { events: [], frames: [] });
  const describe = (node) =>
    node && node.localName ? node.localName + (node.id ? "#" + node.id : "") : "";
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      log.events.push({
        name: e.name, interactionId: e.interactionId, startTime: e.startTime,
        duration: e.duration, processingStart: e.processingStart,
        processingEnd: e.processingEnd, target: describe(e.target),
      });
    }
  }).observe({ type: "event", durationThreshold: 16, buffered: true });
  try {
    new PerformanceObserver((list) => {
      for (const f of list.getEntries()) {
        log.frames.push({
          startTime: f.startTime, duration: f.duration, blockingDuration: f.blockingDuration,
          renderStart: f.renderStart,
          scripts: f.scripts.map((s) => ({
            startTime: s.startTime, duration: s.duration, invoker: s.invoker,
            invokerType: s.invokerType, sourceURL: s.sourceURL,
            sourceFunctionName: s.sourceFunctionName,
            forcedStyleAndLayoutDuration: s.forcedStyleAndLayoutDuration,
          })),
        });
      }
    }).observe({ type: "long-animation-frame", buffered: true });
  } catch {
    // No long-animation-frame entries in this browser: no attribution.
  }
})();
"""

# Times the submit's painted feedback: from the tap (its pointerdown's timestamp) to the
# frame after the form first shows its "sending" state or an answer (its status region
# filled, its button disabled, aria-busy).
FEEDBACK_JS = """
(formId) => {
  const form = document.getElementById(formId);
  const state = (window.__benchFeedback = { tap: null, shown: null });
  const status = form.querySelector('[role="status"]');
  const button = form.querySelector('button[type="submit"]');
  const shows = () =>
    form.getAttribute("aria-busy") === "true" || button.disabled ||
    (status && status.textContent.trim() !== "");
  form.addEventListener("pointerdown", (event) => { state.tap ??= event.timeStamp; }, true);
  new MutationObserver((_, observer) => {
    if (state.tap === null || !shows()) return;
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => { state.shown = performance.now(); }, 0));
  }).observe(form, { subtree: true, childList: true, characterData: true, attributes: true });
}
"""


@dataclass(frozen=True)
class Interaction:
    """One interaction of the page (a tap, a key press), from its Event Timing entries."""

    interaction_id: int
    start: float  # The input's time, on the page's clock (ms).
    duration: float  # Its latency: the longest entry's duration (to the next paint).
    input_delay: float  # Until the first handler started.
    processing: float  # From the first handler's start to the last one's end.
    presentation: float  # From there to the paint.
    events: tuple[str, ...]

    @property
    def end(self) -> float:
        return self.start + self.duration


def interactions(entries: list[dict[str, Any]], since: float = 0.0) -> list[Interaction]:
    """The interactions of ``entries`` (Event Timing entries as the page logged them) that
    started at or after ``since``, in order. Entries without an ``interactionId`` (a hover, an
    ``input`` event) belong to none. An interaction's latency is its longest entry's duration
    (as INP counts it), split as web-vitals does: input delay to the first handler, processing
    to the last handler's end, presentation delay to the paint."""
    grouped: dict[int, list[dict[str, Any]]] = {}
    for entry in entries:
        if entry.get("interactionId") and entry["startTime"] >= since:
            grouped.setdefault(int(entry["interactionId"]), []).append(entry)
    found = []
    for interaction_id, group in grouped.items():
        start = min(e["startTime"] for e in group)
        duration = float(max(e["duration"] for e in group))
        first_handler = min(e["processingStart"] for e in group)
        last_handler = max(e["processingEnd"] for e in group)
        found.append(
            Interaction(
                interaction_id=interaction_id,
                start=start,
                duration=duration,
                input_delay=first_handler - start,
                processing=last_handler - first_handler,
                # Durations are rounded to 8 ms: never below zero.
                presentation=max(0.0, start + duration - last_handler),
                events=tuple(sorted({e["name"] for e in group})),
            )
        )
    return sorted(found, key=lambda i: i.start)


def slowest(found: list[Interaction]) -> Interaction | None:
    """The slowest of ``found`` (a tap may come as two interactions: its pointer events and
    the click of the gesture), None when none had an entry of 16 ms or more."""
    return max(found, key=lambda i: i.duration) if found else None


def attribution(frames: list[dict[str, Any]], start: float, end: float) -> str:
    """What made the page slow between ``start`` and ``end`` (ms of the page's clock): the
    longest script of the long animation frames overlapping it (its file:function or
    invoker, and duration), else the longest such frame's rendering; "" if none."""
    overlapping = [
        frame
        for frame in frames
        if frame["startTime"] < end and frame["startTime"] + frame["duration"] > start
    ]
    scripts = [script for frame in overlapping for script in frame.get("scripts", ())]
    if scripts:
        script = max(scripts, key=lambda s: s["duration"])
        source = (script.get("sourceURL") or "").rsplit("/", 1)[-1].split("?")[0]
        function = script.get("sourceFunctionName") or ""
        invoker = script.get("invoker") or script.get("invokerType") or "script"
        where = f"{source}:{function}" if source and function else source or invoker
        return f"{where} ({invoker}) {script['duration']:.0f} ms"
    if overlapping:
        frame = max(overlapping, key=lambda f: f["duration"])
        return f"a {frame['duration']:.0f} ms frame of style, layout and paint, no script"
    return ""


@dataclass(frozen=True)
class Scenario:
    """A form on one page, measured as a visitor uses it."""

    name: str
    form: FormDeclaration
    language: str

    @property
    def path(self) -> str:
        return locale.localized_path(self.form.page, self.language)


SCENARIOS = (
    Scenario("hero", HERO, locale.DEFAULT_LOCALE),
    Scenario("booking", BOOKING, locale.DEFAULT_LOCALE),
    Scenario("quote", QUOTE, locale.DEFAULT_LOCALE),
    Scenario("booking-ca", BOOKING, "ca"),
)


# The interactions measured in each run, in the order they happen.
# "tap on load": a visit of its own, the first field tapped as soon as it shows, while the
# page's JavaScript loads and hydrates (deferred after the first paint: reflex_ext/hydration.py).
EARLY_TAP, FIRST_TAP, TYPING, SUBMIT = "tap on load", "first tap", "typing", "submit"
STEPS = (EARLY_TAP, FIRST_TAP, TYPING, SUBMIT)


@dataclass
class Run:
    """One visit's interactions (None: every entry under 16 ms) with what made each slow
    (when over the target), and the submit's painted feedback (ms)."""

    interactions: dict[str, Interaction | None]
    why: dict[str, str]
    feedback_ms: float | None


@dataclass
class Measured:
    """Every run of one scenario."""

    scenario: Scenario
    runs: list[Run] = field(default_factory=list)

    def latencies(self, step: str) -> list[float]:
        """The step's latency in each run (16 ms when Chromium reported no entry)."""
        return [latency_ms(run.interactions[step]) for run in self.runs]


def latency_ms(interaction: Interaction | None) -> float:
    """An interaction's latency; one with no entry took less than ``MIN_REPORTED_MS``."""
    return interaction.duration if interaction else MIN_REPORTED_MS


class _EmailJS(BaseHTTPRequestHandler):
    """A fake EmailJS: every send accepted, as the real one answers ("OK")."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(b"OK")

    def log_message(self, *args: object) -> None:
        pass


def fake_emailjs() -> ThreadingHTTPServer:
    """A local fake EmailJS on a free port, serving in a thread."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EmailJS)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def site_env(emailjs_url: str, folder: Path) -> dict[str, str]:
    """The benchmark site's settings: its leads delivered to the fake EmailJS, no time trap
    (the script fills a form within seconds) and no caps for one address booking often."""
    return {
        "DEPLOY_DATA_DIR": str(folder),
        "EMAILJS_API_BASE": emailjs_url,
        "EMAILJS_SERVICE_ID": "service_bench",
        "EMAILJS_PUBLIC_KEY": "public_bench",
        "EMAILJS_PRIVATE_KEY": "private_bench",
        "EMAILJS_CONTACT_TEMPLATE_ID": "template_bench",
        "LEADS_SPAM_MIN_SECONDS": "0",
        "LEADS_RATE_LIMIT_PER_IP": "100000",
        "BOOKING_MAX_PENDING_PER_NETWORK": "0",
        "BOOKING_MAX_PENDING_PER_EMAIL": "0",
    }


class Booker:
    """A new working day for each booking of the run: a slot is requested once."""

    def __init__(self) -> None:
        self.calendar = default_calendar()
        self.day = self.calendar.next_working_day(agency_now().date() + dt.timedelta(days=3))

    def next_day(self) -> dt.date:
        day = self.day
        self.day = self.calendar.next_working_day(day + dt.timedelta(days=1))
        return day


def _value(control: Control, run: int, booker: Booker) -> str:
    """A valid value of a typed or date field."""
    match control:
        case Control.EMAIL:
            return f"bench.{run}.{time.time_ns()}@example.com"
        case Control.PHONE:
            return "+34 600 12 34 56"
        case Control.DATE:
            return booker.next_day().isoformat()
        case Control.TEXTAREA:
            return "Queremos una tienda online para la primavera."
        case _:
            return "Ana García"


_OPEN_SLOT = "id => [...document.getElementById(id).options].some((o) => o.value && !o.disabled)"


def _fill_day(page, form: FormDeclaration, name: str, booker: Booker) -> None:
    """A day with a slot still open (the page asks which are taken; a site measured before
    may have filled some days)."""
    slot = next(f for f in form.fields if f.day_field == name)
    for _ in range(60):
        # The day's taken slots are asked for at once: looked at after the answer.
        with page.expect_response(lambda response: paths.FREE_SLOTS in response.url):
            page.locator(f"#{form.field_id(name)}").fill(booker.next_day().isoformat())
        page.wait_for_timeout(100)
        if page.evaluate(_OPEN_SLOT, form.field_id(slot.name)):
            return
    raise RuntimeError("No open slot in the next 60 working days")


def _fill_rest(page, form: FormDeclaration, run: int, booker: Booker) -> None:
    """Every field but the first (typed already) with a valid lead, without interactions
    (``fill``, ``select_option``: no key or pointer event)."""
    for form_field in form.fields[1:]:
        field_id = form.field_id(form_field.name)
        locator = page.locator(f"#{field_id}")
        if form_field.control in (Control.SLOT, Control.CHOICE):
            if not form_field.required:
                continue
            # The first option the page offers (the slot filter hides the closed ones).
            page.wait_for_function(_OPEN_SLOT, arg=field_id)
            locator.select_option(
                locator.evaluate("s => [...s.options].find((o) => o.value && !o.disabled).value")
            )
        elif form_field.control is Control.DATE:
            _fill_day(page, form, form_field.name, booker)
        else:
            locator.fill(_value(form_field.control, run, booker))


def _wait_quiet(page) -> None:
    """Wait until the page has hydrated, its network is idle and no long animation frame
    came for QUIET_MS."""
    page.wait_for_selector("html[data-hydrated='true']", state="attached", timeout=60_000)
    page.wait_for_load_state("networkidle")
    page.wait_for_function(
        """quiet => {
          const frames = window.__benchInp.frames;
          const last = frames.length ? frames[frames.length - 1] : null;
          const end = last ? last.startTime + last.duration : 0;
          return performance.now() - end > quiet;
        }""",
        arg=QUIET_MS,
        polling=100,
        timeout=60_000,
    )


def _now(page) -> float:
    return page.evaluate("performance.now()")


def _phone_page(browser, base_url: str, scenario: Scenario):
    """A fresh context (empty cache, like a first visit) and its page, observed, its CPU
    throttled."""
    context = browser.new_context(**PHONE, locale=scenario.language, base_url=base_url)
    page = context.new_page()
    page.add_init_script(OBSERVER_JS)
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    return context, page


def measure_run(browser, base_url: str, scenario: Scenario, run: int, booker: Booker) -> Run:
    """Two visits: a tap as soon as the first field shows (``EARLY_TAP``), then the visit
    ``measure_visit`` makes; their figures."""
    context, page = _phone_page(browser, base_url, scenario)
    try:
        page.goto(scenario.path, wait_until="commit")
        first = page.locator(f"#{scenario.form.field_id(scenario.form.fields[0].name)}")
        first.wait_for(state="visible", timeout=60_000)
        mark = _now(page)
        first.tap()
        _wait_quiet(page)
        log = page.evaluate("window.__benchInp")
    finally:
        context.close()
    early = run_figures(log, {EARLY_TAP: mark}, {})
    visit = measure_visit(browser, base_url, scenario, run, booker)
    return Run(early.interactions | visit.interactions, early.why | visit.why, visit.feedback_ms)


def measure_visit(browser, base_url: str, scenario: Scenario, run: int, booker: Booker) -> Run:
    """One visit: open the page and wait until it is quiet, tap the first field, type its
    first characters as a person does (the token and the socket arrive meanwhile), fill the
    rest, tap submit, wait for the answer; the figures."""
    form = scenario.form
    context, page = _phone_page(browser, base_url, scenario)
    try:
        page.goto(scenario.path)
        first = page.locator(f"#{form.field_id(form.fields[0].name)}")
        first.scroll_into_view_if_needed()
        _wait_quiet(page)
        marks = {FIRST_TAP: _now(page)}
        first.tap()
        page.wait_for_timeout(TYPING_AFTER_MS)
        marks[TYPING] = _now(page)
        page.keyboard.type(_value(form.fields[0].control, run, booker)[:TYPED_CHARS],
                           delay=KEY_INTERVAL_MS)  # fmt: skip
        token = f"#{form.field_id(FORM_TOKEN_FIELD)}"
        page.wait_for_function("sel => document.querySelector(sel).value !== ''", arg=token,
                               timeout=ANSWER_TIMEOUT_MS)  # fmt: skip
        first.fill(_value(form.fields[0].control, run, booker))
        _fill_rest(page, form, run, booker)
        submit = page.locator(f"#{form.form_id} button[type=submit]")
        submit.scroll_into_view_if_needed()
        _wait_quiet(page)
        page.evaluate(FEEDBACK_JS, form.form_id)
        marks[SUBMIT] = _now(page)
        submit.tap()
        page.wait_for_function("() => window.__benchFeedback.shown !== null",
                               timeout=ANSWER_TIMEOUT_MS)  # fmt: skip
        page.wait_for_function(
            "id => document.querySelector(`#${id} [role=status]`).textContent.trim() !== ''",
            arg=form.form_id,
            timeout=ANSWER_TIMEOUT_MS,
        )
        page.wait_for_timeout(500)  # The last entries are reported after their paint.
        log = page.evaluate("window.__benchInp")
        feedback = page.evaluate("window.__benchFeedback")
    finally:
        context.close()
    return run_figures(log, marks, feedback)


def run_figures(log: dict[str, list], marks: dict[str, float], feedback: dict) -> Run:
    """A run's figures from the page's log: each step's slowest interaction between its mark
    and the next one's, what made it slow if it missed the target, the painted feedback."""
    found: dict[str, Interaction | None] = {}
    why: dict[str, str] = {}
    ends = [*list(marks.values())[1:], float("inf")]
    for (step, since), until in zip(marks.items(), ends, strict=True):
        interaction = slowest([i for i in interactions(log["events"], since) if i.start < until])
        found[step] = interaction
        if interaction and interaction.duration > TARGET_MS:
            why[step] = attribution(log["frames"], interaction.start, interaction.end)
    shown, tapped = feedback.get("shown"), feedback.get("tap")
    return Run(found, why, shown - tapped if shown is not None and tapped is not None else None)


def _shown(ms: float) -> str:
    return f"{ms:.0f} ms" if ms > MIN_REPORTED_MS else f"<{MIN_REPORTED_MS:.0f} ms"


def table(results: list[Measured]) -> str:
    """The results as one aligned text table: per form and step, the median and worst
    latency, the worst run's split, the submit's feedback, what made a slow one slow."""
    header = ("form", "page", "interaction", "INP median", "worst",
              "worst: delay/processing/paint", "feedback median/worst", "over target: why")  # fmt: skip
    rows = []
    for measured in results:
        for step in STEPS:
            values = measured.latencies(step)
            worst_run = max(measured.runs, key=lambda r: latency_ms(r.interactions[step]))
            worst = worst_run.interactions[step]
            split = (
                f"{worst.input_delay:.0f}/{worst.processing:.0f}/{worst.presentation:.0f} ms"
                if worst
                else "-"
            )
            feedbacks = [r.feedback_ms for r in measured.runs if r.feedback_ms is not None]
            feedback = (
                f"{statistics.median(feedbacks):.0f}/{max(feedbacks):.0f} ms"
                if step == SUBMIT and feedbacks
                else ""
            )
            reasons = sorted({r.why[step] for r in measured.runs if r.why.get(step)})
            rows.append((measured.scenario.name, measured.scenario.path, step,
                         _shown(statistics.median(values)), _shown(max(values)), split, feedback,
                         "; ".join(reasons)))  # fmt: skip
    widths = [max(len(str(row[i])) for row in (header, *rows)) for i in range(len(header))]
    lines = [
        "  ".join(str(v).ljust(w) for v, w in zip(row, widths, strict=True)).rstrip()
        for row in (header, *rows)
    ]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def misses(results: list[Measured]) -> list[str]:
    """The steps whose median latency is over TARGET_MS."""
    return [
        f"{measured.scenario.name} {step}: INP {statistics.median(values):.0f} ms > "
        f"{TARGET_MS:.0f} ms"
        for measured in results
        for step in STEPS
        if (values := measured.latencies(step)) and statistics.median(values) > TARGET_MS
    ]


def measure_all(base_url: str, scenarios: list[Scenario], runs: int) -> list[Measured]:
    """Every run of every scenario, in one Chromium, each run in a fresh context."""
    from playwright.sync_api import sync_playwright

    booker = Booker()
    results = [Measured(s) for s in scenarios]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=headless_shell_path(), args=CHROMIUM_ARGS, headless=True
        )
        try:
            for run in range(runs):  # Interleaved: a slow minute hits every form alike.
                for measured in results:
                    measured.runs.append(
                        measure_run(browser, base_url, measured.scenario, run, booker)
                    )
                print(f"  run {run + 1}/{runs} done", flush=True)
        finally:
            browser.close()
    return results


def main() -> int:
    """Serve (or use a running site), measure, print, check."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    names = [s.name for s in SCENARIOS]
    parser.add_argument("--forms", nargs="+", choices=names, default=names, metavar="FORM",
                        help=f"only these ({', '.join(names)})")  # fmt: skip
    parser.add_argument("--runs", type=int, default=RUNS, help="runs per form (median, worst)")
    parser.add_argument("--url", help="measure this running site instead of starting one "
                        "(its time trap must be off: LEADS_SPAM_MIN_SECONDS=0)")  # fmt: skip
    args = parser.parse_args()
    scenarios = [s for s in SCENARIOS if s.name in args.forms]
    started = time.monotonic()
    if args.url:
        results = measure_all(args.url.rstrip("/"), scenarios, args.runs)
    else:
        emailjs = fake_emailjs()
        folder = Path(tempfile.mkdtemp(prefix="bench-inp-"))
        emailjs_url = f"http://127.0.0.1:{emailjs.server_address[1]}"
        site = start_site(site_env(emailjs_url, folder), folder)
        print(f"Production site up at {site.url} after {time.monotonic() - started:.0f}s")
        try:
            results = measure_all(site.url, scenarios, args.runs)
        finally:
            stop_site(site)
            emailjs.shutdown()
    print()
    print(table(results))
    print(
        f"\n{len(scenarios)} forms x {args.runs} runs in {time.monotonic() - started:.0f}s; "
        f"CPU throttled {CPU_SLOWDOWN}x, {PHONE['viewport']['width']}x"
        f"{PHONE['viewport']['height']} phone. INP: latency of the interaction "
        "(input delay/processing/presentation delay of its longest entry, ms); feedback: tap "
        "to the frame after the form shows it is sending or its answer."
    )
    missed = misses(results)
    for miss in missed:
        print("TARGET MISSED:", miss)
    if not missed:
        print(f"Every form's interactions within {TARGET_MS:.0f} ms (medians).")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
