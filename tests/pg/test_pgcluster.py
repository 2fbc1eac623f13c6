"""The private PostgreSQL cluster the tests and benchmarks use (tests/pgcluster.py)."""

from __future__ import annotations

import os
import pwd
import socket
import stat
import threading

import psycopg
import pytest

from tests.pgcluster import SYSTEM_USER, ClusterError, PgCluster


def test_fresh_databases_are_separate_and_empty(pg_cluster: PgCluster) -> None:
    first, second = pg_cluster.create_database(), pg_cluster.create_database()
    assert first != second
    with psycopg.connect(first, autocommit=True) as conn:
        conn.execute("CREATE TABLE t (x int)")
        conn.execute("INSERT INTO t VALUES (7)")
        assert conn.execute("SELECT x FROM t").fetchall() == [(7,)]
    with psycopg.connect(second) as conn:
        tables = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()
        assert tables == (0,)


def test_the_pg_url_fixture_gives_each_test_its_own_database(
    pg_cluster: PgCluster, pg_url: str
) -> None:
    name = pg_url.rsplit("/", 1)[1]
    assert pg_url.startswith(f"postgresql://postgres@127.0.0.1:{pg_cluster.port}/")
    assert name in pg_cluster.databases()
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT current_database()").fetchone() == (name,)


def test_a_dropped_database_goes_even_with_connections_open(pg_cluster: PgCluster) -> None:
    url = pg_cluster.create_database()
    name = url.rsplit("/", 1)[1]
    conn = psycopg.connect(url)
    try:
        pg_cluster.drop_database(name)
        assert name not in pg_cluster.databases()
        with pytest.raises(psycopg.OperationalError):
            conn.execute("SELECT 1")
    finally:
        conn.close()


def test_databases_are_made_concurrently(pg_cluster: PgCluster) -> None:
    urls: list[str] = []
    threads = [
        threading.Thread(target=lambda: urls.append(pg_cluster.create_database())) for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(urls)) == 6
    assert {u.rsplit("/", 1)[1] for u in urls} <= set(pg_cluster.databases())


def test_names_that_are_not_plain_are_refused(pg_cluster: PgCluster) -> None:
    for bad in ('x"; DROP DATABASE postgres; --', "Upper", "", "a" * 64):
        with pytest.raises(ClusterError, match="not a plain database name"):
            pg_cluster.create_database(bad)
    assert pg_cluster.create_database("plain_name_1").endswith("/plain_name_1")


def test_trust_on_loopback_only(pg_cluster: PgCluster) -> None:
    assert pg_cluster.folder is not None
    settings: dict[str, str] = dict(
        psycopg.connect(pg_cluster.url())
        .execute(
            "SELECT name, setting FROM pg_settings WHERE name IN "
            "('listen_addresses', 'unix_socket_directories', 'port', 'fsync')"
        )
        .fetchall()
    )
    assert settings == {
        "listen_addresses": "127.0.0.1",
        "unix_socket_directories": str(pg_cluster.folder),
        "port": str(pg_cluster.port),
        "fsync": "off",  # the session's cluster is not durable: its data is thrown away
    }
    hba = (pg_cluster.data / "pg_hba.conf").read_text().splitlines()
    rules = [line.split() for line in hba if line.strip() and not line.startswith("#")]
    assert rules == [
        ["local", "all", "all", "trust"],
        ["host", "all", "all", "127.0.0.1/32", "trust"],
    ]
    # The unix socket lives in the private folder: a connection through it works too.
    with psycopg.connect(
        host=str(pg_cluster.folder), port=pg_cluster.port, user="postgres", dbname="postgres"
    ) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_a_cluster_starts_on_a_free_port_and_is_gone_after() -> None:
    with PgCluster() as cluster:
        folder = cluster.folder
        assert folder is not None and cluster.running
        assert cluster.durable
        info = os.stat(folder)
        assert stat.S_IMODE(info.st_mode) == 0o700
        if os.geteuid() == 0:
            # PostgreSQL refuses root: the folder belongs to the postgres system user.
            assert info.st_uid == pwd.getpwnam(SYSTEM_USER).pw_uid
        with psycopg.connect(cluster.url()) as conn:
            assert conn.execute("SHOW fsync").fetchone() == ("on",)
            assert conn.execute("SHOW synchronous_commit").fetchone() == ("on",)
        port = cluster.port
        cluster.stop()
        assert not cluster.running
        cluster.stop()  # twice is harmless
    assert not folder.exists()
    # Nothing listens on its port any more.
    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", port)) != 0


def test_two_clusters_run_side_by_side() -> None:
    with PgCluster(durable=False) as one, PgCluster(durable=False) as two:
        assert one.port != two.port and one.folder != two.folder
        url = one.create_database("only_here")
        assert "only_here" not in two.databases()
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)


def test_an_unstarted_cluster_says_so() -> None:
    cluster = PgCluster()
    with pytest.raises(ClusterError, match="not started"):
        cluster.url()
    assert not cluster.running


def test_a_missing_installation_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    monkeypatch.setenv("TONGIAKI_PG_BINDIR", str(tmp_path))
    with pytest.raises(ClusterError, match="holds no initdb"):
        PgCluster().start()
