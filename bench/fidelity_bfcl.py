"""Differential fidelity against bfcl-eval's backends: the multi-turn ground-truth call
sequences run on the real Python classes and on the services compiled from their function docs.

The real side runs in the peer venv (``bench/runtime.py --setup-peer``; bfcl-eval is never
imported here): ``bench/_peer_bfcl_replay.py`` sends every ground-truth call of
``BFCL_v4_multi_turn_base`` through bfcl's own multi-turn path, from each entry's
``initial_config``, and records the answers. ``--recorded FILE`` reads such a recording instead
(``--record FILE`` writes one). Here each class's function docs are compiled (service named after
the doc file, as ``catalog build --source`` names it) and verified, and every entry's calls are
replayed, in order, on one environment of the compiled services of its classes, started:

* ``--start empty``: no record;
* ``--start loaded`` (default): the real starting state where the compiled model can hold it —
  every collection of records in the class's config (a list of objects, or an object of
  objects: ``ticket_queue``, ``tweets``) is planted into the compiled entity sharing the most
  field names with it (at least two), the fields it shares whose values the entity takes (a
  ticket's ``priority: "High"``, where the docs say integer, is left out, not the ticket); a
  list of plain values (``watch_list: ["NVDA"]``) becomes the entries of the one-field entity
  named like it (``watchlist``); the rest of the config (a file tree, a logged-in flag, a
  balance) has no place in the model and is left out.

Per implemented tool it counts, as ``bench/fidelity.py`` does (``bench/_agreement.py``), calls
both sides answered, only ours, only the real one, both refused; ``agreement`` among the calls
either answered, ``shape`` (answer keys overlapping), ``verdict`` (``--min-agreement``). Later
reads run after earlier writes on both sides, so an effect one side missed shows up as a
disagreement of the read. Simulated tools are called too (the sequence stays the same) but not
counted: they promise no behaviour. A real answer refuses when it is ``{"error": ...}`` or
bfcl's ``Error during execution: ...``.

    python bench/fidelity_bfcl.py [--classes TicketAPI ...] [--start loaded|empty] [--json] \
        [--out tests/compiler/fidelity_bfcl.json] [--recorded FILE | --record FILE] [--trace]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

from pydantic import TypeAdapter, ValidationError

from _agreement import count, finish, new_row, print_rows, read_answer, summarize, write_measurements
from _peer import DEFAULT_PEER_VENV, SETUP_COMMAND, peer_python
from compoworld.compiler import compile_openai_functions, verify_spec
from compoworld.compiler._rules import identifier, singular
from compoworld.errors import CompoWorldError
from compoworld.service import Environment, Provenance, ServiceSpec, build_service

REPLAY = Path(__file__).resolve().parent / "_peer_bfcl_replay.py"


def real_outputs(venv: Path, classes: list[str]) -> dict[str, Any]:
    """The peer's recording (``_peer_bfcl_replay.py``) of the entries using only ``classes``."""
    python = peer_python(venv)
    if not python.exists():
        raise SystemExit(f"peer venv {venv} not found: run {SETUP_COMMAND}")
    done = subprocess.run([str(python), str(REPLAY), "--classes", *classes],
                          capture_output=True, text=True, timeout=600, check=True)
    return json.loads(done.stdout)


def service_name(doc_file: str) -> str:
    """The service a bfcl doc file compiles to: its stem (``ticket_api.json`` → ticket_api)."""
    return identifier(doc_file.rsplit(".", 1)[0], "s")


def compile_backends(docs: dict[str, Any], seed: int) -> dict[str, ServiceSpec]:
    """Class → the verified spec compiled from its function docs."""
    specs = {}
    for cls, doc in sorted(docs.items()):
        result = compile_openai_functions(doc["functions"], name=service_name(doc["file"]),
                                          domain="developer",
                                          provenance=Provenance(source=doc["file"]))
        specs[cls] = verify_spec(result.spec, seed=seed).spec
    return specs


