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


# --- The browser's error reports (issue 43, item 9) ----------------------------------------


def report(info, stack="") -> dict:
    return {
        "name": event_guard.FRONTEND_EXCEPTION,
        "payload": {"info": info, "component_stack": stack},
    }


def test_an_error_report_event_must_be_two_texts_of_bounded_length() -> None:
    assert event_problem(report("TypeError: x is null", "at Form"), HANDLERS) == ""
    assert event_problem(report("x" * event_guard.FRONTEND_REPORT_MAX), HANDLERS) == ""
    for crafted in (
        report("x" * (event_guard.FRONTEND_REPORT_MAX + 1)),
        report("x" * 10_000, "y" * 10_000),
        report(["a list"]),
        report("ok", {"a": "dict"}),
        {"name": event_guard.FRONTEND_EXCEPTION, "payload": {"info": "x", "extra": "y"}},
        {"name": event_guard.FRONTEND_EXCEPTION, "payload": {}},
    ):
        problem = event_problem(crafted, HANDLERS)
        assert problem and len(problem) < 120, crafted


def test_reflex_s_own_error_report_is_logged_as_one_bounded_line(caplog) -> None:
    """The site's app: Reflex's ``handle_frontend_exception`` with 100 KB of text and
    newlines (what a crafted event or a runaway error sends) is one WARNING line of at most
    ``LOGGED_CHARS``. Before: Reflex's default handler logged it whole, at ERROR."""
    from agency_site.agency_site import app
    from agency_site.client_errors import LOGGED_CHARS
    from agency_site.reflex_ext.internals import FrontendEventExceptionState

    assert app.frontend_exception_handler.__name__ == "frontend_exception"
    handler = FrontendEventExceptionState.handle_frontend_exception.fn
    with caplog.at_level(logging.WARNING, logger="agency_site.event_guard"):
        list(handler(object.__new__(FrontendEventExceptionState), "boom\n[red]" * 10_000, ""))
    [record] = [r for r in caplog.records if r.name == "agency_site.event_guard"]
    message = record.getMessage()
    assert "\n" not in message and len(message) <= LOGGED_CHARS + 40
    assert message.startswith("Browser error (socket): boom\\n")


def test_error_reports_are_logged_twenty_a_minute_at_most(caplog) -> None:
    now = [0.0]
    log = event_guard.report_logger(per_minute=20, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="agency_site.event_guard"):
        for _ in range(100):
            log(Exception("again"))
        now[0] = 61.0
        log(Exception("a minute later"))
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 22 and "the rest are dropped" in messages[20]
    assert messages[-1].endswith("a minute later")
