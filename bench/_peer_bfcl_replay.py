"""Real outputs for the fidelity bench: bfcl-eval's multi-turn ground truth run on its backends.

Runs inside the peer virtualenv (``bench/runtime.py --setup-peer``); it must not import
compoworld. For every entry of ``BFCL_v4_multi_turn_base`` whose classes are all among
``--classes``, each turn's ground-truth calls go through bfcl's own multi-turn path
(``multi_turn_utils.execute_multi_turn_func_call``: the backends built from the entry's
``initial_config``, one instance per class kept for the later turns), and every call is
recorded with the class that answered it, its arguments by name (positional ones named from
the method's signature) and bfcl's answer string.

It prints one JSON object: ``provenance`` (bfcl-eval's version, the data file), ``docs`` (per
class, the function docs bfcl ships for it: OpenAI-function JSON, one per line in the
package) and ``entries`` (``id``, ``classes``, ``initial_config`` of those classes, ``calls``).

    .cache/bench-peer-venv/bin/python bench/_peer_bfcl_replay.py [--classes TicketAPI] [--limit N]
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
from importlib import metadata, resources
from typing import Any

from bfcl_eval.constants.executable_backend_config import MULTI_TURN_FUNC_DOC_FILE_MAPPING
from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

CLASSES = ("GorillaFileSystem", "TwitterAPI", "MessageAPI", "TicketAPI", "TradingBot",
           "TravelAPI", "VehicleControlAPI", "MathAPI")
DATA = "BFCL_v4_multi_turn_base.json"
MODEL = "compoworld_fidelity"


def _lines(path: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def named_arguments(call: str, method: Any) -> tuple[str, dict[str, Any]]:
    """``f(1, b=2)`` → (``"f"``, ``{"a": 1, "b": 2}``), positional arguments named by the
    method's signature."""
    node = ast.parse(call, mode="eval").body
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name), call
    names = [p for p in inspect.signature(method).parameters if p != "self"]
    args = {names[i]: ast.literal_eval(a) for i, a in enumerate(node.args)}
    args.update({k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg})
    return node.func.id, args


def replay(entry: dict[str, Any], truth: list[list[str]]) -> list[dict[str, Any]]:
    """Every ground-truth call of ``entry`` through bfcl's path, with the class answering it."""
    classes = entry["involved_classes"]
    calls: list[dict[str, Any]] = []
    for turn, batch in enumerate(truth):
        results, instances = multi_turn_utils.execute_multi_turn_func_call(
            batch, entry["initial_config"], classes, MODEL, entry["id"])
        owner = {name: cls for cls, inst in instances.items()
                 for name, _ in inspect.getmembers(inst, inspect.ismethod)
                 if not name.startswith("_")}  # bfcl's own mapping: the last class wins
        for call, result in zip(batch, results, strict=True):
            name = ast.parse(call, mode="eval").body.func.id  # type: ignore[attr-defined]
            cls = owner[name]
            _, args = named_arguments(call, getattr(instances[cls], name))
            calls.append({"turn": turn, "class": cls, "tool": name, "args": args,
                          "result": result})
    for key in [k for k in vars(multi_turn_utils) if k.startswith(f"{MODEL}_{entry['id']}_")]:
        vars(multi_turn_utils).pop(key)  # bfcl keeps instances in its globals: free them
    return calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--classes", nargs="*", default=list(CLASSES))
    parser.add_argument("--limit", type=int, help="at most N entries")
    args = parser.parse_args()
    data = resources.files("bfcl_eval") / "data"
    truth = {e["id"]: e["ground_truth"] for e in _lines(data / "possible_answer" / DATA)}
    wanted = set(args.classes)
    entries = []
    for entry in _lines(data / DATA):
        if not set(entry["involved_classes"]) <= wanted:
            continue
        if args.limit is not None and len(entries) >= args.limit:
            break
        config = {c: entry["initial_config"][c] for c in entry["involved_classes"]
                  if c in entry["initial_config"]}
        entries.append({"id": entry["id"], "classes": entry["involved_classes"],
                        "initial_config": config, "calls": replay(entry, truth[entry["id"]])})
    docs = {c: {"file": MULTI_TURN_FUNC_DOC_FILE_MAPPING[c],
                "functions": _lines(data / "multi_turn_func_doc" /
                                    MULTI_TURN_FUNC_DOC_FILE_MAPPING[c])}
            for c in sorted(wanted)}
    print(json.dumps({"provenance": {"package": "bfcl-eval",
                                     "version": metadata.version("bfcl-eval"),
                                     "data": f"bfcl_eval/data/{DATA}",
                                     "path": "multi_turn_utils.execute_multi_turn_func_call"},
                      "docs": docs, "entries": entries}, sort_keys=True))


if __name__ == "__main__":
    main()
