"""The learning core: pure (numbers and an explicit ``numpy.random.Generator`` in, numbers
out; no clock, no I/O, never Scrapy). The Scrapy scheduler and the fast simulator drive the
same objects.
"""

from newsforagers.learning.population import (
    Decision,
    EnergyModel,
    EnergyPolicy,
    ScorePolicy,
    energy_variation,
    steepness,
)
from newsforagers.learning.reward import (
    ReinforcingAgent,
    RewardRules,
    SendOutcome,
    judge_send,
    judge_topical_send,
    step_profit,
)
from newsforagers.learning.value import (
    copy_weights,
    greedy,
    random_weights,
    td_error,
    td_step,
    value,
    values,
)
from newsforagers.learning.weblog import Weblog

__all__ = [
    "Decision", "EnergyModel", "EnergyPolicy", "ScorePolicy", "energy_variation", "steepness",
    "ReinforcingAgent", "RewardRules", "SendOutcome", "judge_send", "judge_topical_send", "step_profit",
    "copy_weights", "greedy", "random_weights", "td_error", "td_step", "value", "values",
    "Weblog",
]
