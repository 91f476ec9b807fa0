from __future__ import annotations

import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from compoworld.cli import main


def run(monkeypatch: pytest.MonkeyPatch, *args: str) -> None:
    monkeypatch.setattr(sys, "argv", ["compoworld", "view", *args])
    try:
        main()
    except SystemExit as done:
        if done.code:
            raise


def test_export_writes_a_page_that_needs_no_server(files: dict[str, Path], tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "site"
    run(monkeypatch, str(files["tasks"]), str(files["scored"]), "--export", str(out))
    err = capsys.readouterr().err
    assert "3 tasks, 9 trajectories (9 scored)" in err and "index.html" in err
    assert {p.name for p in out.iterdir()} >= {"index.html", "app.js", "viewer.css", "data"}
    assert (out / "data" / "index.js").read_bytes().startswith(b'CW.receive("index",')
    page = (out / "index.html").read_text()
    assert "http" not in page.replace("http-equiv", "")  # nothing from the network
    # a second export replaces the first; a folder it did not write is refused
    run(monkeypatch, str(files["tasks"]), "--export", str(out))
    assert not (out / "data" / "runs").exists()
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    with pytest.raises(SystemExit) as exit_:
        run(monkeypatch, str(files["tasks"]), "--export", str(other))
    assert exit_.value.code == 2 and "is not a viewer export" in capsys.readouterr().err
    assert (other / "keep.txt").exists()


def test_a_file_of_another_kind_is_one_clear_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    sft = tmp_path / "sft.jsonl"
    sft.write_text('{"tools": [], "messages": [], "meta": {}}\n')
    with pytest.raises(SystemExit) as exit_:
        run(monkeypatch, str(sft), "--no-open")
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and "Traceback" not in err
    assert "holds SFT records (compoworld export sft); expected a tasks, rollouts or scored" in err


def test_serve_answers_on_localhost(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    from compoworld.view import _site

    servers = []
    real = _site.ThreadingHTTPServer

    def keep(*args, **kwargs):  # type: ignore[no-untyped-def]
        server = real(*args, **kwargs)
        servers.append(server)
        return server

    monkeypatch.setattr(_site, "ThreadingHTTPServer", keep)
    thread = threading.Thread(target=run, args=(monkeypatch, str(files["scored"]), "--no-open"), daemon=True)
    thread.start()
    for _ in range(200):
        if servers:
            break
        time.sleep(0.05)
    url = f"http://127.0.0.1:{servers[0].server_address[1]}/"
    try:
        with urllib.request.urlopen(url) as response:
            assert b"<title>CompoWorld viewer</title>" in response.read()
        with urllib.request.urlopen(url + "data/runs/0.js") as response:
            assert response.read().startswith(b'CW.receive("runs/0",')
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(url + "data/runs/7.js")
        assert missing.value.code == 404
    finally:
        servers[0].shutdown()
        thread.join(timeout=10)
    assert f"serving on {url}" in capsys.readouterr().err
