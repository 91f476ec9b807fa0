"""``compoworld view``: tasks, trajectories and scores in a local web page, or exported."""

from __future__ import annotations

import time
import webbrowser
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from compoworld.view import build_bundle, export_viewer, serve

console = Console(stderr=True)


def view(
    files: Annotated[list[Path], typer.Argument(
        help="Tasks, rollouts and scored JSONL files (compoworld generate, rollout, score).")],
    export: Annotated[Path | None, typer.Option(
        "--export", help="Write the viewer as static files to this folder instead of serving.")] = None,
    port: Annotated[int, typer.Option(help="Port (0: a free one).")] = 0,
    host: Annotated[str, typer.Option(help="Interface to serve on.")] = "127.0.0.1",
    open_browser: Annotated[bool, typer.Option(
        "--open/--no-open", help="Open the page in a browser.")] = True,
) -> None:
    """Browse tasks, trajectories and their verdicts in a local web page."""
    start = time.perf_counter()
    bundle = build_bundle(files)
    summary = bundle.index["summary"]
    console.print(f"{summary['tasks']} tasks, {summary['runs']} trajectories ({summary['scored']} scored) "
                  f"from {len(files)} file(s), indexed in {time.perf_counter() - start:.1f}s",
                  highlight=False, soft_wrap=True)
    for source in bundle.sources:
        for note in source.notes:
            console.print(f"[yellow]note:[/] {note}", highlight=False, soft_wrap=True)
    if export is not None:
        page = export_viewer(bundle, export)
        console.print(f"wrote {page} (opens from disk, no server needed)", highlight=False, soft_wrap=True)
        return

    def ready(url: str) -> None:
        console.print(f"serving on [bold]{url}[/] (Ctrl-C to stop)", highlight=False, soft_wrap=True)
        if open_browser:
            webbrowser.open(url)

    serve(bundle, host=host, port=port, ready=ready)
