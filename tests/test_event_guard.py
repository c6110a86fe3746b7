"""Crafted websocket events are refused by shape, in bounded work, before Reflex sees them."""

import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agency_site import event_guard
from agency_site.event_guard import event_problem
from tests.run_async import run

SUBMIT = "reflex___state____state.agency_site___state___form_states____booking_form_state.submit"
HANDLERS = frozenset({SUBMIT})


def event(form_data) -> dict:
    return {"name": SUBMIT, "payload": {"form_data": form_data}, "router_data": {}}


def entries(pairs) -> dict:
    return {"__reflex_form_data__": pairs}


def test_a_browser_form_passes() -> None:
    assert event_problem(event(entries([["name", "Ana"], ["booking_name", "Ana"]])), HANDLERS) == ""
    assert event_problem(event({"email": "a@b.c"}), HANDLERS) == ""
    # Other events are Reflex's business, once they are dicts with a name.
    assert event_problem({"name": "x.y", "payload": {"anything": [1, 2]}}, HANDLERS) == ""


@pytest.mark.parametrize(
    "data",
    [
        event(entries([["email", "x" * 10]] * 10_000)),
        event({f"k{n}": "" for n in range(10_000)}),
        event(entries([[1, "a"]])),
        event(entries([[["nested"], "a"]])),
        event({"email": ["a@b.c"]}),
        event({"email": 42}),
        event(["email", "a@b.c"]),
        event(42),
        event(entries("not a list")),
        {"name": SUBMIT, "payload": []},
        {"name": SUBMIT, "payload": {"form_data": {}, "extra": 1}},
        [1, 2, 3],
        "a string",
        {"name": 5},
        {"name": "x.y", "router_data": "not a dict"},
    ],
)
def test_crafted_events_are_refused(data) -> None:
    problem = event_problem(data, HANDLERS)
    assert problem and len(problem) < 120


@given(
    st.recursive(
        st.none() | st.integers() | st.text(), lambda c: st.lists(c) | st.dictionaries(st.text(), c)
    )
)
@settings(max_examples=300, deadline=None)
def test_any_json_gets_an_answer_not_an_exception(data) -> None:
    event_problem(data, HANDLERS)
    event_problem({"name": SUBMIT, "payload": {"form_data": data}}, HANDLERS)


class FakeNamespace:
    def __init__(self) -> None:
        self.seen = []

    async def on_event(self, sid, data):
        self.seen.append(data)


class FakeApp:
    def __init__(self) -> None:
        self.event_namespace = FakeNamespace()


def test_install_drops_crafted_events_with_one_short_log_line(caplog) -> None:
    app = FakeApp()
    namespace = app.event_namespace
    event_guard.install(app, [])
    good = {"name": "x.y", "payload": {}}
    with caplog.at_level(logging.WARNING):
        run(namespace.on_event("sid\n" * 1000, good))
        run(namespace.on_event("sid", ["x" * 1_000_000]))
    assert namespace.seen == [good]  # Only the proper event reached the original handler.
    [record] = caplog.records
    assert len(record.getMessage()) < 200 and "\n" not in record.getMessage()
