"""Training smoke-run benchmark: wall time, CPU time and peak memory of the CPU recipes.

Each recipe runs as ``compoworld train <kind> --config recipes/<kind>-cpu-smollm2.yaml`` in its
own process (data made on the embedded defaults, the bundled SmolLM2-135M-Instruct, a few
steps), so each peak-memory figure is that run's alone. On a shared machine the wall time
depends on the load; the CPU time (user + system of the run) much less, so both are shown.

    python bench/train.py                 # a table
    python bench/train.py --json          # one JSON object
    python bench/train.py --only grpo --max-steps 1
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
_MAIN = "import sys; from compoworld.cli import main; sys.argv = ['compoworld', *sys.argv[1:]]; main()"


def run(kind: str, max_steps: int | None, out: Path) -> dict[str, Any]:
    """One recipe in a child process; its figures."""
    config = ROOT / "recipes" / f"{kind}-cpu-smollm2.yaml"
    command = [sys.executable, "-c", _MAIN, "train", kind, "--config", str(config), "--out", str(out)]
    if max_steps is not None:
        command += ["--max-steps", str(max_steps)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{kind} run failed ({result.returncode}):\n{result.stderr[-3000:]}")
    summary = json.loads((out / "run.json").read_text())
    history = [json.loads(line) for line in (out / "log_history.jsonl").read_text().splitlines()]
    steps = [e for e in history if "loss" in e]
    return {
        "recipe": config.name,
        "steps": len(steps),
        "process_wall_s": round(wall, 1),
        "train_s": summary["train_s"],
        "cpu_s": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 1),
        "peak_rss_mb": summary["peak_rss_mb"],
        "last_loss": steps[-1].get("loss") if steps else None,
        "last_reward": steps[-1].get("reward") if steps else None,
        "load_avg_1m_before": round(load_before, 2),
        "plot": str(out / "curves.png"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--only", choices=["sft", "grpo"], help="run one recipe")
    parser.add_argument("--max-steps", type=int, default=None, help="override the recipes' max_steps")
    parser.add_argument("--out", type=Path, default=None, help="keep the runs' files here")
    args = parser.parse_args()
    base = args.out or Path(tempfile.mkdtemp(prefix="compoworld-bench-train-"))
    kinds = [args.only] if args.only else ["sft", "grpo"]
    report: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform()},
        "runs": {kind: run(kind, args.max_steps, base / kind) for kind in kinds},
        "load_avg_1m_after": round(os.getloadavg()[0], 2),
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{'run':<6}{'steps':>6}{'wall s':>9}{'train s':>9}{'CPU s':>8}{'peak RSS MB':>13}"
          f"{'load':>7}  plot")
    for kind, r in report["runs"].items():
        print(f"{kind:<6}{r['steps']:>6}{r['process_wall_s']:>9}{r['train_s']:>9}{r['cpu_s']:>8}"
              f"{r['peak_rss_mb']:>13}{r['load_avg_1m_before']:>7}  {r['plot']}")
    print(f"({report['machine']['cpus']} CPUs; wall time grows with the machine's load, CPU time "
          "much less)")


if __name__ == "__main__":
    main()
