"""The load test's printed tables and its verdict lines."""

import json

from scripts.loadtest import saturation
from scripts.loadtest.cli import (
    MAX_BOOKING_P95_MS,
    MAX_MIB_PER_1000_READERS,
    MAX_PAGE_P95_MS,
    STACK_BOOKINGS,
    STACK_READERS,
    STACK_WINDOW_S,
)


def fmt_ms(value: float | None) -> str:
    """Milliseconds for the table."""
    return "-" if value is None else f"{value:.0f} ms" if value >= 10 else f"{value:.1f} ms"


def fmt_pct(p: dict) -> str:
    """p50/p95/p99/max for the table."""
    if not p["n"]:
        return "-"
    return " / ".join(fmt_ms(p[k]) for k in ("p50", "p95", "p99", "max")) + f"  (n={p['n']})"


def kib(value: float | None) -> str:
    """Bytes as KiB or MiB."""
    if value is None:
        return "not measured"
    return f"{value / 1048576:.1f} MiB" if value >= 1048576 else f"{value / 1024:.0f} KiB"


def cpu(seconds: float | None, wall: float) -> str:
    """CPU seconds and their share of one core."""
    if seconds is None:
        return "not measured"
    return f"{seconds:.1f} s in {wall:.1f} s ({100 * seconds / max(wall, 1e-9):.0f}% of a core)"


def targets_text() -> str:
    """The production topology's targets, printed before a run."""
    return (
        f"Targets (make stack): {STACK_READERS:,} readers + {STACK_BOOKINGS} bookings within "
        f"{STACK_WINDOW_S:.0f} s; 0 errors, 0 lost, 0 duplicated; booking p95 ≤ "
        f"{MAX_BOOKING_P95_MS:.0f} ms; reader page load (HTML + its files) p95 ≤ "
        f"{MAX_PAGE_P95_MS:.0f} ms; backend memory ≤ {MAX_MIB_PER_1000_READERS:.0f} MiB per "
        "1,000 readers (stepping, after the first round)"
    )


def _reader_rows(r: dict) -> list[tuple[str, str]]:
    rows = [
        ("Readers (driven by)", f"{r['readers']} ({r['readers_via']})"),
        ("Reader errors", f"{r['reader_errors']}"),
        ("Reader page load p50/p95/p99/max", fmt_pct(r["page_load_ms"])),
        ("Reader navigation fetch p50/p95/p99/max", fmt_pct(r["nav_fetch_ms"])),
    ]
    h2 = r.get("h2load")
    if h2:
        rows += [
            (
                "h2load readers: requests (ok / failed / not 2xx)",
                f"{h2['requests']} ({h2['succeeded']} / {h2['failed']} / {h2['not_2xx']}) for "
                f"{h2['readers']} readers; {r['probes']} more Python readers time the pages",
            ),
            ("h2load request p50/p95/p99/max", fmt_pct(h2["request_ms"])),
            ("h2load CPU", cpu(h2["cpu_s"], r["loadgen_wall_s"])),
        ]
    if r["readers_via"] == "socket":
        rows += [
            ("Hydrate, readers and bookers p50/p95/p99/max", fmt_pct(r["hydrate_ms"])),
            ("Socket readers: navigation p50/p95/p99/max", fmt_pct(r["navigate_ms"])),
        ]
    return rows


def _counts(counts: dict | None) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted((counts or {}).items())) or "-"


def _booker_rows(r: dict) -> list[tuple[str, str]]:
    ledger = r["ledger"]
    by_status = ", ".join(f"{k} {v}" for k, v in sorted(ledger["leads_by_status"].items()))
    return [
        ("Tabs with a websocket (peak) / connect failures",
         f"{r['peak_connected']} / {r['connect_failures']}"),
        ("Visitor errors", json.dumps(r["visitor_errors"]) if r["visitor_errors"] else "0"),
        ("Booker /schedule load p50/p95/p99/max", fmt_pct(r["booker_page_ms"])),
        ("Booking submit→outcome p50/p95/p99/max", fmt_pct(r["booking_ms"])),
        ("Outcomes", ", ".join(f"{k} {v}" for k, v in sorted(r["outcomes"].items())) or "-"),
        ("Booking paths (socket→http: the page's fallback)", _counts(r.get("paths"))),
        ("Why the socket fell back to HTTP", _counts(r.get("fallback_reasons"))),
        ("HTTP posts sent again after no answer (same key)", str(r.get("http_retries", 0))),
        ("Leads stored", f"{ledger['leads_stored']} ({by_status or '-'})"),
        ("E-mails received by the fake",
         f"{ledger['emails_received']} (of {ledger['send_attempts']} requests)"),
        ("Duplicates (leads / e-mails / e-mails not marked)",
         f"{ledger['duplicate_leads']} / {ledger['duplicate_emails']}"
         f" / {ledger['silent_duplicates']}"),
        ("Lost / told 'received' with no lead (lies)", f"{ledger['lost']} / {ledger['lies']}"),
        ("Stored with no e-mail / missing / unexpected",
         f"{ledger['undelivered']} / {ledger['missing_emails']} / {ledger['unexpected']}"),
    ]  # fmt: skip


