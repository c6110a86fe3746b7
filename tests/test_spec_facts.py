"""The specification's business constants (§9) as the code holds them: the booking slots and
how long a success message stays; and the job postings of §3 as the content lists them."""

from agency_site.content import careers
from agency_site.rules import SUCCESS_MESSAGE_MS, TIME_SLOTS
from tests import spec_facts as spec


def test_the_booking_slots_and_the_success_time_are_the_spec_ones() -> None:
    assert TIME_SLOTS == spec.TIME_SLOTS
    assert SUCCESS_MESSAGE_MS == spec.SUCCESS_MESSAGE_MS


def test_every_spec_job_is_posted_in_its_department() -> None:
    departments = {job.title: job.department for job in careers.CAREERS.positions}
    for title, (department, *_) in spec.JOBS.items():
        assert departments[title] == department
