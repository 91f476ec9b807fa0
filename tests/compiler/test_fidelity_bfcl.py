"""``bench/fidelity_bfcl.py``: bfcl-eval's ground-truth sequences on the real backends against
the compiled services, and the measurements reaching the catalog's records.

``bfcl_trading_recorded.json`` holds real outputs: the first 6 ``BFCL_v4_multi_turn_base``
entries using only ``TradingBot``, run through bfcl's own multi-turn path by
``bench/_peer_bfcl_replay.py --classes TradingBot --limit 6`` in the peer venv (bfcl-eval
2026.3.23, as its ``provenance`` says). The slow test runs the real backend itself.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "bench"))

from _peer import DEFAULT_PEER_VENV, peer_python
from compoworld.compiler._build import build_catalog
from compoworld.compiler._fidelity import read_fidelity
from compoworld.errors import UserError
from compoworld.service import Environment, build_service
from fidelity_bfcl import compile_backends, load_state, real_outputs, replay

RECORDED = Path(__file__).parent / "bfcl_trading_recorded.json"


def _measure(recording: dict[str, Any], start: str) -> dict[str, dict[str, Any]]:
    specs = compile_backends(recording["docs"], seed=0)
    return replay(recording, specs, start=start, seed=0, least=0.8)["per_service"][
        "trading_bot"]


def test_recorded_sequences_agree_only_where_the_compiled_state_holds_the_real_one() -> None:
    recording = json.loads(RECORDED.read_text())
    assert recording["provenance"]["version"] == "2026.3.23"
    loaded, empty = _measure(recording, "loaded"), _measure(recording, "empty")
    # every recorded call of an implemented tool is counted once, in one outcome
    calls = sum(1 for e in recording["entries"] for c in e["calls"] if c["tool"] in loaded)
    assert sum(r["calls"] for r in loaded.values()) == calls
    for row in loaded.values():
        assert row["calls"] == (row["both_ok"] + row["ours_only"] + row["real_only"]
                                + row["both_refused"])
    # the market's stocks are planted from the real config ({"NVDA": {...}}: the key is the
    # symbol): reads of a stock agree; from an empty state the real one answers alone
    assert loaded["get_stock_info"]["both_ok"] == loaded["get_stock_info"]["calls"] > 0
    assert loaded["get_stock_info"]["verdict"] == "faithful"
    assert loaded["get_stock_info"]["values"] == 1.0  # the real prices, read back
    assert empty["get_stock_info"]["real_only"] == empty["get_stock_info"]["calls"]
    assert empty["get_stock_info"]["verdict"] == "unfaithful"
    # an order id the real side numbered (12446, from its order counter) names no order the
    # compiled side made: taken as an integer, then not found
    assert loaded["get_order_details"]["real_only"] > 0
    assert loaded["get_order_details"]["verdict"] == "unfaithful"
    # the watchlist of the config (["NVDA", "OMEG", "ZETA"]) is planted as its entries, and
    # removing ZETA takes it out of the watchlist (never the stock off the market)
    assert loaded["remove_stock_from_watchlist"]["both_ok"] == 1
    assert loaded["remove_stock_from_watchlist"]["verdict"] == "faithful"
    # a tool no recorded call reaches is unmeasured, never faithful
    assert loaded["get_order_history"]["agreement"] is None
    assert loaded["get_order_history"]["verdict"] == "unmeasured"


def test_loaded_start_plants_each_record_with_the_values_its_entity_takes() -> None:
    # multi_turn_base_48's real tickets: priority "High" where the docs declare an integer;
    # the ticket is planted without it, not left out
    lines = (Path(__file__).parent / "specs" / "bfcl_ticket_api.json").read_text().splitlines()
    docs = {"TicketAPI": {"file": "ticket_api.json",
                          "functions": [json.loads(line) for line in lines if line.strip()]}}
    spec = compile_backends(docs, seed=0)["TicketAPI"]
    config = {"ticket_queue": [
        {"description": "There is a critical system error that needs immediate attention.",
         "id": 123456, "priority": "High", "status": "Open", "title": "System Error"},
        {"description": "Request for a new feature in the application.", "id": 654321,
         "priority": "Medium", "status": "In Progress", "title": "Feature Request"}]}
    env = Environment([build_service(spec)], seed=0)
    assert load_state(env, spec, config) == {"ticket_queue": 2}
    got = env.call("ticket_api__get_ticket", {"ticket_id": 654321})
    assert got["data"]["title"] == "Feature Request" and got["data"]["priority"] is None


def _measurements(path: Path, service: str, rows: dict[str, dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"summary": {}, "servers": {service: rows}}))
    return path


def test_catalog_build_records_fidelity_and_simulates_the_unfaithful(tmp_path: Path) -> None:
    recording = json.loads(RECORDED.read_text())
    source = tmp_path / "specs"
    source.mkdir()
    doc = recording["docs"]["TradingBot"]
    (source / doc["file"]).write_text("".join(json.dumps(f) + "\n" for f in doc["functions"]))
    rows = _measure(recording, "loaded")
    measured = read_fidelity([_measurements(tmp_path / "m.json", "trading_bot", rows)])
    build_catalog(source, tmp_path / "catalog", workers=1, progress=False, keep_islands=True,
                  min_implemented=0.0, fidelity=measured)
    record = orjson.loads((tmp_path / "catalog" / "records" / "trading_bot.json").read_bytes())
    figures = {t: r["agreement"] for t, r in rows.items() if r["agreement"] is not None}
    assert record["fidelity"] == figures
    unfaithful = {t for t, r in rows.items() if r["verdict"] == "unfaithful"}
    assert unfaithful and unfaithful <= set(record["simulated"])
    assert all(record["simulated"][t].startswith("fidelity: agreed with the real "
                                                 "implementation on 0 of") for t in unfaithful)
    spec = orjson.loads((tmp_path / "catalog" / "services" / "trading_bot.json").read_bytes())
    simulated = {t["name"] for t in spec["tools"] if t.get("simulated")}
    assert unfaithful <= simulated and "get_stock_info" not in simulated
    assert record["implemented"] == record["tools"] - len(record["simulated"])


def test_a_service_measured_twice_is_refused(tmp_path: Path) -> None:
    one = _measurements(tmp_path / "a.json", "s", {})
    two = _measurements(tmp_path / "b.json", "s", {})
    with pytest.raises(UserError, match="measured twice"):
        read_fidelity([one, two])
    (tmp_path / "c.json").write_text("[]")
    with pytest.raises(UserError, match="not a fidelity measurement file"):
        read_fidelity([tmp_path / "c.json"])


@pytest.mark.slow
def test_the_real_backend_answers_as_recorded() -> None:
    """bfcl-eval's TradingBot really run (peer venv: ``bench/runtime.py --setup-peer``)."""
    if not peer_python(DEFAULT_PEER_VENV).exists():
        pytest.skip("no peer venv: bench/runtime.py --setup-peer")
    recording = json.loads(RECORDED.read_text())
    live = real_outputs(DEFAULT_PEER_VENV, ["TradingBot"])
    assert live["provenance"] == recording["provenance"]
    first = {e["id"]: e for e in live["entries"][:len(recording["entries"])]}
    assert first == {e["id"]: e for e in recording["entries"]}
    assert _measure(live, "loaded")["get_stock_info"]["verdict"] == "faithful"
