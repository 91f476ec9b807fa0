"""bench/probes.py runs end to end and reports each agent's figures."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from compoworld.scoring import PROBES

BENCH = Path(__file__).parents[2] / "bench"


@pytest.mark.slow
def test_probes_benchmark_json() -> None:
    result = subprocess.run([sys.executable, str(BENCH / "probes.py"), "--tasks", "4", "--json"],
                            capture_output=True, text=True, timeout=300, check=True)
    report = json.loads(result.stdout)
    for block in ("tasks", "answer_variants"):
        agents = {a["agent"]: a for a in report[block]["agents"]}
        assert list(agents) == ["oracle", *(f"probe-{p.kind}" for p in PROBES)]
        if report[block]["n"]:
            assert agents["oracle"]["full_completion"] == 1.0
            assert all(a["full_completion"] == 0.0 for name, a in agents.items() if name != "oracle")
