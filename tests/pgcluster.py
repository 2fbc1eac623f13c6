"""The private PostgreSQL cluster of tests and benchmarks (see server.storage.pgcluster)."""

from server.storage.pgcluster import (
    SUPERUSER,
    SYSTEM_USER,
    ClusterError,
    PgCluster,
    find_bindir,
    free_port,
)

__all__ = ["SUPERUSER", "SYSTEM_USER", "ClusterError", "PgCluster", "find_bindir", "free_port"]
