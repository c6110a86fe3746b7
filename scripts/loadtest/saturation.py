"""Which process runs out first: every second of a round, the CPU of each process of the
stack, of the load generator and of the whole machine, with each one's busiest thread.

An average over a round hides its burst, and a single-threaded process (an nginx worker, a
backend worker's Python thread, an h2load process, the generator's event loop) is out of
CPU at 100 % of one core whatever the machine has left: so each second the busiest thread
of each process is kept too. ``CpuTimeline`` samples with psutil (``/proc/<pid>/stat``,
``/proc/<pid>/task/*/stat``, ``/proc/stat``); ``summary`` names what was saturated. A busy
machine shows in every process too, as time its threads were ready to run and waited for a
CPU (``/proc/<pid>/task/<tid>/schedstat``, the kernel's run-queue delay).
"""

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psutil

SATURATED = 0.9  # a thread at 90 % of a core, or the machine at 90 % of its CPUs
BOX_FIELDS = ("user", "nice", "system", "irq", "softirq", "steal")
GENERATOR = "generator"
OTHER = "other"  # what no group accounts for


def _thread_times(proc: psutil.Process, skip: int | None) -> dict[int, float]:
    """CPU seconds of each of ``proc``'s threads (user + system), ``skip`` left out."""
    return {t.id: t.user_time + t.system_time for t in proc.threads() if t.id != skip}


