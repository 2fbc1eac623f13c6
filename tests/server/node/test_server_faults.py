"""The fault suite (tests/faults.py), short: each fault once, a few games."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests import faults
from tests.pgcluster import PgCluster

pytestmark = pytest.mark.postgres_only


def test_nodes_survive_kills_pauses_database_restarts_and_wrong_addresses(
    tmp_path: Path,
) -> None:
    # A cluster of its own: the suite restarts it.
    with PgCluster(durable=False) as pg:
        report = asyncio.run(faults.run(pg, tmp_path, games=6, log=print))
    figures = report.figures()
    print(figures)
    assert report.faults == dict.fromkeys(faults.FAULTS, 1)
    assert report.acknowledged > 0
    assert not report.lost, report.lost
    assert not report.doubled, report.doubled
    assert report.unwritable_after_restart == 0
    assert not report.processes_left, report.processes_left
    assert not report.address_faults, report.address_faults
    assert report.takeover, "no game was taken over"
    if report.unfinished:
        # Known, not yet found (docs/faults.md): now and then, after the database
        # restart, a game whose bot is to move is owned by a node that no longer
        # plays it and never takes it up again; its watchers are then cancelled.
        unfinished = {u.split(":")[0] for u in report.unfinished}
        assert all(w.split(":")[0] in unfinished for w in report.watch_mismatches)
        pytest.xfail(f"a game stopped after the faults: {report.unfinished}")
    assert not report.watch_mismatches, report.watch_mismatches
