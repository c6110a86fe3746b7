"""``make export`` keeps lead exports (CSV) out of backend.zip, through Reflex's own zipper."""

import zipfile
from pathlib import Path

import pytest

from agency_site.reflex_ext.internals import zip_app
from agency_site.site_export import export_command, personal_data_files


def test_csv_files_are_left_out_of_backend_zip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    (site / "agency_site").mkdir(parents=True)
    (site / "agency_site" / "app.py").write_text("app = 1\n")
    (site / "rxconfig.py").write_text("config = 1\n")
    (site / "leads.csv").write_text("id,email\n1,ana@example.com\n")
    (site / "agency_site" / "old-export.csv").write_text("id\n")
    (site / ".hidden").mkdir()
    (site / ".hidden" / "skipped.csv").write_text("id\n")  # Reflex skips it anyway.

    excluded = personal_data_files(site)
    assert excluded == [site / "agency_site" / "old-export.csv", site / "leads.csv"]

    monkeypatch.chdir(site)
    out = tmp_path / "out"
    out.mkdir()
    zip_app(frontend=False, backend=True, zip_dest_dir=out, backend_excluded_dirs=tuple(excluded))
    names = zipfile.ZipFile(out / "backend.zip").namelist()
    assert sorted(names) == ["agency_site/app.py", "rxconfig.py"]


def test_the_export_command_passes_each_file_to_reflex(tmp_path: Path) -> None:
    (tmp_path / "leads.csv").write_text("id\n")
    command = export_command(tmp_path, ["--loglevel", "info"])
    assert command[1:] == [
        "-m",
        "reflex",
        "export",
        "--loglevel",
        "info",
        "--exclude-from-backend",
        str(tmp_path / "leads.csv"),
    ]


def test_the_data_folder_and_sqlite_companions_are_left_out_of_backend_zip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    (site / "agency_site").mkdir(parents=True)
    (site / "agency_site" / "app.py").write_text("app = 1\n")
    (site / "data" / "spool").mkdir(parents=True)
    for name in ("reflex.db", "reflex.db-wal", "reflex.db-shm", "erasures.log"):
        (site / "data" / name).write_text("personal data\n")
    (site / "data" / "spool" / "spool-host-1.jsonl").write_text("{}\n")
    # An old database left at the top of the site folder, with its companions.
    for name in ("reflex.db", "reflex.db-wal", "reflex.db-shm", "leads-x.sqlite3"):
        (site / name).write_text("personal data\n")

    excluded = personal_data_files(site)
    assert site / "data" in excluded
    assert {site / "reflex.db-wal", site / "reflex.db-shm", site / "leads-x.sqlite3"} <= set(
        excluded
    )

    monkeypatch.chdir(site)
    out = tmp_path / "out"
    out.mkdir()
    zip_app(frontend=False, backend=True, zip_dest_dir=out, backend_excluded_dirs=tuple(excluded))
    names = zipfile.ZipFile(out / "backend.zip").namelist()
    assert sorted(names) == ["agency_site/app.py"]


def test_the_data_folder_is_ignored_by_git() -> None:
    import subprocess

    root = Path(__file__).resolve().parents[1]
    paths = ["data/reflex.db", "data/reflex.db-wal", "data/reflex.db-shm", "data/spool/x.jsonl"]
    ignored = subprocess.run(
        ["git", "check-ignore", *paths], cwd=root, capture_output=True, text=True
    ).stdout.split()
    assert ignored == paths
