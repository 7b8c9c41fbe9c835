"""Where a store's password comes from (the URL, a password file readable by its owner only,
$NEWSFORAGERS_STORE_PASSWORD, ~/.netrc), and that no message shows it, whatever its characters
(issue 29, rows 1–3)."""

from __future__ import annotations

import pytest

from newsforagers.errors import ForagersUsageError, hide_secrets, mask_password, url_secrets
from newsforagers.store import open_store
from newsforagers.store.secrets import (
    PASSWORD_ENV,
    read_password_file,
    split_password,
    store_credentials,
    without_password,
)

# passwords a scan for the end of the authority ("/", "?", "#") cut short, or an "@" fooled
AWKWARD = ["s3cret/PW", "s3c#ret", "a?b=c", "p@ss@word", "co:lon", "%2Fquoted"]


@pytest.mark.parametrize("password", AWKWARD)
def test_masking_parses_the_url_and_hides_any_password(password):
    url = f"redis://:{password}@redis.internal:6379/0"
    masked = mask_password(url)
    assert masked == "redis://:***@redis.internal:6379/0"
    assert password in url_secrets(url)
    assert hide_secrets(f"cannot reach {url} ({password})", url) == \
        "cannot reach redis://:***@redis.internal:6379/0 (***)"
    bare, user, found = split_password(f"rediss://user:{password}@h:1/2")
    assert (bare, user) == ("rediss://user@h:1/2", "user")
    assert found == password.replace("%2F", "/")  # decoded, as redis-py would


def test_what_is_no_password_stays_as_it_was():
    for url in ("sqlite:///tmp/a@b:c.db", "redis://127.0.0.1:6379/0", "memory://", "not a url"):
        assert mask_password(url) == url and url_secrets(url) == set()
    assert mask_password("redis://h/0?password=pw&db=1#x") == "redis://h/0?password=***&db=1#x"
    assert url_secrets("redis://h/0?password=p%40w") == {"p%40w", "p@w"}
    assert mask_password("mysql://root:pw@db/x") == "mysql://root:***@db/x"  # any scheme with an authority
    assert without_password("redis://:pw@h:1/0") == "redis://h:1/0"


def private(path, text, mode=0o600):
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)
    return path


def test_the_password_comes_from_the_url_then_a_file_then_the_environment_then_netrc(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    private(tmp_path / ".netrc", "machine redis.internal:6379 login default password from-netrc\n"
                                 "machine other:1 login alice password alices\n"
                                 # a scrapyd node's entry, on the machine of a Redis without password
                                 "machine nodes.internal login forager password node-secret\n")
    url = "redis://redis.internal/0"  # (6379: the port Redis listens on unless told)
    assert store_credentials(url, environ={}).password == "from-netrc"
    assert store_credentials(url, environ={}).username is None  # Redis's default user
    assert store_credentials("redis://other:1/0", environ={}).username == "alice"
    # the host's other services' entries are not the store's
    assert store_credentials("redis://nodes.internal:6379/0", environ={}).password is None
    assert store_credentials(url, environ={PASSWORD_ENV: "from-env"}).password == "from-env"
    secret = private(tmp_path / "redis.pass", "from-file\nignored\n")
    found = store_credentials(url, str(secret), environ={PASSWORD_ENV: "from-env"})
    assert (found.password, found.source) == ("from-file", f"the file {secret}")
    assert "from-file" not in repr(found)
    assert store_credentials("redis://:from-url@redis.internal/0", str(secret)).password == "from-url"
    assert store_credentials("redis://nowhere.example/0", environ={}).password is None


@pytest.mark.parametrize("mode, problem", [(0o644, "may be read by others"), (0o640, "may be read by others")])
def test_a_password_file_others_may_read_is_refused(tmp_path, mode, problem):
    secret = private(tmp_path / "redis.pass", "hunter2\n", mode)
    with pytest.raises(ForagersUsageError, match=problem) as error:
        read_password_file(secret)
    assert "hunter2" not in str(error.value) and "chmod 600" in str(error.value)
    with pytest.raises(ForagersUsageError, match="cannot be read"):
        read_password_file(tmp_path / "missing")
    with pytest.raises(ForagersUsageError, match="holds no password"):
        read_password_file(private(tmp_path / "empty", "\n"))


def test_the_client_gets_the_password_apart_from_the_url(tmp_path):
    pytest.importorskip("redis")
    secret = private(tmp_path / "redis.pass", "s3cret/PW\n")
    store = open_store("redis://127.0.0.1:6379/0", password_file=str(secret))
    kwargs = store._client.connection_pool.connection_kwargs
    assert kwargs["password"] == "s3cret/PW" and kwargs["host"] == "127.0.0.1" and kwargs["port"] == 6379
    assert store.hide_password("AUTH s3cret/PW failed") == "AUTH *** failed"
    assert store.safe_url == "redis://127.0.0.1:6379/0"
    store.close()
    # a URL whose password holds "/" and "#" reaches the server as written, never on a page
    awkward = open_store("redis://:s3c#ret/PW@127.0.0.1:6380/2")
    kwargs = awkward._client.connection_pool.connection_kwargs
    assert (kwargs["password"], kwargs["port"], kwargs["db"]) == ("s3c#ret/PW", 6380, 2)
    assert awkward.safe_url == "redis://:***@127.0.0.1:6380/2"
    awkward.close()


def test_a_store_password_on_the_crawl_s_command_line_is_warned_about(caplog):
    """ps shows a crawl's command line to every user of the machine: one warning, the password
    masked, that says where to keep it instead (the crawl goes on: a colony in one process
    needs nothing more)."""
    import logging

    from scrapy.crawler import Crawler
    from scrapy.settings import Settings

    from newsforagers.errors import StoreUnavailable
    from newsforagers.spiders.forager import ForagerSpider
    from tests.needs import free_port

    settings = Settings()
    settings.setdict({"FORAGERS_STORE": f"redis://:s3c/ret@127.0.0.1:{free_port()}/0",
                      "FORAGERS_STORE_RETRY": 0}, priority="cmdline")
    with caplog.at_level(logging.WARNING), pytest.raises(StoreUnavailable) as error:
        ForagerSpider.from_crawler(Crawler(ForagerSpider, settings), seeds="http://127.0.0.1:9/")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING
                and "holds its password on the command line" in r.getMessage()]
    assert len(warnings) == 1 and "redis://:***@127.0.0.1" in warnings[0]
    assert "s3c" not in caplog.text and "s3c" not in str(error.value)
