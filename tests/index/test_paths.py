"""Where a store's index lives when nobody says."""

from pathlib import Path

import pytest

from newsforagers.index import default_index_path


def test_an_sqlite_store_s_index_is_beside_it():
    assert default_index_path("sqlite:///.newsforagers/colony.db", "p:") == Path(".newsforagers/colony.index.sqlite")
    assert default_index_path("sqlite:////srv/news/colony.db", "p:") == Path("/srv/news/colony.index.sqlite")
    assert default_index_path("sqlite:///colony", "p:") == Path("colony.index.sqlite")


def test_a_redis_store_s_index_is_named_from_server_db_and_prefix_without_password():
    path = default_index_path("redis://:s3cret@cache.local:6380/2", "newsforagers:")
    assert path.parent == Path(".newsforagers/index")
    assert path.name.startswith("redis-cache.local-6380-2-newsforagers-") and path.name.endswith(".index.sqlite")
    assert "s3cret" not in str(path)
    assert default_index_path("redis://user:pw@h/0", "x").name.startswith("redis-h-6379-0-x-")
    # two colonies on one server (two prefixes) never share an index, even when they read alike
    names = {default_index_path("redis://h:6379/0", prefix) for prefix in ("a:", "a_", "a/", "b:")}
    assert len(names) == 4
    assert default_index_path("rediss://h:6379/0", "a:") != default_index_path("redis://h:6379/0", "a:")


def test_a_memory_store_s_index_is_a_file_of_its_own():
    assert default_index_path("memory://", "p:") == Path(".newsforagers/index/memory.index.sqlite")
    assert default_index_path("memory://test", "p:") == Path(".newsforagers/index/memory-test.index.sqlite")


@pytest.mark.parametrize("url", ["nonsense", "sqlite:///", "ftp://x/y", "redis://h:port/0"])
def test_a_bad_store_url_is_an_error(url):
    with pytest.raises(ValueError):
        default_index_path(url, "p:")