def _machine_rows(r: dict) -> list[tuple[str, str]]:
    wall = r["loadgen_wall_s"]
    per_1000 = r["backend_mib_per_1000_readers_at_most"]
    rows = [
        ("Backend RSS baseline → peak",
         f"{kib(r['backend_rss_baseline'])} → {kib(r['backend_rss_peak'])}"),
        ("Backend RSS per connected tab", kib(r["backend_rss_per_tab"]))
        if r["readers_via"] == "socket" else
        ("Backend RSS growth per 1,000 readers (at most)",
         "not measured" if per_1000 is None else f"{per_1000:.2f} MiB (bookers' tabs included)"),
        ("Backend CPU (process tree)", cpu(r["backend_cpu_s"], wall)),
        (f"{server_name(r)} CPU / peak open files",
         f"{cpu(r['server_cpu_s'], wall)} / {r['server_fds_peak'] or '-'}{server_cost(r)}"),
        ("Load generator CPU (Python)", cpu(r["loadgen_cpu_s"], wall)),
        ("Machine load average (1 min) before → after",
         f"{r['load_average_1m'][0]:.1f} → {r['load_average_1m'][1]:.1f} on {r['cpus']} CPUs"),
    ]  # fmt: skip
    timeline = r.get("cpu_timeline")
    if timeline and timeline["seconds"]:
        rows.append(("What ran out (second by second)",
                     saturation.verdict(timeline["summary"], timeline["cpus"])))  # fmt: skip
    if r.get("redis_connections_peak") is not None:
        failed = r["connection_sampler_errors"]
        rows.append(
            (
                "Peak connections Redis / PostgreSQL",
                f"{r['redis_connections_peak']} / {r['postgres_connections_peak']}"
                + (f" ({failed} samples failed)" if failed else ""),
            )
        )
    if r.get("fault"):
        settled = "no" if r["settled_s"] is None else f"in {r['settled_s']:.0f} s"
        rows += [
            ("Fault", f"{r['fault']}: " + "; ".join(r["fault_log"])),
            ("All delivered after the round", settled),
        ]
    return rows


def print_round(r: dict, title: str) -> None:
    """The table of one round and its verdict."""
    rows = _reader_rows(r) + _booker_rows(r) + _machine_rows(r)
    width = max(len(k) for k, _ in rows)
    print(f"\n{title}\n" + "-" * (width + 40))
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    print("-" * (width + 40))
    for kind, examples in r.get("error_examples", {}).items():
        print(f"{kind}, e.g.: " + " | ".join(examples))
    if r.get("heap"):
        print_heap(r["heap"])
    if r.get("cpu_timeline"):
        print("\n".join(cpu_table(r["cpu_timeline"])))
    print(verdict(r))


def verdict(r: dict) -> str:
    """MISSED with the reasons, or what was met."""
    if r["misses"]:
        return "MISSED: " + "; ".join(r["misses"])
    if r.get("fault"):
        dup = r["ledger"]["duplicate_emails"]
        paths = _counts(r.get("paths"))
        return (
            f"Fault survived: 0 visitor errors, every booker told 'received' ({paths}), none "
            "told store_failed, 0 lost, no duplicated lead, every stored booking delivered"
            + (f" ({dup} duplicated e-mail(s), each marked as a resend)" if dup else " once")
        )
    return (
        f"Targets met: 0 errors, 0 lost, 0 duplicated, booking p95 ≤ {MAX_BOOKING_P95_MS:.0f} ms,"
        f" reader page load p95 ≤ {MAX_PAGE_P95_MS:.0f} ms"
    )


def print_heap(h: dict) -> None:
    """Where the worker's memory per connected tab went (tracemalloc)."""
    print(
        f"Worker memory per connected tab ({h['tabs']} tabs): RSS "
        f"{h.get('rss_kib_per_tab', 0):.0f} KiB, of it Python's traced heap "
        f"{h['traced_kib_per_tab']:.0f} KiB (RSS here includes tracemalloc's own records);"
        " by the package that allocated it:"
    )
    for name, kib_per_tab in h["by_owner_kib_per_tab"]:
        print(f"  {kib_per_tab:8.1f} KiB  {name}")
    print("  biggest single places:")
    for name, kib_per_tab in h["by_site_kib_per_tab"]:
        print(f"  {kib_per_tab:8.1f} KiB  {name}")


