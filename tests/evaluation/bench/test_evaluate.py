"""newsforagers.evaluation.bench.evaluate: what a run's files say (a colony's counts)."""

from __future__ import annotations

from newsforagers.evaluation.bench.evaluate import colony_counts


def test_colony_counts_take_each_foragers_latest_snapshot():
    snapshots = [{"forager": "f1", "sent": 3, "rewarded": 1}, {"forager": "f2", "sent": 2, "rewarded": 2},
                 {"forager": "f1", "sent": 9, "rewarded": 4}, {"forager": "f3", "sent": None},
                 {"sent": 1, "rewarded": 1}]
    assert colony_counts(snapshots) == {"f1": {"sent": 9, "rewarded": 4}, "f2": {"sent": 2, "rewarded": 2}}
