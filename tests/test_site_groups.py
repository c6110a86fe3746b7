"""How `make test` deals the browser-test files to its workers (tests/conftest.py): each file
in one group, a file that uses another's build in that file's group, the groups about equal
in time (the session site's one build counted in the group that makes it) whatever files a
run holds."""

from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import (
    BROWSER_FILE_SECONDS,
    OWN_BUILDS,
    SAME_BUILD,
    SITE_BUILD_SECONDS,
    SITE_GROUP_OF,
    site_groups,
)

FILES = sorted(SITE_GROUP_OF)


def seconds(name: str) -> int:
    return BROWSER_FILE_SECONDS.get(name, 10)


def test_every_browser_file_but_reflex_run_has_a_group_and_riders_go_with_their_build() -> None:
    assert OWN_BUILDS not in SITE_GROUP_OF
    for rider, leader in SAME_BUILD.items():
        assert SITE_GROUP_OF[rider] == SITE_GROUP_OF[leader]


@given(st.sets(st.sampled_from(FILES), min_size=1))
def test_any_selection_of_files_is_dealt_into_groups_of_about_equal_time(chosen) -> None:
    groups = site_groups(sorted(chosen))
    assert set(groups) == chosen
    for rider, leader in SAME_BUILD.items():
        if rider in chosen and leader in chosen:
            assert groups[rider] == groups[leader]
    load = {group: sum(seconds(name) for name in groups if groups[name] == group)
            for group in set(groups.values())}  # fmt: skip
    builder = min(
        (name for name in chosen if name not in {*SAME_BUILD, *SAME_BUILD.values()}),
        key=lambda name: (-seconds(name), name),
        default=None,
    )
    # What is dealt as one: a file with its riders, the site's builder with the build.
    dealt = {leader: seconds(leader) + sum(seconds(r) for r, lead in SAME_BUILD.items()
                                           if lead == leader and r in chosen)
             for leader in chosen}  # fmt: skip
    if builder is not None:  # The group that uses the session site first builds it.
        load[groups[builder]] += SITE_BUILD_SECONDS
        dealt[builder] += SITE_BUILD_SECONDS
    assert max(load.values()) - min(load.values(), default=0) <= max(dealt.values())
