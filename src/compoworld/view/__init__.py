"""The viewer: tasks, trajectories and scores in a local web page (``compoworld view``).

Python reads the files and indexes them (:func:`build_bundle`); the page, plain HTML and one
bundled script with no network access, renders what it is sent. :func:`serve` serves it on
127.0.0.1; :func:`export_viewer` writes the same page and data as static files that open from
disk. See docs/viewer.md.

Example:
    >>> bundle = build_bundle(["out/demo/tasks.jsonl", "out/demo/scored.jsonl"])  # doctest: +SKIP
    >>> export_viewer(bundle, "out/view")  # doctest: +SKIP
"""

from compoworld.view._bundle import CHUNKS, Bundle, build_bundle
from compoworld.view._files import Source, read_source
from compoworld.view._site import export_viewer, serve

__all__ = ["CHUNKS", "Bundle", "Source", "build_bundle", "export_viewer", "read_source", "serve"]
