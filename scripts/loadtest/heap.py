"""Where a connected tab's backend memory goes: two tracemalloc snapshots compared.

The backend's processes dump snapshots on request (``memprobe/sitecustomize.py``);
this asks for them and groups the growth between "before the visitors" and "all
connected" by the package responsible for it, per connected tab.
"""

import asyncio
import time
import tracemalloc
from collections import defaultdict
from pathlib import Path

# The first frame (from the most recent) inside one of these names the owner of an
# allocation; a frame in the standard library alone says less (json, asyncio...).
OWNERS = (
    "agency_site",
    "reflex",
    "reflex_base",
    "socketio",
    "engineio",
    "granian",
    "starlette",
    "redis",
    "sqlalchemy",
    "pydantic",
    "httpx",
    "limits",
)


async def snapshot(folder: Path, name: str, timeout_s: float = 120.0) -> list[Path]:
    """Ask every probed process for a snapshot ``name``; the files, once all are written."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.request").touch()
    deadline = time.monotonic() + timeout_s
    found: list[Path] = []
    while time.monotonic() < deadline:
        found = sorted(folder.glob(f"{name}-*.snapshot"))
        if found and not list(folder.glob(f"{name}-*.partial")):
            await asyncio.sleep(1.0)  # a slower process may still be starting its dump
            if not list(folder.glob(f"{name}-*.partial")):
                return sorted(folder.glob(f"{name}-*.snapshot"))
        await asyncio.sleep(0.5)
    return found


def _owner(traceback: tracemalloc.Traceback) -> str:
    """The package responsible for an allocation, by its most recent frame in OWNERS."""
    frames = list(traceback)
    for frame in reversed(frames):  # most recent first
        parts = Path(frame.filename).parts
        for part in reversed(parts):
            if part in OWNERS:
                return part
    innermost = frames[-1].filename if frames else "?"
    return "stdlib: " + Path(innermost).stem if "python3" in innermost else Path(innermost).name


def _site(traceback: tracemalloc.Traceback) -> str:
    """The most recent frame of the allocation's owner, as file:line."""
    for frame in reversed(list(traceback)):
        parts = Path(frame.filename).parts
        if any(part in OWNERS for part in parts):
            tail = "/".join(parts[-2:])
            return f"{tail}:{frame.lineno}"
    frame = list(traceback)[-1]
    return f"{Path(frame.filename).name}:{frame.lineno}"


def growth(before: Path, after: Path, tabs: int, top: int = 12) -> dict:
    """Heap growth from ``before`` to ``after`` (one process), per owner and site, per tab."""
    base = tracemalloc.Snapshot.load(str(before))
    peak = tracemalloc.Snapshot.load(str(after))
    by_owner: dict[str, int] = defaultdict(int)
    by_site: dict[str, int] = defaultdict(int)
    total = 0
    for stat in peak.compare_to(base, "traceback"):
        total += stat.size_diff
        by_owner[_owner(stat.traceback)] += stat.size_diff
        by_site[_site(stat.traceback)] += stat.size_diff
    per_tab = max(tabs, 1)

    def ranked(sizes: dict[str, int]) -> list[tuple[str, float]]:
        best = sorted(sizes.items(), key=lambda item: -item[1])[:top]
        return [(name, size / per_tab / 1024) for name, size in best]

    return {
        "tabs": tabs,
        "traced_growth_mib": total / 1048576,
        "traced_kib_per_tab": total / per_tab / 1024,
        "by_owner_kib_per_tab": ranked(by_owner),
        "by_site_kib_per_tab": ranked(by_site),
    }


def worker_growth(folder: Path, before: str, after: str, tabs: int) -> dict | None:
    """``growth`` of the probed process whose traced heap grew the most (granian's worker)."""
    results = []
    for last in folder.glob(f"{after}-*.snapshot"):
        first = folder / f"{before}-{last.stem.rsplit('-', 1)[1]}.snapshot"
        if first.exists():
            results.append(growth(first, last, tabs))
    return max(results, key=lambda r: r["traced_growth_mib"], default=None)
