"""The runtime benchmark runs end to end and reports every figure (no timing is asserted here:
figures are measurements, read them in the benchmark's output)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parent.parent / "bench" / "runtime.py"


@pytest.mark.slow
def test_runtime_benchmark_quick_json():
    result = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--no-peer", "--json"],
        capture_output=True, text=True, timeout=300, check=True,
    )
    report = json.loads(result.stdout)
    assert set(report["targets"]) == {"read_calls_per_s", "reset_us", "new_instance_us",
                                      "reset_speedup_vs_baseline", "memory_per_instance_mb"}
    for target in report["targets"].values():
        assert target["value"] > 0 and isinstance(target["pass"], bool)
    assert report["compoworld"]["read"]["success_rate"] == 1.0
    assert report["compoworld"]["write"]["success_rate"] == 1.0
    assert set(report["world"]["services"]) >= {"contacts", "mail", "calendar", "crm",
                                                 "payments", "tasks"}


@pytest.mark.slow
def test_simulate_benchmark_json():
    result = subprocess.run(
        [sys.executable, str(BENCH.parent / "simulate.py"), "--per-tool", "3", "--json"],
        capture_output=True, text=True, timeout=300, check=True,
    )
    report = json.loads(result.stdout)
    assert report["schema_valid"] == 1.0 and report["environment_errors"] == 0
    assert report["group_cache_hit_rate"] == 1.0 and report["group_identical_answers"] is True
    assert report["tools"] >= 100 and report["calls_per_s_generated"] > 0


@pytest.mark.slow
def test_fuzz_benchmark_json():
    result = subprocess.run(
        [sys.executable, str(BENCH.parent / "fuzz.py"), "--calls", "600", "--mcp-calls", "80",
         "--json"], capture_output=True, text=True, timeout=600, check=True,
    )
    report = json.loads(result.stdout)
    assert report["passed"] is True and report["problems"] == []
    for part, calls in (("environment", 600), ("mcp", 80)):
        assert sum(report[part]["by_code"].values()) == calls
        assert report[part]["by_code"].get("400", 0) > calls / 2
        assert "500" not in report[part]["by_code"]


def test_full_catalog_benchmark_json(tmp_path):
    """On the embedded catalog (a folder of specs the built-in catalog already has), small."""
    compiled = Path(__file__).parent.parent / "src" / "compoworld" / "catalog" / "compiled"
    result = subprocess.run(
        [sys.executable, str(BENCH.parent / "full_catalog.py"), "--catalog", str(compiled),
         "--tasks", "12", "--workers", "1", "--worlds", "3", "--rollouts", "3",
         "--cache", str(tmp_path / "cache"), "--json"],
        capture_output=True, text=True, timeout=1200, check=True,
    )
    report = json.loads(result.stdout)
    assert set(report["figures"]) == set(report["targets"]) == set(report["met"])
    assert report["generate"]["tasks"] == 12 and 0 < report["figures"]["coverage"] <= 1
    assert report["rollouts"]["oracle_full_completion"] == 3
    assert report["cold_startup"]["tools"] == report["warm_startup"]["tools"] > 0
    assert list((tmp_path / "cache" / "images").glob("*.sqlite"))


def test_scenarios_benchmark_counts_people_by_identity_across_worlds(monkeypatch):
    import importlib.util

    monkeypatch.syspath_prepend(str(BENCH.parent))  # as `python bench/scenarios.py` has it

    from compoworld.tasks import Labels, Task
    from compoworld.types import Pool

    spec = importlib.util.spec_from_file_location("scenarios_bench", BENCH.parent / "scenarios.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)

    def task(seed: int, text: str) -> Task:
        return Task(id=f"t{seed}", seed=seed, involved=["contacts"], distractors=[],
                    interface="direct", today="2026-03-02", system_prompt="", instruction=text,
                    plan=[], rubric=[], labels=Labels(domain="people", capabilities=[],
                                                      services=["contacts"]),
                    verification={}, provenance={})

    a, b = Pool(101), Pool(202)
    tasks = [task(101, f"Write to {a.people[0].name}."),
             task(101, f"Mail {a.people[0].email} and {a.people[1].name}."),
             task(202, f"Call {b.people[0].name} at {b.people[0].company.name}."),
             task(202, f"Also {a.people[0].name}, who is not in this world."),
             task(202, f"Ask {b.user.name}, the user, who asks every task.")]
    figures = bench._mentions(tasks)
    assert figures["worlds"] == 2
    assert figures["max_person_share"] == round(2 / 5, 3)  # a's first person, by name and email
    assert figures["max_person_name_share"] >= figures["max_person_share"]
    assert figures["max_company_share"] >= round(1 / 5, 3)


def test_fidelity_bfcl_benchmark_on_recorded_real_outputs(tmp_path):
    """``bench/fidelity_bfcl.py`` end to end on the committed recording of bfcl-eval's
    TradingBot (``tests/compiler/bfcl_trading_recorded.json``): the summary and the file
    ``catalog build --fidelity`` reads agree."""
    recorded = Path(__file__).parent / "compiler" / "bfcl_trading_recorded.json"
    out = tmp_path / "fidelity.json"
    result = subprocess.run(
        [sys.executable, str(BENCH.parent / "fidelity_bfcl.py"), "--recorded", str(recorded),
         "--json", "--out", str(out)], capture_output=True, text=True, timeout=300, check=True,
    )
    report = json.loads(result.stdout)
    summary = report["summary"]
    assert summary["services"] == 1 and summary["entries"] == 6 and summary["tools_run"] == 12
    assert summary["tools_measured"] + summary["unmeasured"] == summary["tools_run"]
    assert summary["faithful"] + summary["moved_to_simulated"] == summary["tools_measured"]
    assert report["planted"]["TradingBot"]["stocks"] > 0
    written = json.loads(out.read_text())
    assert written["summary"] == summary
    rows = written["servers"]["trading_bot"]
    assert sum(r["verdict"] == "unfaithful" for r in rows.values()) == summary["moved_to_simulated"]
