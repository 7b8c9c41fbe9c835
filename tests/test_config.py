import re

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


def test_the_library_log_level_is_info_and_any_case_of_a_level_name():
    assert ForagersConfig.from_settings({}).library_log_level == "INFO"
    config = ForagersConfig.from_settings(Settings({"FORAGERS_LIBRARY_LOG_LEVEL": " debug "}))
    assert config.library_log_level == "debug"  # newsforagers.logs sets it as DEBUG


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
        ("FORAGERS_RETRY_AFTER_MAX", -1, r"FORAGERS_RETRY_AFTER_MAX \(-1.0\) must be >= 0 seconds "
                                         r"\(0: never pause\)\."),
        ("FORAGERS_REWARDED_SEND_PAYS_COST", "maybe", r"FORAGERS_REWARDED_SEND_PAYS_COST \('maybe'\) "
                                                      r"must be true or false\."),
        ("FORAGERS_LIBRARY_LOG_LEVEL", "LOUD", r"FORAGERS_LIBRARY_LOG_LEVEL \('LOUD'\) must be a log level: "
                                               r"DEBUG, INFO, WARNING, ERROR, CRITICAL\."),
        ("FORAGERS_LIBRARY_LOG_LEVEL", 10, r"FORAGERS_LIBRARY_LOG_LEVEL \(10\) must be a string\."),
    ],
)
def test_bad_values_name_the_setting_the_value_and_the_range(key, value, message):
    with pytest.raises(ValueError, match=message):
        ForagersConfig.from_settings({key: value})


# -- settings that catch mistakes (issue 14) ------------------------------------------------------


@pytest.mark.parametrize("key, suggestion", [
    ("FORAGERS_WEBLOG_SIZ", "FORAGERS_WEBLOG_SIZE"),
    ("FORAGERS_HOSTRATE", "FORAGERS_HOST_RATE"),
    ("FORAGERS_SCHEDULE_TRESHOLD", "FORAGERS_SCHEDULE_THRESHOLD"),
    ("foragers_min", "FORAGERS_MIN"),  # Scrapy settings are case-sensitive: a silent no-op otherwise
])
def test_an_unknown_key_names_the_closest_setting(key, suggestion):
    message = "^" + re.escape(f"{key} is not a newsforagers setting; did you mean {suggestion}?") + "$"
    with pytest.raises(ValueError, match=message):
        ForagersConfig.from_settings({key: "1"})
    # a Scrapy Settings object (what a crawl passes) is checked the same way
    with pytest.raises(ValueError, match=message):
        ForagersConfig.from_settings(Settings({key: "1", "FORAGERS_MIN": 2}))


def test_an_unknown_key_with_nothing_close_points_at_the_reference():
    with pytest.raises(ValueError, match=r"^FORAGERS_BANANA is not a newsforagers setting; "
                                         r"docs/settings.md lists them\.$"):
        ForagersConfig.from_settings({"FORAGERS_BANANA": 1})


def test_every_unknown_key_is_named_at_once():
    with pytest.raises(ValueError) as raised:
        ForagersConfig.from_settings({"FORAGERS_MAXX": 3, "FORAGERS_MINN": 1})
    assert str(raised.value) == ("FORAGERS_MAXX is not a newsforagers setting; did you mean FORAGERS_MAX? "
                                 "FORAGERS_MINN is not a newsforagers setting; did you mean FORAGERS_MIN?")


def test_the_add_on_s_settings_and_other_keys_are_not_mistakes():
    from newsforagers.addon import ForagersAddon

    settings = Settings({"BOT_NAME": "x", "NEWSFORAGERS_SCRAPY_SDIST_DIR": "/tmp"})
    ForagersAddon().update_settings(settings)  # every name of defaults.py, at add-on priority
    assert ForagersConfig.from_settings(settings) == ForagersConfig.from_settings({})


def test_every_foragers_key_the_repository_uses_is_a_setting():
    """Tests, benchmarks, docs and the package itself only name settings that exist: the
    unknown-key check would otherwise stop their crawls. The typos written on purpose, to test
    or show the error, are listed here."""
    deliberate = {"FORAGERS_WEBLOG_SIZ", "FORAGERS_HOSTRATE", "FORAGERS_HOST_RAT", "FORAGERS_SCHEDULE_TRESHOLD",
                  "FORAGERS_BANANA", "FORAGERS_MAXX", "FORAGERS_MINN"}
    from pathlib import Path

    from newsforagers.config import setting_names

    root = Path(__file__).resolve().parents[1]
    known = set(setting_names())
    used: dict[str, str] = {}
    for folder in ("newsforagers", "tests", "benchmarks", "docs"):
        for path in (root / folder).rglob("*"):
            if path.suffix not in (".py", ".md"):
                continue
            text = path.read_text(encoding="utf-8")
            for name in re.findall(r"\bFORAGERS_[A-Z0-9_]*[A-Z0-9]\b", text):
                if name not in deliberate:
                    used.setdefault(name, str(path.relative_to(root)))
    assert used, "the scan found no setting at all"
    assert {name: where for name, where in used.items() if name not in known} == {}


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"FORAGERS_REWARD": -5}, r"FORAGERS_REWARD \(-5.0\) must be > 0\."),
        ({"FORAGERS_REWARD": 0}, r"FORAGERS_REWARD \(0.0\) must be > 0\."),
        # with the cost also paid by rewarded sends, a novel document must still be a profit
        ({"FORAGERS_REWARD": 1}, r"FORAGERS_REWARD \(1.0\) must be more than FORAGERS_SEND_COST \(1.0\) "
                                 r"while FORAGERS_REWARDED_SEND_PAYS_COST is true"),
        ({"FORAGERS_SCORE_PER_SEND": 0.5},
         r"FORAGERS_SCORE_PER_SEND \(0.5\) must be <= 0 \(a send costs score"),
        ({"FORAGERS_SCORE_PER_REWARD": -1},
         r"FORAGERS_SCORE_PER_REWARD \(-1.0\) must be >= 0 and at least -FORAGERS_SCORE_PER_SEND \(0.05\)"),
        # +0.01 per reward with -0.05 per send: a rewarded send would still lower the score
        ({"FORAGERS_SCORE_PER_REWARD": 0.01}, r"FORAGERS_SCORE_PER_REWARD \(0.01\) must be >= 0 and at least"),
        ({"FORAGERS_ENERGY_INIT": 0}, r"FORAGERS_ENERGY_INIT \(0.0\) must be in \(0, 1\]"),
        ({"FORAGERS_ENERGY_INIT": -1}, r"FORAGERS_ENERGY_INIT \(-1.0\) must be in \(0, 1\]"),
        ({"FORAGERS_ENERGY_INIT": 2.5}, r"FORAGERS_ENERGY_INIT \(2.5\) must be in \(0, 1\]"),
        ({"FORAGERS_STORE": "sqlite:///"}, r"FORAGERS_STORE \('sqlite:///'\) must be a store URL"),
    ],
)
def test_values_whose_sign_makes_no_sense_are_refused(settings, message):
    with pytest.raises(ValueError, match=message):
        ForagersConfig.from_settings(settings)


