"""The page's two ways out: a local server (stdlib, 127.0.0.1) and a folder of static files.

Both send the same bytes: the bundled assets under ``view/static/`` and the bundle's data
scripts under ``data/``. The server makes each data chunk when the page asks for it.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any

from compoworld.errors import UserError
from compoworld.view._bundle import Bundle

_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
          ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}


def _assets() -> dict[str, bytes]:
    root = resources.files("compoworld.view") / "static"
    return {item.name: item.read_bytes() for item in root.iterdir() if item.name[0] != "."}


def export_viewer(bundle: Bundle, out: str | Path) -> Path:
    """Write the viewer over ``bundle`` as static files; ``out/index.html`` opens from disk.

    Returns:
        The path of ``index.html``.

    Raises:
        UserError: ``out`` exists and is not a folder this function wrote (it is never
            emptied then).
    """
    out = Path(out)
    marker = out / ".compoworld-view"
    if out.exists() and any(out.iterdir()) and not marker.exists():
        raise UserError(f"{str(out)!r} exists and is not a viewer export; give an empty or new folder")
    if (out / "data").exists():
        shutil.rmtree(out / "data")
    out.mkdir(parents=True, exist_ok=True)
    marker.write_text("written by `compoworld view --export`\n")
    for name, data in _assets().items():
        (out / name).write_bytes(data)
    for name, data in bundle.data_files():
        path = out / "data" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return out / "index.html"


class _Handler(BaseHTTPRequestHandler):
    bundle: Bundle
    assets: dict[str, bytes]

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].split("#", 1)[0].lstrip("/") or "index.html"
        try:
            if path.startswith("data/") and path.endswith(".js"):
                body = self.bundle.script(path[len("data/"):-len(".js")])
            else:
                body = self.assets[path]
        except KeyError:
            self.send_error(404, f"no {path!r} in this viewer")
            return
        self.send_response(200)
        self.send_header("Content-Type", _TYPES.get(Path(path).suffix, "application/octet-stream"))
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the CLI says what matters
        pass


def serve(bundle: Bundle, *, host: str = "127.0.0.1", port: int = 0,
          ready: Callable[[str], None] | None = None, block: bool = True) -> ThreadingHTTPServer:
    """Serve the viewer over ``bundle`` (port 0: a free one).

    Args:
        bundle: What to show.
        host: Interface to bind (the default is this machine only).
        port: Port, or 0 for a free one.
        ready: Called with the page's URL once the server listens.
        block: Serve until interrupted; False serves on a daemon thread and returns at once
            (call ``shutdown()`` on the result to stop).

    Returns:
        The server (after it stopped, when ``block``).

    Raises:
        UserError: The port is taken.
    """
    handler = type("Handler", (_Handler,), {"bundle": bundle, "assets": _assets()})
    try:
        server = ThreadingHTTPServer((host, port), handler)
    except OSError as error:
        raise UserError(f"cannot listen on {host}:{port} ({error.strerror}); try --port 0") from None
    server.daemon_threads = True
    url = f"http://{host}:{server.server_address[1]}/"
    if ready is not None:
        ready(url)
    if not block:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return server