def run_delay(pid: int, tid: int) -> float:
    """Seconds thread ``tid`` of ``pid`` has spent ready to run, waiting for a CPU (0 when
    the kernel does not say: no schedstats)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        return int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[1]) / 1e9
    return 0.0


@dataclass
class Sample:
    """The counters at one instant: the machine's CPU times, and per group the CPU seconds
    of each thread, keyed by (pid, tid)."""

    at: float
    box: dict[str, float]
    threads: dict[str, dict[tuple[int, int], float]]
    names: dict[int, str]
    waits: dict[str, dict[tuple[int, int], float]] = field(default_factory=dict)


@dataclass
class Second:
    """One interval between samples: shares of one core (1.0 = a whole core)."""

    at: float
    box_busy: float  # share of all the machine's CPUs
    softirq: float  # of all the machine's CPUs
    groups: dict[str, float]  # each group's CPU, and ``OTHER``
    busiest: dict[str, tuple[str, float]]  # each group's busiest thread: "name pid/tid", share
    waiting: dict[str, float] = field(default_factory=dict)  # its threads' wait for a CPU


@dataclass
class CpuTimeline:
    """Samples every ``every_s`` the processes of named groups (each group's pids now, their
    descendants included; the generator is this process, without the sampler's own thread)
    and the h2load processes this process started."""

    groups: dict[str, Callable[[], list[int]]]
    every_s: float = 1.0
    seconds: list[Second] = field(default_factory=list)
    cpus: int = field(default_factory=lambda: psutil.cpu_count() or 1)

    def _processes(self, name: str) -> list[psutil.Process]:
        if name == GENERATOR:
            return [psutil.Process(os.getpid())]
        if name == "h2load":
            me = psutil.Process(os.getpid())
            return [p for p in me.children() if p.name() == "h2load"]
        procs = []
        for pid in self.groups[name]():
            with contextlib.suppress(psutil.Error):
                root = psutil.Process(pid)
                procs += [root, *root.children(recursive=True)]
        return procs

    def sample(self, skip_tid: int | None = None) -> Sample:
        """The counters now."""
        threads: dict[str, dict[tuple[int, int], float]] = {}
        names: dict[int, str] = {}
        for name in [*self.groups, "h2load", GENERATOR]:
            threads[name] = {}
            for proc in self._processes(name):
                with contextlib.suppress(psutil.Error):
                    times = _thread_times(proc, skip_tid if name == GENERATOR else None)
                    threads[name].update({(proc.pid, tid): s for tid, s in times.items()})
                    names[proc.pid] = proc.name()
        box = psutil.cpu_times()._asdict()
        waits = {name: {key: run_delay(*key) for key in keys} for name, keys in threads.items()}
        return Sample(time.monotonic(), box, threads, names, waits)

    def add(self, before: Sample, after: Sample, start: float) -> None:
        """The interval between two samples as a ``Second``."""
        wall = max(after.at - before.at, 1e-6)
        total = sum(after.box.values()) - sum(before.box.values())
        busy = sum(after.box[k] - before.box[k] for k in BOX_FIELDS if k in after.box)
        soft = after.box.get("softirq", 0.0) - before.box.get("softirq", 0.0)
        groups, busiest = {}, {}
        for name, now in after.threads.items():
            then = before.threads.get(name, {})
            # A thread born in the interval counts from zero; one gone is left out.
            deltas = {key: s - then.get(key, 0.0) for key, s in now.items()}
            groups[name] = sum(deltas.values()) / wall
            if deltas:
                (pid, tid), spent = max(deltas.items(), key=lambda kv: kv[1])
                busiest[name] = (f"{after.names.get(pid, '?')} {pid}/{tid}", spent / wall)
        waiting = {
            name: sum(w - before.waits.get(name, {}).get(key, 0.0) for key, w in now.items()) / wall
            for name, now in after.waits.items()
        }
        total = max(total, 1e-6)
        # The rest of the machine's busy time: other processes, the kernel's own threads.
        groups[OTHER] = max(busy / total * self.cpus - sum(groups.values()), 0.0)
        second = Second(after.at - start, busy / total, soft / total, groups, busiest, waiting)
        self.seconds.append(second)

    def _loop(self, stop: threading.Event) -> None:
        tid = threading.get_native_id()
        start = time.monotonic()
        previous = self.sample(tid)
        while not stop.wait(self.every_s):
            current = self.sample(tid)
            self.add(previous, current, start)
            previous = current

    async def run(self, stop: asyncio.Event) -> None:
        """Sample in a thread of its own until ``stop`` is set."""
        done = threading.Event()
        worker = asyncio.create_task(asyncio.to_thread(self._loop, done))
        await stop.wait()
        done.set()
        await worker

    def as_dict(self) -> dict:
        """JSON-ready: the seconds, and the summary."""
        return {
            "cpus": self.cpus,
            "seconds": [_second_dict(s) for s in self.seconds],
            "summary": summary(self.seconds),
        }


def _second_dict(s: Second) -> dict:
    return {
        "t": round(s.at, 1),
        "box_busy": round(s.box_busy, 3),
        "softirq": round(s.softirq, 3),
        "groups": {k: round(v, 3) for k, v in s.groups.items()},
        "busiest": {k: [n, round(v, 3)] for k, (n, v) in s.busiest.items()},
        "waiting": {k: round(v, 3) for k, v in s.waiting.items()},
    }


def summary(seconds: list[Second], threshold: float = SATURATED) -> dict:
    """Over the seconds of a round: how many had the machine at ``threshold`` of its CPUs,
    and for each group the seconds its busiest thread was at ``threshold`` of a core, its
    peak and its mean CPU (shares of a core)."""
    groups = sorted({name for s in seconds for name in s.groups})
    out: dict = {
        "seconds": len(seconds),
        "box_saturated_s": sum(s.box_busy >= threshold for s in seconds),
        "box_busy_peak": max((s.box_busy for s in seconds), default=0.0),
        "groups": {},
    }
    for name in groups:
        cpu = [s.groups.get(name, 0.0) for s in seconds]
        top = [s.busiest[name][1] for s in seconds if name in s.busiest]
        out["groups"][name] = {
            "mean": sum(cpu) / max(len(cpu), 1),
            "peak": max(cpu, default=0.0),
            "thread_peak": max(top, default=0.0),
            "thread_saturated_s": sum(v >= threshold for v in top),
            "waiting_mean": sum(s.waiting.get(name, 0.0) for s in seconds) / max(len(seconds), 1),
        }
    return out


def verdict(summary_: dict, cpus: int) -> str:
    """What ran out, in one line: the threads at a whole core, and the machine."""
    parts = [
        f"{name}'s busiest thread ≥ {SATURATED:.0%} of a core for {g['thread_saturated_s']} s"
        for name, g in summary_["groups"].items()
        if g["thread_saturated_s"]
    ]
    box = summary_["box_saturated_s"]
    parts.append(
        f"the machine ≥ {SATURATED:.0%} of its {cpus} CPUs for {box} of {summary_['seconds']} s"
    )
    return "; ".join(parts)
