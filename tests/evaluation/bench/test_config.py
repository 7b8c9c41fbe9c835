"""newsforagers.evaluation.bench.config: a bad benchmark setting names its option."""

from __future__ import annotations

import pytest

from newsforagers.evaluation.bench.config import BenchConfig, BenchError


def test_config_errors_name_the_option():
    with pytest.raises(BenchError, match=r"--retime \(0\) must be higher than 0"):
        BenchConfig(corpus="c", out="o", retime=0).validate()
    with pytest.raises(BenchError, match="names a crawler twice"):
        BenchConfig(corpus="c", out="o", crawlers=("bfs", "bfs")).validate()
