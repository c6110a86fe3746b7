"""The load test's second-by-second CPU (scripts/loadtest/saturation.py): what ran out."""

import os
import subprocess
import sys
import threading

from hypothesis import given
from hypothesis import strategies as st

from scripts.loadtest import report
from scripts.loadtest.saturation import (
    GENERATOR,
    OTHER,
    CpuTimeline,
    Sample,
    run_delay,
    summary,
    verdict,
)

IDLE_BOX = {"user": 0.0, "nice": 0.0, "system": 0.0, "idle": 0.0, "softirq": 0.0}


def _box(busy: float, idle: float, softirq: float = 0.0) -> dict[str, float]:
    return {**IDLE_BOX, "user": busy - softirq, "softirq": softirq, "idle": idle}


def _timeline(groups: tuple[str, ...] = ("nginx",)) -> CpuTimeline:
    return CpuTimeline(dict.fromkeys(groups, list), cpus=2)


def test_a_thread_at_a_whole_core_is_named_though_the_machine_has_a_core_left() -> None:
    # One second: nginx's worker 1 at a whole core, its worker 2 idle; the box half busy.
    timeline = _timeline()
    before = Sample(0.0, _box(0, 0), {"nginx": {(1, 1): 5.0, (2, 2): 3.0}}, {1: "nginx"})
    after = Sample(1.0, _box(1.0, 1.0), {"nginx": {(1, 1): 6.0, (2, 2): 3.0}}, {1: "nginx"})
    timeline.add(before, after, start=0.0)
    second = timeline.seconds[0]
    assert second.groups["nginx"] == 1.0 and second.box_busy == 0.5
    assert second.busiest["nginx"] == ("nginx 1/1", 1.0)
    found = summary(timeline.seconds)
    assert found["groups"]["nginx"]["thread_saturated_s"] == 1 and found["box_saturated_s"] == 0
    line = verdict(found, 2)
    assert "nginx's busiest thread ≥ 90% of a core for 1 s" in line
    assert "the machine ≥ 90% of its 2 CPUs for 0 of 1 s" in line


def test_both_cores_busy_with_no_thread_at_a_core_is_the_machine_running_out() -> None:
    timeline = _timeline(("nginx", "backends"))
    threads0 = {"nginx": {(1, 1): 0.0, (1, 2): 0.0}, "backends": {(3, 3): 0.0, (4, 4): 0.0}}
    threads1 = {"nginx": {(1, 1): 0.4, (1, 2): 0.4}, "backends": {(3, 3): 0.5, (4, 4): 0.5}}
    timeline.add(Sample(0, _box(0, 0), threads0, {}), Sample(1, _box(2.0, 0.0), threads1, {}), 0)
    found = summary(timeline.seconds)
    assert found["box_saturated_s"] == 1
    assert not any(g["thread_saturated_s"] for g in found["groups"].values())
    # What no group accounts for: 2 CPUs busy, 1.8 cores in the groups.
    assert abs(timeline.seconds[0].groups[OTHER] - 0.2) < 1e-9
    assert verdict(found, 2) == "the machine ≥ 90% of its 2 CPUs for 1 of 1 s"


@given(
    times=st.lists(
        st.tuples(st.floats(0, 100), st.floats(0, 2)),
        min_size=1,
        max_size=8,
        unique_by=lambda t: t[0],
    ),
    wall=st.floats(0.5, 3),
    busy=st.floats(0, 1),
)
def test_a_group_is_the_sum_of_its_threads_and_its_busiest_is_one_of_them(
    times: list[tuple[float, float]], wall: float, busy: float
) -> None:
    timeline = _timeline()
    before = {(1, n): start for n, (start, _) in enumerate(times)}
    after = {(1, n): start + spent for n, (start, spent) in enumerate(times)}
    timeline.add(
        Sample(0.0, _box(0, 0), {"nginx": before}, {1: "nginx"}),
        Sample(wall, _box(busy * 2 * wall, (1 - busy) * 2 * wall), {"nginx": after}, {1: "nginx"}),
        start=0.0,
    )
    second = timeline.seconds[0]
    total = sum(spent for _, spent in times) / wall
    assert abs(second.groups["nginx"] - total) < 1e-6
    assert abs(second.busiest["nginx"][1] - max(spent for _, spent in times) / wall) < 1e-6
    assert second.groups[OTHER] >= 0 and abs(second.box_busy - busy) < 1e-6


def test_a_sample_finds_each_group_s_processes_and_the_generator_without_the_sampler() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        timeline = CpuTimeline({"backends": lambda: [child.pid]})
        me = threading.get_native_id()
        sample = timeline.sample(skip_tid=me)
        assert {pid for pid, _ in sample.threads["backends"]} == {child.pid}
        assert all(pid == os.getpid() for pid, _ in sample.threads[GENERATOR])
        assert (os.getpid(), me) not in sample.threads[GENERATOR]
        assert sample.threads["h2load"] == {}  # none started by this process
    finally:
        child.kill()
        child.wait()


def test_the_round_prints_each_second_and_what_ran_out() -> None:
    timeline = _timeline()
    timeline.add(
        Sample(0, _box(0, 0), {"nginx": {(1, 1): 0.0}}, {1: "nginx"}),
        Sample(1, _box(1.9, 0.1, 0.2), {"nginx": {(1, 1): 0.95}}, {1: "nginx"}),
        0,
    )
    lines = report.cpu_table(timeline.as_dict())
    assert "nginx" in lines[1] and "other" in lines[1]
    assert lines[2].split()[:6] == ["1.0", "95%", "10%", "95", "(", "95)"]


def test_a_busy_machine_shows_as_threads_waiting_for_a_cpu() -> None:
    # Two backend workers each ready to run but waiting 0.3 s of the second: 0.6 in all.
    timeline = _timeline(("backends",))
    keys = [(3, 3), (4, 4)]
    cpu0, cpu1 = dict.fromkeys(keys, 0.0), dict.fromkeys(keys, 0.7)
    timeline.add(
        Sample(0, _box(0, 0), {"backends": cpu0}, {}, {"backends": dict.fromkeys(keys, 1.0)}),
        Sample(1, _box(2, 0), {"backends": cpu1}, {}, {"backends": dict.fromkeys(keys, 1.3)}),
        0,
    )
    assert abs(timeline.seconds[0].waiting["backends"] - 0.6) < 1e-9
    assert abs(summary(timeline.seconds)["groups"]["backends"]["waiting_mean"] - 0.6) < 1e-9
    assert "w 60" in report.cpu_table(timeline.as_dict())[2]


def test_the_wait_is_read_from_the_kernel_and_none_for_a_thread_gone() -> None:
    me = (os.getpid(), threading.get_native_id())
    assert run_delay(*me) >= 0.0
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert run_delay(child.pid, child.pid) == 0.0
