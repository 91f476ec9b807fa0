"""The viewer on large files: 10,000 tasks and 10,000 scored trajectories.

Run from the repository root with the project's virtualenv::

    .venv/bin/python bench/view.py                    # table
    .venv/bin/python bench/view.py --json             # exactly one JSON object on stdout
    .venv/bin/python bench/view.py --out DIR          # keep the files (then `compoworld view DIR/*.jsonl`)
    .venv/bin/python bench/view.py --out DIR --reuse --no-export   # measure again on them

Generates ``--seed-tasks`` verified tasks and rolls each out with the oracle and the four
reward-hacking probes (real episodes, real scorer), then repeats them under new ids up to
``--tasks`` tasks and ``--trajectories`` scored trajectories (groups of five). Measures what a
user waits for: Python reading, validating and indexing the files (``build_bundle``), the
same again from the index kept in the cache (``reopen_s``), the export, and in headless
chromium (when installed) the page's first list, a filter keystroke, and opening a trajectory
and a task. A measurement, not a test: the exit code is 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from compoworld.rollout import OracleAgent, run_episode
from compoworld.scoring import PROBES, score_trajectories
from compoworld.tasks import generate_tasks
from compoworld.view import build_bundle, export_viewer, serve


def make_files(out: Path, n_tasks: int, n_runs: int, seed_tasks: int, seed: int) -> dict[str, Path]:
    tasks = list(generate_tasks(seed_tasks, seed=seed))
    agents = [OracleAgent(), *(probe() for probe in PROBES)]
    runs = [asyncio.run(run_episode(t, a, rollout_idx=i, timings=False))
            for t in tasks for i, a in enumerate(agents)]
    scored = [orjson.loads(s.model_dump_json()) for s in score_trajectories(tasks, runs)]
    base = [orjson.loads(t.model_dump_json()) for t in tasks]
    by_task: dict[str, list[dict[str, Any]]] = {}
    for s in scored:
        by_task.setdefault(s["task_id"], []).append(s)
    paths = {"tasks": out / "tasks.jsonl", "scored": out / "scored.jsonl"}
    with paths["tasks"].open("wb") as f_tasks, paths["scored"].open("wb") as f_scored:
        written = 0
        for k in range(n_tasks):
            task = dict(base[k % len(base)])
            original = task["id"]
            task["id"] = f"{original}-{k:05d}"
            f_tasks.write(orjson.dumps(task) + b"\n")
            for s in by_task[original]:
                if written >= n_runs:
                    break
                copy = dict(s, task_id=task["id"])
                copy["trajectory"] = dict(s["trajectory"], task_id=task["id"])
                f_scored.write(orjson.dumps(copy) + b"\n")
                written += 1
    return paths


def browser_figures(bundle: Any) -> dict[str, float] | None:
    executable = next(filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        return None
    if executable is None:
        return None
    server = serve(bundle, port=0, block=False)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    figures: dict[str, float] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            n = len(bundle.tasks)
            start = time.perf_counter()
            page.goto(url + "#/tasks")
            expect(page.locator(".filters .count")).to_have_text(f"{n:,} of {n:,} tasks", timeout=120_000)
            figures["first_list_s"] = time.perf_counter() - start
            figures["js_heap_mb"] = page.evaluate(
                "performance.memory ? performance.memory.usedJSHeapSize / 1e6 : 0")
            box = page.get_by_placeholder("search id, instruction, service")
            start = time.perf_counter()
            box.fill(bundle.index["tasks"][-1]["id"])
            expect(page.locator(".filters .count")).to_have_text(f"1 of {n:,} tasks", timeout=60_000)
            figures["filter_tasks_s"] = time.perf_counter() - start  # includes the 80 ms debounce
            page.goto(url + "#/runs")
            m = len(bundle.runs)
            expect(page.locator(".filters .count")).to_have_text(f"{m:,} of {m:,} trajectories")
            start = time.perf_counter()
            page.locator("select[data-filter=outcome]").select_option("failed")
            expect(page.locator(".filters .count")).not_to_have_text(f"{m:,} of {m:,} trajectories")
            figures["filter_runs_s"] = time.perf_counter() - start
            start = time.perf_counter()
            page.goto(url + f"#/run/{m - 1}")
            expect(page.locator("ul.verdicts li").first).to_be_visible(timeout=60_000)
            figures["open_trajectory_s"] = time.perf_counter() - start
            start = time.perf_counter()
            page.goto(url + "#/task/" + bundle.index["tasks"][-1]["id"])
            expect(page.locator(".step").first).to_be_visible(timeout=60_000)
            figures["open_task_s"] = time.perf_counter() - start
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return {k: round(v, 3) for k, v in figures.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CompoWorld viewer on large files.")
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--trajectories", type=int, default=10_000)
    parser.add_argument("--seed-tasks", type=int, default=20, help="real tasks the files repeat")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="keep the files here")
    parser.add_argument("--reuse", action="store_true", help="keep the files already in --out")
    parser.add_argument("--no-export", action="store_true")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="compoworld-view-bench-"))
    out.mkdir(parents=True, exist_ok=True)
    paths = {"tasks": out / "tasks.jsonl", "scored": out / "scored.jsonl"}
    if not (args.reuse and all(p.exists() for p in paths.values())):
        paths = make_files(out, args.tasks, args.trajectories, args.seed_tasks, args.seed)
    cpu, start = time.process_time(), time.perf_counter()
    bundle = build_bundle([paths["tasks"], paths["scored"]])
    report: dict[str, Any] = {
        "tasks": len(bundle.tasks), "trajectories": len(bundle.runs),
        "file_mb": {k: round(p.stat().st_size / 1e6, 1) for k, p in paths.items()},
        "index_s": round(time.perf_counter() - start, 2), "index_cpu_s": round(time.process_time() - cpu, 2),
        "index_js_mb": round(len(bundle.script("index")) / 1e6, 2),
    }
    cpu, start = time.process_time(), time.perf_counter()
    bundle = build_bundle([paths["tasks"], paths["scored"]])  # the second time, from the kept index
    report["reopen_s"] = round(time.perf_counter() - start, 2)
    report["reopen_cpu_s"] = round(time.process_time() - cpu, 2)
    report["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3)
    if not args.no_export:
        cpu, start = time.process_time(), time.perf_counter()
        site = export_viewer(bundle, out / "site").parent
        report["export_s"] = round(time.perf_counter() - start, 2)
        report["export_cpu_s"] = round(time.process_time() - cpu, 2)
        report["export_mb"] = round(sum(f.stat().st_size for f in site.rglob("*") if f.is_file()) / 1e6, 1)
    if not args.no_browser:
        report["browser"] = browser_figures(bundle)
    if not args.out:
        shutil.rmtree(out)
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:>14}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
