"""``audit_sample``: random tools of a catalog with their spec line, mapped op and rule.

For the closing-note audit: a reader checks each line — does ``POST /v1/invoices/{id}/void``
really become a ``transition status=void`` on ``invoice``? — so every mapping can be judged.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from compoworld.service import ServiceSpec, load_spec

__all__ = ["audit_sample", "catalog_spec_files"]


def catalog_spec_files(catalog: str | Path) -> list[Path]:
    """The spec files of a catalog directory (``services/*.json`` of a build, else ``*.json``)."""
    root = Path(catalog)
    folder = root / "services" if (root / "services").is_dir() else root
    return sorted(p for p in folder.glob("*.json") if p.name not in ("catalog.json",
                                                                     "selection.json"))


def _op(tool: Any) -> str:
    action = getattr(tool, "action", None)
    if tool.op == "action" and action is not None:
        detail = ", ".join(f"{k}={v}" for k, v in sorted(action.set.items()))
        return f"action:{action.effect}" + (f" {detail}" if detail else "")
    return str(tool.op)


def audit_sample(catalog: str | Path, *, sample: int = 30, seed: int = 0) -> list[dict[str, Any]]:
    """``sample`` tools drawn uniformly from every tool of the catalog (seeded).

    Each row: ``service``, ``tool``, ``spec_line`` (method + path, or the MCP/OpenAI name),
    ``op`` (with an action's effect), ``entity``, ``rule``, ``implemented`` and, for a
    simulated tool, ``reason``.
    """
    tools: list[tuple[ServiceSpec, Any]] = []
    for path in catalog_spec_files(catalog):
        spec = load_spec(path)
        tools.extend((spec, tool) for tool in spec.tools)
    chosen = random.Random(seed).sample(tools, min(sample, len(tools)))
    return [{
        "service": spec.name, "tool": tool.name, "spec_line": tool.source or tool.name,
        "op": _op(tool), "entity": tool.entity, "rule": getattr(tool, "rule", None) or "",
        "implemented": not tool.simulated,
        **({"reason": tool.simulated_reason} if tool.simulated else {}),
    } for spec, tool in chosen]
