"""Figures of a built catalog (``compoworld catalog stats``) and the domain plot (``plot``).

Stats come from the manifest (``catalog.json``) alone, so they are instant on a full build; a
folder holding only spec files (such as the embedded subset) is summarised from the specs.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from compoworld.compiler._record import linked, spec_summary
from compoworld.errors import UserError
from compoworld.service import load_spec

__all__ = ["catalog_records", "catalog_stats", "plot_domains", "reason_kind"]


def catalog_records(catalog: str | Path) -> list[dict[str, Any]]:
    """One record per service of a catalog directory (built manifest or a folder of specs).

    Raises:
        UserError: ``catalog`` holds neither a ``catalog.json`` nor any spec file.
    """
    root = Path(catalog)
    manifest = root / "catalog.json"
    if manifest.is_file():
        return list(orjson.loads(manifest.read_bytes())["services"])
    files = sorted(root.glob("*.json")) if root.is_dir() else []
    if not files:
        raise UserError(f"{str(root)!r} is not a catalog: no catalog.json and no spec files; build "
                        "one with 'compoworld catalog build --out DIR'")
    records = []
    for path in files:
        spec = load_spec(path)
        simulated = {t.name: t.simulated_reason or "simulated" for t in spec.tools if t.simulated}
        provenance = spec.provenance.model_dump(mode="json") if spec.provenance else {}
        records.append({"name": spec.name, "domain": spec.domain, "tools": len(spec.tools),
                        "implemented": len(spec.tools) - len(simulated), "simulated": simulated,
                        "provenance": provenance, "license": provenance.get("license"),
                        **spec_summary(spec)})
    return records


def reason_kind(reason: str) -> str:
    """A simulated reason without its specifics (quoted names, numbers), to count by kind.

    Example:
        >>> reason_kind("create → get round trip failed: field 'email' differs")
        'create → get round trip failed'
        >>> reason_kind("verify: delete then get: expected 404, got 200")
        'verify: delete then get'
    """
    text = re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "…", reason.strip())
    head, _, rest = text.partition(":")
    if len(head) <= 12 and rest:  # a stage tag ("verify: ...", "engine: ...") keeps its detail
        head = f"{head}: {rest.split(':', 1)[0].strip()}"
    return head.strip()[:80] or "simulated"


def catalog_stats(catalog: str | Path) -> dict[str, Any]:
    """The figures of a catalog.

    Keys: ``services``, ``tools``, ``implemented``, ``implemented_share``, ``simulated``,
    ``simulated_by_reason`` (kind → tools), ``domains`` (domain → services and tools),
    ``semantic_field_share`` (entity fields with a shared semantic type), ``linked_services``
    and ``linked_share`` (services sharing an identifying type — Email, Phone, PersonName,
    CompanyName, URL, Address parts... not Date or Money — with another service),
    ``licenses``, plus ``failed`` / ``excluded`` counts of a built catalog, ``islands`` (the
    excluded services that shared no identifying type with another) and
    ``verified_linked_share`` (the linked share of every verified service, islands included:
    what the semantic typing links before the selection drops the islands).
    """
    records = catalog_records(catalog)
    tools = sum(r["tools"] for r in records)
    implemented = sum(r["implemented"] for r in records)
    reasons = Counter(reason_kind(reason) for r in records for reason in r["simulated"].values())
    domains: dict[str, dict[str, int]] = {}
    for r in records:
        entry = domains.setdefault(r["domain"], {"services": 0, "tools": 0})
        entry["services"] += 1
        entry["tools"] += r["tools"]
    connected = linked(records)
    fields = sum(r["fields"] for r in records)
    manifest = Path(catalog) / "catalog.json"
    extra = orjson.loads(manifest.read_bytes()) if manifest.is_file() else {}
    return {
        "services": len(records),
        "tools": tools,
        "implemented": implemented,
        "implemented_share": round(implemented / tools, 4) if tools else 0.0,
        "simulated": tools - implemented,
        "simulated_by_reason": dict(reasons.most_common()),
        "domains": dict(sorted(domains.items(), key=lambda kv: (-kv[1]["services"], kv[0]))),
        "semantic_field_share": round(sum(r["semantic_fields"] for r in records) / fields, 4)
        if fields else 0.0,
        "linked_services": len(connected),
        "linked_share": round(len(connected) / len(records), 4) if records else 0.0,
        "licenses": dict(Counter(r.get("license") or "unstated" for r in records).most_common()),
        "failed": len(extra.get("failed", {})),
        "excluded": len(extra.get("excluded", {})),
        "islands": len(extra.get("islands", [])),
        "verified_linked_share": extra.get("verified_linked_share", round(
            len(connected) / len(records), 4) if records else 0.0),
    }


def plot_domains(stats: dict[str, Any], out: str | Path, *, title: str = "") -> Path:
    """Bar charts of services and tools per domain (the paper's Fig. 3 analogue), as a PNG.

    Raises:
        UserError: matplotlib is missing (``pip install 'compoworld[plot]'``).
    """
    try:
        import matplotlib
    except ImportError:
        raise UserError("plotting needs matplotlib: pip install 'compoworld[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    domains = list(stats["domains"])
    fig, axes = plt.subplots(1, 2, figsize=(12, max(3.5, 0.42 * len(domains) + 1.5)), sharey=True)
    for ax, key, color in ((axes[0], "services", "#4C72B0"), (axes[1], "tools", "#DD8452")):
        values = [stats["domains"][d][key] for d in domains]
        bars = ax.barh(domains, values, color=color)
        ax.bar_label(bars, padding=3, fontsize=9)
        ax.set_title(f"{key} per domain (total {stats[key]:,})")
        ax.spines[["top", "right"]].set_visible(False)
        ax.set_xlim(0, max(values, default=1) * 1.15)
    axes[0].invert_yaxis()  # largest domain on top (the y axis is shared)
    fig.suptitle(title or f"{stats['services']} services, {stats['tools']:,} tools, "
                 f"{stats['implemented_share']:.1%} implemented", fontsize=12)
    fig.tight_layout()
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
