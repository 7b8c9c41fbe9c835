"""newsforagers.commands.bench.progress: the progress line without a terminal."""

from __future__ import annotations

from newsforagers.commands.bench.progress import Progress
from newsforagers.evaluation.bench.plan import PlannedRun


def test_progress_without_a_terminal_prints_one_line_per_run():
    import io

    stream = io.StringIO()
    progress = Progress(total=2, duration=10.0, stream=stream, tty=False)
    run = PlannedRun(0, "oracle", 0, 1)
    progress.begin(run)
    progress.end(run, {"status": "ok", "metrics": {"recall": 0.5, "requests": 12}, "wall_seconds": 9.5})
    progress.begin(run)
    progress.end(run, {"status": "failed", "problems": ["boom"], "metrics": None})
    progress.close()
    assert stream.getvalue().splitlines() == [
        "run 1/2 oracle-r0: ok, recall 0.500, 12 requests, 9.5 s", "run 2/2 oracle-r0: FAILED: boom"]
