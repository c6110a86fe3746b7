"""The load test's copy of Reflex's websocket protocol still matches the installed Reflex.

``scripts/loadtest/protocol.py`` reproduces what a browser tab sends; a Reflex upgrade
that renames a state, an event or the endpoint fails here, not as a silent load test
measuring nothing (a line in the upgrade checklist of ``agency_site/reflex_ext``).
"""

from pathlib import Path

import reflex
from reflex.state import OnLoadInternalState, State

from agency_site.state.form_states import BookingFormState
from scripts.loadtest import protocol
from scripts.loadtest.bookers import booking_fields

STATE_JS = Path(reflex.__file__).parents[1] / "reflex_base" / ".templates" / "web" / "utils"


def test_the_state_and_event_names_are_reflex_s() -> None:
    from reflex_base import constants

    assert protocol.REFLEX_VERSION == constants.Reflex.VERSION
    assert State.get_full_name() == protocol.ROOT_STATE
    assert f"{State.get_full_name()}.hydrate_and_load" == protocol.HYDRATE_AND_LOAD
    assert hasattr(State, "hydrate_and_load")
    assert f"{OnLoadInternalState.get_full_name()}.on_load_internal" == protocol.ON_LOAD_INTERNAL
    assert BookingFormState.get_full_name() == protocol.BOOKING_STATE
    assert str(constants.Endpoint.EVENT) == protocol.NAMESPACE
    assert str(constants.Endpoint.EVENT).strip("/") == protocol.SOCKETIO_PATH


def test_the_form_entries_key_and_the_booking_vars_are_the_frontend_s() -> None:
    state_js = (STATE_JS / "state.js").read_text()
    assert f'const FORM_DATA_ENTRIES_KEY = "{protocol.FORM_DATA_ENTRIES_KEY}"' in state_js
    fields = BookingFormState.get_fields()
    for var in (protocol.RESULT_VAR, protocol.ERRORS_VAR, protocol.SENDING_VAR):
        assert var.removesuffix("_rx_state_") in fields


def test_a_booking_event_carries_every_field_and_its_ref() -> None:
    event = protocol.booking_event(booking_fields("run", 1, ("2030-01-07", "10:00")))
    entries = event["payload"]["form_data"][protocol.FORM_DATA_ENTRIES_KEY]
    names = [name for name, _ in entries]
    fields = list(booking_fields("run", 1, ("2030-01-07", "10:00")))
    assert names == [*fields, *(f"{protocol.BOOKING_REF_PREFIX}{n}" for n in fields)]
    assert event["name"] == protocol.BOOKING_SUBMIT
