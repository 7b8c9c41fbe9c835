import pytest

from newsforagers.learning import ReinforcingAgent, RewardRules, judge_send, step_profit

HOUR = 3600.0


def test_worked_example_of_the_2003_paper_gives_profit_98():
    # At URL D the forager sends E and F; E is not novel, F is: reward 100, two costs of 1.
    agent = ReinforcingAgent()
    agent.register("f1")
    agent.seen.add("E")
    outcomes = [agent.receive("f1", "E", 2 * HOUR), agent.receive("f1", "F", 2 * HOUR)]
    assert [o.rewarded for o in outcomes] == [False, True]
    assert step_profit(outcomes) == 98


def test_algorithm_7_variant_does_not_charge_a_rewarded_send():
    rules = RewardRules(rewarded_send_pays_cost=False)
    outcomes = [judge_send(rules, False, 0.0), judge_send(rules, True, 0.0)]
    assert step_profit(outcomes) == 99


def test_only_the_first_sender_is_paid():
    agent = ReinforcingAgent()
    for name in ("a", "b"):
        agent.register(name)
    first = agent.receive("a", "doc", 60.0)
    second = agent.receive("b", "doc", 60.0)
    assert first.rewarded and not second.rewarded
    assert second.profit == -1


def test_age_limit_is_24_hours_inclusive_and_old_documents_are_not_remembered():
    agent = ReinforcingAgent()
    agent.register("a")
    assert agent.receive("a", "edge", 24 * HOUR).rewarded
    old = agent.receive("a", "old", 24 * HOUR + 1)
    assert not old.rewarded and "old" not in agent.seen


def test_documents_dated_ahead_of_the_clock_are_not_rewarded():
    rules = RewardRules()  # future_skew 300 s
    assert judge_send(rules, True, -300.0).rewarded
    assert not judge_send(rules, True, -301.0).rewarded


def test_scores_start_at_100_lose_005_per_send_gain_1_per_reward():
    agent = ReinforcingAgent()
    agent.register("a")
    assert agent.scores["a"] == 100
    for i in range(20):
        agent.receive("a", f"doc{i}", 25 * HOUR)  # all too old: 20 sends, no reward
    assert agent.scores["a"] == pytest.approx(99.0)
    agent.receive("a", "fresh", 0.0)
    assert agent.scores["a"] == pytest.approx(99.0 - 0.05 + 1)
    agent.reset("a")
    assert agent.scores["a"] == 100


def test_unknown_forager_and_bad_numbers_are_errors():
    agent = ReinforcingAgent()
    with pytest.raises(KeyError, match="not registered"):
        agent.receive("ghost", "doc", 0.0)
    agent.register("a")
    with pytest.raises(ValueError, match="finite"):
        agent.receive("a", "doc", float("nan"))
    assert agent.scores["a"] == 100
    with pytest.raises(ValueError, match="novelty_window"):
        RewardRules(novelty_window=0)
    with pytest.raises(ValueError, match="finite"):
        RewardRules(reward=float("inf"))


# -- the topical mode (issue 20) -------------------------------------------------------------

def test_topic_and_novelty_pays_reward_times_relevance_to_a_novel_first_sender():
    from newsforagers.learning.reward import judge_topical_send

    rules = RewardRules()  # REWARD 100, cost 1 paid by a rewarded send too, +1/-0.05 scores
    outcome = judge_topical_send(rules, True, 3600.0, 0.4, "topic+novelty")
    # by hand: 100·0.4 − 1 = 39; score −0.05 + 1·0.4 = 0.35
    assert outcome.rewarded and outcome.profit == pytest.approx(39.0)
    assert outcome.score_delta == pytest.approx(0.35)
    # not the first sender, or a day and a second old: charged only
    for first, age in ((False, 3600.0), (True, 24 * 3600.0 + 1)):
        outcome = judge_topical_send(rules, first, age, 0.9, "topic+novelty")
        assert not outcome.rewarded and outcome.profit == -1.0 and outcome.score_delta == -0.05
    # relevance 0: the document was new (claimed), it earns nothing beyond the cost
    zero = judge_topical_send(rules, True, 60.0, 0.0, "topic+novelty")
    assert zero.rewarded and zero.profit == -1.0


def test_topic_alone_pays_documents_of_any_age_but_not_from_the_future():
    from newsforagers.learning.reward import judge_topical_send

    rules = RewardRules(rewarded_send_pays_cost=False)  # Alg. 7: the reward alone
    week = judge_topical_send(rules, True, 7 * 86400.0, 0.25, "topic")
    assert week.rewarded and week.profit == pytest.approx(25.0)
    ahead = judge_topical_send(rules, True, -rules.future_skew - 1, 1.0, "topic")
    assert not ahead.rewarded and ahead.profit == -1.0
    # novelty: the papers' rule, relevance unused
    assert judge_topical_send(rules, True, 60.0, 0.1, "novelty") == judge_send(rules, True, 60.0)


@pytest.mark.parametrize("relevance", [-0.1, 1.5, float("nan"), float("inf")])
def test_a_relevance_outside_the_unit_interval_is_refused(relevance):
    from newsforagers.learning.reward import judge_topical_send

    with pytest.raises(ValueError, match="relevance"):
        judge_topical_send(RewardRules(), True, 60.0, relevance, "topic")


def test_an_unknown_reward_mode_is_refused():
    from newsforagers.learning.reward import judge_topical_send

    with pytest.raises(ValueError, match="reward mode"):
        judge_topical_send(RewardRules(), True, 60.0, 0.5, "relevance")
