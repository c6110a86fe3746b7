"""Shared test configuration: browser tests live in tests/e2e and are marked ``e2e``."""

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test under tests/e2e as a browser test."""
    for item in items:
        if "/e2e/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.e2e)
