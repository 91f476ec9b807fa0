"""bench/rewards.py runs and reports every figure (timings are read, never asserted)."""

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parents[2] / "bench"


def test_rewards_benchmark_json() -> None:
    result = subprocess.run([sys.executable, str(BENCH / "rewards.py"), "--groups", "200", "--runs", "2",
                             "--json"], capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(result.stdout)
    assert report["workload"] == {"groups": 200, "group_size": 8, "criteria": 20, "rollouts": 1600}
    assert set(report["seconds"]) == {"cfr", "uniform", "binary", "gdpo", "grpo_advantages",
                                      "dr_grpo_advantages"}
    assert report["pipeline_s"] > 0 and isinstance(report["target"]["pass"], bool)
    # CFR moves weight to the criteria the group fails, so its mean reward is lower
    assert 0 < report["mean_reward"]["cfr"] < report["mean_reward"]["uniform"] < 1