@pytest.mark.parametrize("settings", [
    {"FORAGERS_REWARD": 1, "FORAGERS_REWARDED_SEND_PAYS_COST": False},  # Alg. 7: REWARD alone
    {"FORAGERS_REWARD": 1.5, "FORAGERS_SEND_COST": 1},
    {"FORAGERS_SCORE_PER_SEND": 0, "FORAGERS_SCORE_PER_REWARD": 0},  # a fixed population
    {"FORAGERS_SCORE_PER_REWARD": 0.05},
    {"FORAGERS_ENERGY_INIT": 1},
    {"FORAGERS_ENERGY_INIT": 0.25},
    {"FORAGERS_STORE": "memory://"},
])
def test_the_edges_of_the_new_ranges_are_accepted(settings):
    ForagersConfig.from_settings(settings)


def test_setting_errors_are_usage_errors():
    """What ``scrapy crawl`` reports as one line instead of a traceback (newsforagers.errors)."""
    from newsforagers.errors import ForagersUsageError

    for settings in ({"FORAGERS_WEBLOG_SIZ": 1}, {"FORAGERS_TD_GAMMA": 1}, {"FORAGERS_MIN": "two"}):
        with pytest.raises(ForagersUsageError):
            ForagersConfig.from_settings(settings)


def test_every_setting_is_in_the_settings_reference():
    from pathlib import Path

    from newsforagers.config import setting_names

    reference = (Path(__file__).resolve().parents[1] / "docs" / "settings.md").read_text()
    assert [name for name in setting_names() if f"| `{name}` |" not in reference] == []


# -- the original energy model (issue 20) --------------------------------------------------------


def test_the_energy_model_and_rho_default_to_the_sigmoid_and_one():
    config = ForagersConfig.from_settings({})
    assert (config.energy_model, config.energy_rho) == ("sigmoid", 1.0)
    config = ForagersConfig.from_settings(Settings({"FORAGERS_ENERGY_MODEL": "original",
                                                    "FORAGERS_ENERGY_RHO": "2.5"}))
    assert (config.energy_model, config.energy_rho) == ("original", 2.5)


@pytest.mark.parametrize("settings, message", [
    ({"FORAGERS_ENERGY_MODEL": "x"}, "FORAGERS_ENERGY_MODEL ('x') must be 'sigmoid' or 'original'."),
    ({"FORAGERS_ENERGY_RHO": 0}, "FORAGERS_ENERGY_RHO (0.0) must be > 0."),
    ({"FORAGERS_ENERGY_RHO": -2}, "FORAGERS_ENERGY_RHO (-2.0) must be > 0."),
    ({"FORAGERS_ENERGY_RHO": "inf"}, "FORAGERS_ENERGY_RHO ('inf') must be a finite float."),
])
def test_the_energy_model_and_rho_are_validated(settings, message):
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        ForagersConfig.from_settings(settings)


def test_the_energy_split_and_bounds_default_to_the_printed_and_strict():
    config = ForagersConfig.from_settings({})
    assert (config.energy_split, config.energy_bounds) == ("printed", "strict")
    config = ForagersConfig.from_settings(Settings({"FORAGERS_ENERGY_SPLIT": "shared",
                                                    "FORAGERS_ENERGY_BOUNDS": "paper"}))
    assert (config.energy_split, config.energy_bounds) == ("shared", "paper")


@pytest.mark.parametrize("settings, message", [
    ({"FORAGERS_ENERGY_SPLIT": "half"}, "FORAGERS_ENERGY_SPLIT ('half') must be 'printed' (Alg. 2 "
     "as printed) or 'shared' (Alg. 1: the clones share E)."),
    ({"FORAGERS_ENERGY_BOUNDS": "loose"}, "FORAGERS_ENERGY_BOUNDS ('loose') must be 'strict' (the "
     "population stays in [LB, UB]) or 'paper' (Alg. 2: it may pass UB)."),
])
def test_the_energy_split_and_bounds_are_validated(settings, message):
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        ForagersConfig.from_settings(settings)
