"""What ``make bench-inp`` (scripts/bench_inp.py) reads of the page's Event Timing and
long-animation-frame entries, and the target it checks: fixture entries as Chromium 156
gave them for a tap and a key press, no browser."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scripts import bench_inp
from scripts.bench_inp import (
    EARLY_TAP,
    FIRST_TAP,
    MIN_REPORTED_MS,
    STEPS,
    SUBMIT,
    TARGET_MS,
    TYPING,
    Interaction,
    Measured,
    Run,
    attribution,
    interactions,
    misses,
    run_figures,
    slowest,
    table,
)


def entry(name: str, interaction_id: int, start: float, duration: float, begin: float,
          end: float, target: str = "input#hero-email") -> dict:  # fmt: skip
    """One entry as the page's observer logs it."""
    return {"name": name, "interactionId": interaction_id, "startTime": start,
            "duration": duration, "processingStart": begin, "processingEnd": end,
            "target": target}  # fmt: skip


# A tap on a phone: its pointer events, then the gesture's mouse events and click (one
# interaction), with hovers that belong to none.
TAP = [
    entry("pointerover", 0, 2509.4, 24, 2517.0, 2518.1),
    entry("pointerdown", 4286, 2509.4, 64, 2518.1, 2520.9),
    entry("touchstart", 0, 2509.4, 64, 2520.9, 2521.3),
    entry("pointerup", 4286, 2509.5, 64, 2522.0, 2523.1),
    entry("mousedown", 0, 2509.5, 80, 2526.7, 2527.0),
    entry("click", 4286, 2509.5, 80, 2560.2, 2575.6),
]
# A key press: keydown and keypress share an interaction, input has none.
KEY = [
    entry("keydown", 4301, 2801.0, 48, 2803.2, 2830.1),
    entry("keypress", 4301, 2801.0, 40, 2830.2, 2834.0),
    entry("input", 0, 2801.0, 40, 2834.1, 2836.0),
]


def test_an_interaction_is_its_entries_with_an_id_its_latency_the_longest() -> None:
    (tap,) = interactions(TAP)
    assert tap.interaction_id == 4286
    assert tap.start == 2509.4
    assert tap.duration == 80
    assert tap.events == ("click", "pointerdown", "pointerup")
    assert tap.input_delay == pytest.approx(2518.1 - 2509.4)
    assert tap.processing == pytest.approx(2575.6 - 2518.1)
    assert tap.presentation == pytest.approx(2509.4 + 80 - 2575.6)
    assert tap.end == pytest.approx(2589.4)


def test_interactions_come_in_order_and_since_a_mark() -> None:
    found = interactions(KEY + TAP)
    assert [i.interaction_id for i in found] == [4286, 4301]
    assert [i.interaction_id for i in interactions(KEY + TAP, since=2600)] == [4301]
    assert interactions(TAP[:1]) == []  # A hover alone is no interaction.


def test_the_presentation_delay_is_never_negative() -> None:
    """Durations are rounded to 8 ms: the last handler may end after start + duration."""
    (key,) = interactions([entry("keydown", 9, 100.0, 16, 101.0, 117.5)])
    assert key.presentation == 0


def test_the_slowest_interaction_of_a_step_and_none_under_the_threshold() -> None:
    split = interactions([*TAP, entry("click", 4290, 2510.0, 120, 2600.0, 2620.0)])
    assert slowest(split).interaction_id == 4290
    assert slowest([]) is None
    assert bench_inp.latency_ms(None) == MIN_REPORTED_MS


@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=5),
            st.floats(min_value=0, max_value=5000),
            st.sampled_from([16, 24, 32, 48, 104, 200, 208]),
            st.floats(min_value=0, max_value=100),
            st.floats(min_value=0, max_value=100),
        ),
        max_size=30,
    )
)
def test_every_entry_with_an_id_is_in_exactly_one_interaction_whose_latency_bounds_it(
    raw: list,
) -> None:
    entries = [
        entry("click", iid, start, duration, start + delay, start + delay + work)
        for iid, start, duration, delay, work in raw
    ]
    found = interactions(entries)
    with_id = [e for e in entries if e["interactionId"]]
    assert sum(len([e for e in with_id if e["interactionId"] == i.interaction_id])
               for i in found) == len(with_id)  # fmt: skip
    for interaction in found:
        mine = [e for e in with_id if e["interactionId"] == interaction.interaction_id]
        assert interaction.duration == max(e["duration"] for e in mine)
        assert interaction.start == min(e["startTime"] for e in mine)
        assert interaction.input_delay >= 0 and interaction.processing >= 0
        assert interaction.presentation >= 0
    assert [i.start for i in found] == sorted(i.start for i in found)


