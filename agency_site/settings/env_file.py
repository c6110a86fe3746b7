"""Where the settings come from: the site's folder, its ``.env`` merged into the process
environment (python-dotenv, never over what is already set: Reflex reads its own
``REFLEX_*`` variables from ``os.environ``), and what every section shares (its prefix,
``.env``, blanks meaning the default, frozen)."""

from pathlib import Path

from dotenv import load_dotenv
from pydantic_settings import SettingsConfigDict

ROOT = Path(__file__).resolve().parents[2]
# The deployment's own values; never committed (see .env.example).
ENV_FILE = ROOT / ".env"


def load_env_file(path: Path = ENV_FILE) -> None:
    """Merge ``path`` into ``os.environ``; variables already set keep their value."""
    load_dotenv(path, override=False)


load_env_file()


def section(prefix: str) -> SettingsConfigDict:
    """Settings of one group of variables sharing ``prefix``."""
    return SettingsConfigDict(
        env_prefix=prefix,
        env_file=ENV_FILE,
        env_ignore_empty=True,
        extra="ignore",
        frozen=True,
    )