def _collections(config: dict[str, Any]) -> dict[str, list[tuple[str | None, dict[str, Any]]]]:
    """The config's collections of records, each record with its key in the collection (an
    object of objects, ``{"NVDA": {...}}``) or None (a list), field names as identifiers
    (``MA(5)`` → ``ma_5``)."""
    found: dict[str, list[tuple[str | None, dict[str, Any]]]] = {}
    for key, value in config.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            pairs: list[tuple[str | None, Any]] = [(None, v) for v in value]
        elif isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            pairs = list(value.items())
        else:
            continue
        found[key] = [(k, {identifier(f, "f"): x for f, x in v.items()}) for k, v in pairs]
    return found


def _lists(config: dict[str, Any]) -> dict[str, list[Any]]:
    """The config's lists of plain values (``watch_list: ["NVDA"]``), by name."""
    return {key: value for key, value in config.items() if isinstance(value, list) and value
            and all(isinstance(v, (str, int, float)) for v in value)}


def _fitting(model: Any, values: dict[str, Any]) -> dict[str, Any]:
    """The values the entity's model takes, field by field: bfcl's configs hold values of
    other types than its docs declare (a ticket's ``priority: "high"``, docs: integer)."""
    out = {}
    for name, value in values.items():
        if name != "id" and name in model.model_fields:
            info = model.model_fields[name]
            adapter = _ADAPTERS.setdefault((model, name), TypeAdapter(
                Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation))
            try:
                adapter.validate_python(value)
            except ValidationError:
                continue
        out[name] = value
    return out


_ADAPTERS: dict[tuple[Any, str], TypeAdapter[Any]] = {}


def load_state(env: Environment, spec: ServiceSpec, config: dict[str, Any]) -> dict[str, int]:
    """Plant the config's collections into the entities of ``spec`` that can hold them (see the
    module); collection → records planted. A record's key in its collection is its ``id``, and
    also the value of the entity's one field no record carries, if there is exactly one (the
    stock's ``symbol`` of ``{"NVDA": {"price": ...}}``). A value of another type than its field
    is left out of its record; a record the entity still refuses (a missing reference) is left
    out. A list of plain values fills the one-field entity named like it.
    """
    planted: dict[str, int] = {}
    taken: set[str] = set()
    models = env.services[spec.name].entities
    for name, records in sorted(_collections(config).items()):
        keys: set[str] = set().union(*(r for _, r in records))
        fields = {e.name: {f.name for f in e.fields} for e in spec.entities if e.name not in taken}
        entity = max(sorted(fields), key=lambda n: len(keys & fields[n]), default=None)
        if entity is None or len(keys & fields[entity]) < 2:
            continue
        taken.add(entity)
        missing = sorted(fields[entity] - keys)
        planted[name] = 0
        for key, record in records:
            values = {k: v for k, v in record.items() if k in fields[entity]}
            if key is not None and len(missing) == 1:
                values[missing[0]] = key
            if "id" in record or key is not None:
                values["id"] = str(record.get("id", key))
            try:
                env.plant(spec.name, entity, _fitting(models[entity], values))
            except CompoWorldError:
                continue
            planted[name] += 1
    one_field = {e.name: e.fields[0].name for e in spec.entities
                 if len(e.fields) == 1 and e.name not in taken}
    for name, items in sorted(_lists(config).items()):
        entity = singular(identifier(name, "e").replace("_", ""))
        if entity not in one_field:
            continue
        planted[name] = 0
        for item in items:
            try:
                env.plant(spec.name, entity, {one_field[entity]: item})
            except CompoWorldError:
                continue
            planted[name] += 1
    return planted