FRAMES = [
    {"startTime": 1000.0, "duration": 60, "blockingDuration": 10, "renderStart": 1050,
     "scripts": [{"startTime": 1001, "duration": 7, "invoker": "#document.onpointerover",
                  "invokerType": "event-listener", "sourceURL": "", "sourceFunctionName": ""}]},
    {"startTime": 2500.0, "duration": 190, "blockingDuration": 140, "renderStart": 2680,
     "scripts": [
         {"startTime": 2510, "duration": 12, "invoker": "#document.onfocusin",
          "invokerType": "event-listener",
          "sourceURL": "http://localhost:3000/assets/context-we0nDpdR.js",
          "sourceFunctionName": "r"},
         {"startTime": 2522, "duration": 154, "invoker": "#document.onpointerdown",
          "invokerType": "event-listener",
          "sourceURL": "http://localhost:3000/assets/entry.client-CWxMknfx.js?v=1",
          "sourceFunctionName": "_h"},
     ]},
    {"startTime": 4000.0, "duration": 70, "blockingDuration": 0, "renderStart": 4005,
     "scripts": []},
]  # fmt: skip


def test_the_attribution_is_the_longest_script_of_the_frames_during_the_interaction() -> None:
    assert attribution(FRAMES, 2509, 2789) == (
        "entry.client-CWxMknfx.js:_h (#document.onpointerdown) 154 ms"
    )
    assert attribution(FRAMES, 4010, 4100) == (
        "a 70 ms frame of style, layout and paint, no script"
    )
    assert attribution(FRAMES, 3000, 3500) == ""
    unnamed = [{**FRAMES[0], "scripts": [{**FRAMES[0]["scripts"][0], "duration": 30}]}]
    assert (
        attribution(unnamed, 990, 1100) == "#document.onpointerover (#document.onpointerover) 30 ms"
    )


def test_a_run_s_steps_are_cut_at_their_marks() -> None:
    slow_submit = [entry("click", 5000, 3100.0, 248, 3101.0, 3300.0, "button")]
    frames = [{"startTime": 3090.0, "duration": 260, "blockingDuration": 200, "renderStart": 3340,
               "scripts": [{"startTime": 3101, "duration": 199, "invoker": "FORM.onsubmit",
                            "invokerType": "event-listener", "sourceURL": "a.js",
                            "sourceFunctionName": "submit"}]}]  # fmt: skip
    log = {"events": TAP + KEY + slow_submit, "frames": frames}
    run = run_figures(
        log, {FIRST_TAP: 2500.0, TYPING: 2700.0, SUBMIT: 3000.0}, {"tap": 3100.0, "shown": 3250.5}
    )
    assert run.interactions[FIRST_TAP].interaction_id == 4286
    assert run.interactions[TYPING].interaction_id == 4301
    assert run.interactions[SUBMIT].interaction_id == 5000
    assert run.why == {SUBMIT: "a.js:submit (FORM.onsubmit) 199 ms"}
    assert run.feedback_ms == pytest.approx(150.5)
    assert run_figures({"events": [], "frames": []}, {FIRST_TAP: 0.0}, {}).interactions == {
        FIRST_TAP: None
    }


def _interaction(ms: float) -> Interaction:
    return Interaction(1, 0.0, ms, 1.0, ms - 2.0, 1.0, ("click",))


def _measured(name: str, tap_ms: list[float]) -> Measured:
    scenario = next(s for s in bench_inp.SCENARIOS if s.name == name)
    runs = [
        Run({EARLY_TAP: _interaction(96), FIRST_TAP: _interaction(ms), TYPING: None,
             SUBMIT: _interaction(40)},
            {FIRST_TAP: "x.js:f (#document.onfocusin) 180 ms"} if ms > TARGET_MS else {}, 120.0)
        for ms in tap_ms
    ]  # fmt: skip
    return Measured(scenario, runs)


def test_the_target_is_checked_on_each_step_s_median() -> None:
    fine = _measured("hero", [64, 72, 240])  # One slow run: the median is within.
    slow = _measured("quote", [208, 216, 48])
    assert misses([fine, slow]) == ["quote first tap: INP 208 ms > 200 ms"]
    assert fine.latencies(TYPING) == [MIN_REPORTED_MS] * 3


def test_the_table_has_a_row_per_form_and_step_with_median_worst_and_why() -> None:
    text = table([_measured("hero", [64, 72, 240]), _measured("booking-ca", [48, 56, 56])])
    lines = text.splitlines()
    assert len(lines) == 2 + 2 * len(STEPS)
    assert lines[0].split()[:3] == ["form", "page", "interaction"]
    hero_tap = next(line for line in lines if line.startswith("hero") and FIRST_TAP in line)
    assert "72 ms" in hero_tap and "240 ms" in hero_tap
    assert "x.js:f (#document.onfocusin) 180 ms" in hero_tap
    typing = next(line for line in lines if line.startswith("hero") and TYPING in line)
    assert "<16 ms" in typing
    submit = next(line for line in lines if line.startswith("booking-ca") and SUBMIT in line)
    assert "/ca/schedule" in submit and "120/120 ms" in submit
