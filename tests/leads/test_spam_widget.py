"""The ALTCHA widget's files (``agency_site/leads/spam/widget.py``) and attributes
(``agency_site/forms/widget_markup.py``): a tarball
without the pinned integrity is refused, the build serves the external build, its worker,
its styles and the site's starter under ``/altcha/``, and the widget speaks the page's
language with the words of the site's YAML."""

import io
import json
import tarfile
from pathlib import Path

import pytest

from agency_site import locale
from agency_site.forms.declarations import CHALLENGE_FIELD
from agency_site.forms.widget_markup import (
    ALGORITHM,
    STARTER,
    STARTER_URL,
    URL_DIR,
    WORKER,
    widget_attributes,
)
from agency_site.leads.spam.widget import (
    INTEGRITY,
    PACKAGE_FILES,
    TarballRefused,
    checked,
    integrity,
    package_files,
    public_files,
)


def fake_tarball(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_a_tarball_without_the_pinned_integrity_is_refused_and_not_kept(tmp_path: Path) -> None:
    data = fake_tarball({member: "x" for member in PACKAGE_FILES.values()})
    assert checked(data, integrity(data)) == data
    with pytest.raises(TarballRefused):
        checked(data)  # Not the pinned one's.
    assert INTEGRITY.startswith("sha512-")
    cached = tmp_path / "altcha-3.2.2.tgz"
    cached.write_bytes(data)
    with pytest.raises(TarballRefused):
        public_files(tmp_path)
    assert not cached.exists()  # The next build fetches it again.


def test_the_build_serves_the_external_build_its_worker_styles_and_the_starter() -> None:
    texts = {member: f"/* {name} */" for name, member in PACKAGE_FILES.items()}
    files = package_files(fake_tarball(texts))
    assert set(files) == {"altcha.min.js", "altcha.css", WORKER}  # No blob:, no inline.
    assert files[WORKER] == f"/* {WORKER} */"
    assert STARTER_URL.startswith(URL_DIR + "/") and STARTER.endswith(".js")
    with pytest.raises(TarballRefused):
        package_files(fake_tarball({"package/README.md": ""}))


@pytest.mark.parametrize(
    ("language", "label"), [("es", "No soy un robot"), ("ca", "No sóc un robot")]
)
def test_the_widget_speaks_the_page_s_language_and_fills_the_declared_field(
    language: str, label: str
) -> None:
    with locale.active(language):
        attributes = widget_attributes()
    assert attributes["language"] == language
    assert json.loads(attributes["data-strings"])["label"] == label
    assert (attributes["auto"], attributes["data-field"]) == ("off", CHALLENGE_FIELD)
    # The worker registered for the algorithm the challenges use.
    assert (attributes["data-algorithm"], attributes["data-worker"]) == (ALGORITHM, WORKER)
    assert attributes["name"] != CHALLENGE_FIELD  # Its own copy, which the server ignores.
    assert json.loads(attributes["configuration"]) == {"hideFooter": True, "hideLogo": True}
