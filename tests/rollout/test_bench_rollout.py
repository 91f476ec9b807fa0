"""The rollout benchmark runs end to end and reports its figures (none asserted as targets)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parent.parent.parent / "bench" / "rollout.py"


@pytest.mark.slow
def test_rollout_benchmark_small_json() -> None:
    result = subprocess.run([sys.executable, str(BENCH), "--episodes", "64", "--no-local",
                             "--json"], capture_output=True, text=True, timeout=300, check=True)
    report = json.loads(result.stdout)
    oracle = report["oracle"]
    assert oracle["episodes"] == oracle["finished"] == oracle["concurrency"] == 64
    assert oracle["episodes_per_s"] > 0 and oracle["peak_rss_gb"] > 0
    assert report["local"] is None and set(report["targets"]) == {"peak_rss_gb"}
