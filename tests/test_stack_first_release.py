"""`make stack STACK_FRONTEND_ZIP=frontend.zip`: the stack's first release is a `make export`
made for its URL (CI serves the export it checked), and never one made for another URL."""

import zipfile
from pathlib import Path

import pytest

from scripts.stack import unpack_export

URL = "http://localhost:8080"


def exported(folder: Path, url: str) -> Path:
    """A frontend.zip as ``reflex export`` writes it (the files of build/client at its root)."""
    frontend_zip = folder / "frontend.zip"
    with zipfile.ZipFile(frontend_zip, "w") as out:
        out.writestr("index.html", f'<head><link href="{url}/" rel="canonical"/></head>')
        out.writestr("assets/root-abc123.js", "export default 1;")
        out.writestr("ca/index.html", f'<link href="{url}/ca" rel="canonical"/>')
    return frontend_zip


def test_an_export_made_for_the_stack_s_url_is_its_release(tmp_path: Path) -> None:
    release = tmp_path / "releases" / "20261126T000000Z"
    unpack_export(exported(tmp_path, URL), release, URL)
    assert (release / "assets" / "root-abc123.js").read_text() == "export default 1;"
    assert (release / "ca" / "index.html").is_file()
    assert release.stat().st_mode & 0o777 == 0o755


@pytest.mark.parametrize("built_for", ["http://localhost:3000", "https://agency.example"])
def test_an_export_made_for_another_url_is_refused_and_unpacks_nothing(
    tmp_path: Path, built_for: str
) -> None:
    release = tmp_path / "release"
    with pytest.raises(SystemExit, match=f"not exported for {URL}.*REFLEX_DEPLOY_URL={URL}"):
        unpack_export(exported(tmp_path, built_for), release, URL)
    assert not release.exists()
