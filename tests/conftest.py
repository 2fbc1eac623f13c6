"""Fixtures shared by every test folder: a private PostgreSQL cluster (see tests/pgcluster.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.pgcluster import PgCluster


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """One private PostgreSQL server for the session, started when a test first asks for it."""
    with PgCluster(durable=False) as cluster:
        yield cluster


@pytest.fixture
def pg_url(pg_cluster: PgCluster) -> Iterator[str]:
    """A new, empty database of the session's cluster, dropped after the test."""
    url = pg_cluster.create_database()
    yield url
    pg_cluster.drop_database(url.rsplit("/", 1)[1])
