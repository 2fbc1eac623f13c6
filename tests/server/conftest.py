"""Every server test runs against both stores: SQLite, and PostgreSQL in a private cluster."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import server_harness

BACKENDS = ("sqlite", "postgresql")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "postgres_only: runs against PostgreSQL only")
    config.addinivalue_line("markers", "sqlite_only: runs against SQLite only")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" not in metafunc.fixturenames:
        return
    backends = list(BACKENDS)
    if metafunc.definition.get_closest_marker("postgres_only"):
        backends = ["postgresql"]
    if metafunc.definition.get_closest_marker("sqlite_only"):
        backends = ["sqlite"]
    metafunc.parametrize("backend", backends, indirect=True)


@pytest.fixture(autouse=True)
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """The store the test's servers use (see server_harness.DATABASE)."""
    kind: str = getattr(request, "param", "sqlite")
    server_harness.DATABASE[0] = request.getfixturevalue("pg_url") if kind == "postgresql" else None
    yield kind
    server_harness.DATABASE[0] = None
