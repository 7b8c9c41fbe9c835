"""The commands that read a store never print its password (issue 29, rows 1–3): in any error,
whatever characters it holds; and a password kept off the command line (``--password-file``,
$NEWSFORAGERS_STORE_PASSWORD, ~/.netrc) reaches the store."""

from __future__ import annotations

import subprocess
import sys

import pytest

PASSWORDS = ["s3cretPW", "s3cret/PW", "s3c#ret", "s3c@r@et"]


def newsforagers(*args, cwd, env=None):
    import os

    return subprocess.run([sys.executable, "-m", "newsforagers.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=60, env={**os.environ, **(env or {})})


@pytest.mark.parametrize("password", PASSWORDS)
def test_no_error_shows_the_password(tmp_path, password, monkeypatch, capsys):
    from newsforagers import cli

    monkeypatch.setattr("newsforagers.store._EXISTING_RETRY", 0.1)  # (a dead server: no waiting)
    monkeypatch.chdir(tmp_path)
    store = f"redis://:{password}@127.0.0.1:1/0"  # nothing listens there
    for args in (["search", "oil", "--store", store],  # row 1: before any index exists
                 ["status", "--store", store], ["export", "--store", store], ["index", "--store", store]):
        assert cli.main(args) == 2, args
        captured = capsys.readouterr()
        text = captured.out + captured.err
        assert "s3c" not in text and "PW" not in text.replace("PASSWORD", ""), (args, text)
        assert "Traceback" not in text and "redis://:***@127.0.0.1:1/0" in text, (args, text)


def test_a_password_kept_off_the_command_line_reaches_the_store(tmp_path, redis_server_with_password):
    server = redis_server_with_password
    store = f"redis://127.0.0.1:{server.port}/0"
    from newsforagers.store import DocumentRecord, open_store
    from tests.outputs import output

    writer = open_store(server.url)
    assert output(writer, ["url:1"], DocumentRecord("http://s/1", "t", "", "", "f1", 100.0))
    writer.close()
    # without a password: refused by the server, said in one line without any secret
    run = newsforagers("export", "--store", store, cwd=tmp_path, env={"HOME": str(tmp_path)})
    assert run.returncode == 2 and "refused to let this client in" in run.stderr, run.stderr
    secret = tmp_path / "redis.pass"
    secret.write_text(server.password + "\n")
    secret.chmod(0o644)
    run = newsforagers("export", "--store", store, "--password-file", str(secret), cwd=tmp_path,
                       env={"HOME": str(tmp_path)})
    assert run.returncode == 2 and "may be read by others" in run.stderr and server.password not in run.stderr
    secret.chmod(0o600)
    for how in (["--password-file", str(secret)], []):
        env = {"HOME": str(tmp_path)} if how else {"HOME": str(tmp_path),
                                                   "NEWSFORAGERS_STORE_PASSWORD": server.password}
        run = newsforagers("export", "--store", store, *how, cwd=tmp_path, env=env)
        assert run.returncode == 0 and '"http://s/1"' in run.stdout, run.stderr
    netrc = tmp_path / ".netrc"
    netrc.write_text(f"machine 127.0.0.1 login forager password not-the-store-s\n"
                     f"machine 127.0.0.1:{server.port} login default password {server.password}\n")
    netrc.chmod(0o600)
    run = newsforagers("export", "--store", store, cwd=tmp_path, env={"HOME": str(tmp_path)})
    assert run.returncode == 0 and '"http://s/1"' in run.stdout, run.stderr


@pytest.fixture
def redis_server_with_password(tmp_path_factory):
    from tests.redis_server import start_server

    server = start_server(tmp_path_factory.mktemp("redis"), password="s3c/ret#pw")
    yield server
    server.stop()
