"""``compoworld catalog build | stats | plot | audit`` and ``specs harvest-mcp`` from the CLI."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compoworld.cli import app

SPECS = Path(__file__).parent / "compiler" / "build_specs"
runner = CliRunner()


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "catalog"
    result = runner.invoke(app, ["catalog", "build", "--source", str(SPECS), "--out", str(out),
                                 "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "2 failed" in result.output and "(6 selected)" in result.output
    again = runner.invoke(app, ["catalog", "build", "--source", str(SPECS), "--out", str(out),
                                "--workers", "1"])
    assert again.exit_code == 0 and "6 already done" in again.output
    return out


def test_stats_json_has_the_headline_keys(catalog: Path):
    result = runner.invoke(app, ["catalog", "stats", "--catalog", str(catalog), "--json"])
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)
    assert {"services", "tools", "implemented", "simulated", "domains"} <= set(stats)
    assert stats["implemented"] + stats["simulated"] == stats["tools"] > 0
    table = runner.invoke(app, ["catalog", "stats", "--catalog", str(catalog)])
    assert table.exit_code == 0 and "implemented share" in table.stdout


def test_audit_rows_name_spec_line_op_and_rule(catalog: Path):
    result = runner.invoke(app, ["catalog", "audit", "--catalog", str(catalog), "--sample", "5",
                                 "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert len(rows) == 5 and len({(r["service"], r["tool"]) for r in rows}) == 5
    for row in rows:
        method = row["spec_line"].split(" ", 1)[0]  # the gate (50%) keeps only OpenAPI ones here
        assert method in ("GET", "POST", "PUT", "PATCH", "DELETE")
        assert row["rule"] if row["implemented"] else row["reason"]
    again = runner.invoke(app, ["catalog", "audit", "--catalog", str(catalog), "--sample", "5",
                                "--seed", "1", "--json"])
    assert json.loads(again.stdout) == rows


def test_plot_writes_a_png(catalog: Path, tmp_path: Path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "domains.png"
    result = runner.invoke(app, ["catalog", "plot", "--catalog", str(catalog), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_bad_input_is_a_user_error(tmp_path: Path):
    result = runner.invoke(app, ["catalog", "stats", "--catalog", str(tmp_path)])
    assert result.exit_code != 0 and "not a catalog" in str(result.exception)
    result = runner.invoke(app, ["specs", "harvest-mcp", "--env", "NOEQUALS", "--", "true"])
    assert result.exit_code != 0 and "KEY=VALUE" in str(result.exception)
    result = runner.invoke(app, ["catalog", "build", "--subset", "everything"])
    assert result.exit_code != 0 and "only subset" in str(result.exception)


def test_a_build_where_every_spec_failed_exits_1(tmp_path: Path):
    source = tmp_path / "specs"
    source.mkdir()
    for name in ("malformed.json", "notaspec.json"):
        (source / name).write_bytes((SPECS / name).read_bytes())
    out = tmp_path / "catalog"
    args = ["catalog", "build", "--source", str(source), "--out", str(out), "--workers", "1"]
    first = runner.invoke(app, args)
    assert first.exit_code == 1, first.output
    assert "holds no service" in " ".join(first.output.split())
    assert runner.invoke(app, args).exit_code == 1  # the rerun too (failures recorded)