# NGINX's published web-server figure: requests per second one CPU serves for a 10 KB file
# over HTTP, with the client on another machine ("Testing the Performance of NGINX and NGINX
# Plus Web Servers", nginx.com blog): what the measured per-core cost is compared with.
NGINX_PUBLISHED_RPS_PER_CORE = 54_684


def server_name(r: dict) -> str:
    """The web server of a round as people write it (``-`` when the site served itself)."""
    return {"caddy": "Caddy", "nginx": "nginx"}.get(r.get("server") or "", "Web server")


def stepping_summary(rounds: list[dict]) -> tuple[dict[str, int], list[str]]:
    """The knee of each web server (its last step meeting the targets), what each step used,
    and the memory."""
    knees: dict[str, int] = {}
    lines: list[str] = []
    for server in dict.fromkeys(r.get("server") for r in rounds):
        steps = [r for r in rounds if r.get("server") == server]
        passing = [r["readers"] for r in steps if r["step_ok"]]
        knee = knees[server_name(steps[0])] = passing[-1] if passing else 0
        lines.append(
            f"{server_name(steps[0])}: last step meeting the targets: {knee} readers"
            + ("" if len(passing) < len(steps) else " (every step met them)")
        )
        lines += [f"  {step_line(r)}" for r in steps]
    lines.append(
        f"nginx's published figure: {NGINX_PUBLISHED_RPS_PER_CORE:,}/s per core (10 KB files, "
        "HTTP, the client on another machine; here the generator shares the 2 cores)"
    )
    per_1000 = memory_after_first(rounds)
    if per_1000 is not None:
        lines.append(
            f"Backend memory per 1,000 readers after the first round: ≤ {per_1000:.2f} MiB "
            f"(target ≤ {MAX_MIB_PER_1000_READERS:.0f}; the first round also allocates the "
            "bookers' tabs, which later rounds reuse)"
        )
    return knees, lines


def step_line(r: dict) -> str:
    """One step: the visitors' figures and what the web server and the generator spent."""
    wall = r["loadgen_wall_s"]
    h2 = r.get("h2load") or {}
    return (
        f"{r['readers']:>6} readers: page p95 {fmt_ms(r['page_load_ms']['p95'])}, "
        f"booking p95 {fmt_ms(r['booking_ms']['p95'])}, errors {r['reader_errors']}; "
        f"{server_name(r)} {cpu(r['server_cpu_s'], wall)}, {r['server_fds_peak']} fds"
        f"{server_cost(r)}; generator {cpu(r['loadgen_cpu_s'] + h2.get('cpu_s', 0.0), wall)}"
        f"; backend RSS +{kib(r['backend_rss_growth'])}"
    )


def server_cost(r: dict) -> str:
    """The web server's CPU per request it served, and the requests per second one core allows."""
    if not r.get("server_cpu_s") or not r.get("http_requests") or r["readers_via"] == "socket":
        return ""  # socket readers' frames go through it too: not a per-response cost
    ms = 1000 * r["server_cpu_s"] / r["http_requests"]
    return f" ({ms:.3f} ms per request: {1000 / ms:,.0f}/s per core)"


def memory_after_first(rounds: list[dict]) -> float | None:
    """The most backend RSS grew per 1,000 readers in any round after the first (MiB)."""
    figures = [
        max(r["backend_rss_growth"], 0) / 1048576 / r["readers"] * 1000
        for r in rounds[1:]
        if r.get("backend_rss_growth") is not None and r["readers"]
    ]
    return max(figures) if figures else None


def cpu_table(timeline: dict) -> list[str]:
    """Each second of the round: the machine's CPU, then each process group's CPU, its
    busiest thread's and its threads' wait for a CPU, in % of one core (``saturation.py``)."""
    seconds = timeline["seconds"]
    if not seconds:
        return []
    names = list(seconds[0]["groups"])
    head = f"{'s':>5} {'box':>5} {'sirq':>5}  " + "  ".join(f"{n[:9]:>17}" for n in names)
    lines = [
        "CPU per second, % of one core: the group's, (its busiest thread's) and w: its threads'"
        " time ready to run but waiting for a CPU; box and sirq (softirq): % of the machine's "
        f"{timeline['cpus']} CPUs",
        head,
    ]
    for s in seconds:
        cells = []
        for name in names:
            cell = f"{100 * s['groups'].get(name, 0.0):>5.0f}"
            if name in s["busiest"]:
                cell += f" ({100 * s['busiest'][name][1]:>3.0f})"
            if name in s.get("waiting", {}):
                cell += f" w{100 * s['waiting'][name]:>3.0f}"
            cells.append(cell.rjust(17))
        lines.append(
            f"{s['t']:>5.1f} {100 * s['box_busy']:>4.0f}% {100 * s['softirq']:>4.0f}%  "
            + "  ".join(cells)
        )
    return lines
