"""The population's checkpoint: written atomically with a rising ``seq``, read back on a
resume, never without a JOBDIR, and a failed write only logged."""

from __future__ import annotations

import logging

from newsforagers.colony import checkpoint as checkpoints
from newsforagers.colony.checkpoint import PopulationCheckpoint


def test_the_population_checkpoint_is_written_and_read_back_with_a_rising_seq(tmp_path):
    saved = PopulationCheckpoint(tmp_path / "job")
    assert saved.read() is None and saved.seq == 0
    saved.members["f1"] = {"root": True}
    saved.write(next_id=3, host="h", output_start=0)
    saved.write(next_id=4, host="h", output_start=0)
    again = PopulationCheckpoint(tmp_path / "job")
    resumed = again.read()
    assert (resumed["seq"], resumed["next_id"], resumed["members"]) == (2, 4, {"f1": {"root": True}})
    assert again.resumed is resumed
    again.write(next_id=5, host="h", output_start=0)
    assert checkpoints.read_checkpoint(tmp_path / "job" / checkpoints.POPULATION_FILE)["seq"] == 3


def test_without_a_jobdir_nothing_is_read_or_written(tmp_path):
    none = PopulationCheckpoint(None)
    none.write(next_id=2)
    assert none.read() is None and none.seq == 0


def test_a_checkpoint_that_cannot_be_written_is_logged(tmp_path, caplog):
    (tmp_path / "job").write_text("a file where the JOBDIR should be")
    saved = PopulationCheckpoint(tmp_path / "job")
    with caplog.at_level(logging.ERROR):
        saved.write(next_id=2)
    assert "cannot write the population checkpoint" in caplog.text
