"""The dashboard names its store without the password, whatever characters it holds (issue 29,
row 2: the masking stopped at the first "/", "?" or "#" and every page's header showed the
rest)."""

from __future__ import annotations

import pytest

pytest.importorskip("flask")

from newsforagers.web import create_app  # noqa: E402

PASSWORDS = ["s3cret/PW9", "s3c#r3t", "pa5?sXq", "p4@ss@w0rd"]


@pytest.mark.parametrize("password", PASSWORDS)
def test_no_page_shows_the_store_s_password(tmp_path, password, monkeypatch):
    monkeypatch.setattr("newsforagers.store._EXISTING_RETRY", 0.1)  # (a dead server: no waiting)
    store = f"redis://:{password}@127.0.0.1:1/0"  # nobody answers there: every page says so
    client = create_app(store, runs_base=tmp_path / "runs").test_client()
    for page in ("/", "/latest", "/colony", "/search?q=harbour", "/api/latest", "/api/colony",
                 "/api/search?q=harbour"):
        text = client.get(page).get_data(as_text=True)
        pieces = {password, *(part for part in password.replace("#", "/").replace("@", "/").split("/")
                              if len(part) > 2)}
        assert not [piece for piece in pieces if piece in text], (page, text[:500])
    assert "redis://:***@127.0.0.1:1/0" in client.get("/latest").get_data(as_text=True)
