import pytest
from scrapy.settings import Settings

from newsforagers import defaults
from newsforagers.config import ForagersConfig


def test_defaults_are_the_papers_constants():
    config = ForagersConfig.from_settings({})
    assert (config.weblog_size, config.weblog_start_size, config.weblog_beta) == (100, 10, 0.3)
    assert (config.td_alpha, config.td_gamma, config.path_steps) == (0.1, 0.9, 100)
    assert (config.min, config.max, config.split_score, config.retire_score) == (2, 16, 200, 0)
    rules = config.reward_rules()
    assert (rules.reward, rules.send_cost, rules.rewarded_send_pays_cost) == (100, 1, True)


def test_every_default_constant_is_a_config_field():
    names = {n for n in dir(defaults) if n.startswith("FORAGERS_")}
    fields = {f"FORAGERS_{f.upper()}" for f in ForagersConfig.__dataclass_fields__}
    assert names == fields


def test_settings_from_the_command_line_are_coerced():
    settings = Settings({"FORAGERS_WEBLOG_SIZE": "50", "FORAGERS_TD_ALPHA": "0.05",
                         "FORAGERS_REWARDED_SEND_PAYS_COST": "false"})
    config = ForagersConfig.from_settings(settings)
    assert config.weblog_size == 50 and config.td_alpha == 0.05
    assert config.rewarded_send_pays_cost is False


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("FORAGERS_WEBLOG_BETA", 0, r"FORAGERS_WEBLOG_BETA \(0.0\) must be in \(0, 1\]\."),
        ("FORAGERS_TD_GAMMA", 1.0, r"FORAGERS_TD_GAMMA \(1.0\) must be in \[0, 1\)\."),
        ("FORAGERS_MIN", 20, r"FORAGERS_MIN \(20\) must be between 1 and FORAGERS_MAX \(16\)\."),
        ("FORAGERS_WEBLOG_SIZE", "lots", r"FORAGERS_WEBLOG_SIZE \('lots'\) must be a finite int\."),
        ("FORAGERS_TD_ALPHA", "nan", r"FORAGERS_TD_ALPHA \('nan'\) must be a finite float\."),
        ("FORAGERS_RETRY_AFTER_MAX", -1, r"FORAGERS_RETRY_AFTER_MAX \(-1.0\) must be >= 0 seconds \(0: never pause\)\."),
        ("FORAGERS_REWARDED_SEND_PAYS_COST", "maybe", r"FORAGERS_REWARDED_SEND_PAYS_COST \('maybe'\) must be true or false\."),
    ],
)
def test_bad_values_name_the_setting_the_value_and_the_range(key, value, message):
    with pytest.raises(ValueError, match=message):
        ForagersConfig.from_settings({key: value})
