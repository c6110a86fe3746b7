"""Every lead form is a plain HTML form too: each posts to the backend without JavaScript."""

import pytest

from agency_site.components.form_layouts import booking_form, hero_form


@pytest.mark.parametrize(("form", "kind"), [(hero_form, "contact"), (booking_form, "booking")])
def test_each_form_posts_to_its_backend_endpoint(form, kind: str) -> None:
    from agency_site.reflex_ext.internals import get_config

    rendered = str(form().render())
    assert 'method:"post"' in rendered
    assert f'action:"{get_config().api_url.rstrip("/")}/_site/forms/{kind}"' in rendered
