"""Top frames of a py-spy ``--format raw`` recording (collapsed stacks), e.g. of ``--py-spy``.

    .venv/bin/python scripts/loadtest/profile.py bench-results/backend.txt [--top 25]
    .venv/bin/python scripts/loadtest/profile.py FILE --under on_event   # only stacks through it

Prints the frames where the samples were taken (self) and the frames most
samples passed through (inclusive), with their share of the samples kept.
Idle samples (the event loop waiting in ``select``/``epoll``) are dropped.
"""

import argparse
import re
from collections import Counter
from pathlib import Path

# Leaves of a waiting thread: the event loop in select, a pool thread on its queue,
# or a thread with no Python frame at all (only the "process ..." entries).
IDLE = re.compile(
    r"\b(select|poll|epoll_wait|_run_once \(asyncio|wait \(threading)"
    r"|^_worker \(concurrent/futures/thread\.py|^process \d+:"
)
# Where a piece of work starts: a callback of the event loop or a pool thread's item.
TASK_ROOTS = ("Handle._run ", "_WorkItem.run ")
# "name (file:line)" -> "name (short/file:line)"
SITE_PACKAGES = re.compile(r"\(.*?site-packages/")


def parse(path: Path) -> list[tuple[list[str], int]]:
    """(frames from the root, samples) of every collapsed stack."""
    stacks = []
    for line in path.read_text(errors="replace").splitlines():
        head, _, count = line.rpartition(" ")
        if not head or not count.isdigit():
            continue
        frames = [SITE_PACKAGES.sub("(", f) for f in head.split(";")]
        stacks.append((frames, int(count)))
    return stacks


def main() -> None:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--under", help="keep only stacks with a frame containing this")
    args = parser.parse_args()
    stacks = parse(args.file)
    total_all = sum(n for _, n in stacks)
    busy = [(f, n) for f, n in stacks if not IDLE.search(f[-1])]
    if args.under:
        busy = [(f, n) for f, n in busy if any(args.under in frame for frame in f)]
    total = sum(n for _, n in busy) or 1
    own: Counter[str] = Counter()
    through: Counter[str] = Counter()
    tasks: Counter[str] = Counter()
    for frames, n in busy:
        own[frames[-1]] += n
        roots = [i for i, frame in enumerate(frames) if frame.startswith(TASK_ROOTS)]
        start = roots[-1] + 1 if roots else len(frames) - 1
        for frame in set(frames[start:]):  # below the event loop or the pool's machinery
            through[frame] += n
        tasks[" > ".join(frame.split(" (")[0] for frame in frames[start : start + 4])] += n
    print(f"{total_all} samples, {total} busy{' under ' + args.under if args.under else ''}")
    for title, counts in (
        ("By task (what the loop or a pool thread ran)", tasks),
        ("Self", own),
        ("Inclusive", through),
    ):
        print(f"\n{title}:")
        for frame, n in counts.most_common(args.top):
            print(f"{100 * n / total:5.1f}%  {frame[:150]}")


if __name__ == "__main__":
    main()