def replay(recording: dict[str, Any], specs: dict[str, ServiceSpec], *, start: str, seed: int,
           least: float, trace: bool = False) -> dict[str, Any]:
    """Every recorded entry's calls on the compiled services: per service, per tool rows."""
    empty = {cls: s.model_copy(update={"entities": [
        e.model_copy(update={"seed_count": 0}) for e in s.entities]}) for cls, s in specs.items()}
    services = {cls: build_service(s) for cls, s in empty.items()}
    implemented = {cls: {t.name for t in s.tools if not t.simulated} for cls, s in specs.items()}
    rows = {specs[cls].name: {t.name: new_row(t.source or t.name) for t in specs[cls].tools
                              if t.name in implemented[cls]} for cls in specs}
    planted: dict[str, dict[str, int]] = {}
    for entry in recording["entries"]:
        env = Environment([services[c] for c in entry["classes"] if c in services], seed=seed)
        if start == "loaded":
            for cls, config in sorted(entry["initial_config"].items()):
                if cls in specs:
                    for key, n in load_state(env, specs[cls], config).items():
                        planted.setdefault(cls, {}).setdefault(key, 0)
                        planted[cls][key] += n
            env.settle()
        for call in entry["calls"]:
            spec = specs.get(call["class"])
            if spec is None:
                continue
            ours = env.call(f"{spec.name}__{call['tool']}",
                            {identifier(k, "p"): v for k, v in call["args"].items()})
            if call["tool"] not in implemented[call["class"]]:
                continue
            text = call["result"]
            real_ok, real_json = read_answer(text, not text.startswith("Error during execution"))
            outcome = count(rows[spec.name][call["tool"]], bool(ours["success"]), real_ok,
                            ours.get("data"), real_json)
            if trace:
                print(f"  {entry['id']} {call['tool']} {json.dumps(call['args'])[:100]} {outcome}\n"
                      f"    ours {json.dumps(ours)[:140]}\n    real {text[:140]}")
        env.close()
    for service_rows in rows.values():
        finish(service_rows, least)
    return {"per_service": rows, "planted": planted}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--classes", nargs="*", default=[
        "GorillaFileSystem", "TwitterAPI", "MessageAPI", "TicketAPI", "TradingBot", "TravelAPI",
        "VehicleControlAPI", "MathAPI"])
    parser.add_argument("--start", choices=("loaded", "empty"), default="loaded")
    parser.add_argument("--peer-venv", type=Path, default=DEFAULT_PEER_VENV)
    parser.add_argument("--recorded", type=Path, help="read the real outputs from this file")
    parser.add_argument("--record", type=Path, help="write the real outputs to this file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-agreement", type=float, default=0.8)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--trace", action="store_true", help="print every call's outcomes")
    parser.add_argument("--out", type=Path, help="write {service: {tool: measurement}}")
    args = parser.parse_args(argv)
    recording = (json.loads(args.recorded.read_text()) if args.recorded
                 else real_outputs(args.peer_venv, args.classes))
    wanted = set(args.classes)  # a recording made for more classes is cut to these
    recording = {**recording, "docs": {c: d for c, d in recording["docs"].items() if c in wanted},
                 "entries": [e for e in recording["entries"] if set(e["classes"]) <= wanted]}
    if args.record:
        args.record.write_text(json.dumps(recording, indent=1, sort_keys=True) + "\n")
    specs = compile_backends(recording["docs"], args.seed)
    measured = replay(recording, specs, start=args.start, seed=args.seed,
                      least=args.min_agreement, trace=args.trace)
    per_service = measured["per_service"]
    summary = {"services": len(per_service), "entries": len(recording["entries"]),
               "calls": sum(len(e["calls"]) for e in recording["entries"]),
               **summarize([r for rows in per_service.values() for r in rows.values()]),
               "min_agreement": args.min_agreement, "start": args.start,
               "bfcl_eval": recording["provenance"]["version"]}
    if args.out:
        write_measurements(args.out, summary, per_service)
    if args.json:
        print(json.dumps({"summary": summary, **measured}, indent=1, sort_keys=True))
        return 0
    for cls, spec in sorted(specs.items()):
        rows = per_service[spec.name]
        print(f"{cls} → {spec.name}: {len(rows)} of {len(spec.tools)} tools implemented; "
              f"planted {measured['planted'].get(cls, {})}")
        print_rows(rows)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
