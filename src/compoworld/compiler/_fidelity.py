"""``apply_fidelity``: tools measured unfaithful against a real implementation are simulated.

``bench/fidelity.py`` (MCP servers) and ``bench/fidelity_bfcl.py`` (bfcl-eval's backends) run
the same call sequences against a real implementation and against the service compiled from
its spec and write, per tool, how often both sides agreed (both
answered) among the calls at least one side answered — a call both refused says nothing and
is no agreement. A tool below the threshold is switched to simulated with the measurement as
its reason; the figure of every measured tool is returned for the catalog. A tool no call
measured (``agreement`` None: every call refused on both sides) is left as it is.
``catalog build --fidelity FILE`` reads such files (:func:`read_fidelity`) and applies them to
the services they name; the record of each service keeps the figures (``fidelity``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from compoworld.errors import UserError
from compoworld.service import ServiceSpec

__all__ = ["apply_fidelity", "read_fidelity"]


def read_fidelity(paths: list[Path]) -> dict[str, dict[str, dict[str, Any]]]:
    """Service → tool → measurement, from the files the fidelity benches write
    (``{"summary": ..., "servers": {service: {tool: measurement}}}``).

    Raises:
        UserError: A file is not such a measurement file, or two files measure one service.
    """
    measured: dict[str, dict[str, dict[str, Any]]] = {}
    for path in paths:
        try:
            services = orjson.loads(Path(path).read_bytes())["servers"]
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError) as error:
            raise UserError(f"{str(path)!r} is not a fidelity measurement file (written by "
                            f"bench/fidelity.py --out): {error}") from error
        for service, tools in services.items():
            if service in measured:
                raise UserError(f"service {service!r} is measured twice (again in {str(path)!r})")
            measured[service] = tools
    return measured


def apply_fidelity(spec: ServiceSpec, measured: dict[str, dict[str, Any]], *,
                   min_agreement: float = 0.8) -> tuple[ServiceSpec, dict[str, float]]:
    """The spec with every implemented tool measured below ``min_agreement`` simulated, and
    the agreement of each measured tool (tool name → share of calls agreeing).

    Args:
        spec: A verified service spec.
        measured: Tool name → ``{"agreement": float | None, "informative": int,
            "both_ok": int, ...}``, as ``bench/fidelity.py --out`` writes per server.
        min_agreement: The least agreement a faithful tool shows.

    Example:
        >>> from compoworld.service import ServiceSpec
        >>> spec = ServiceSpec(name="s", domain="developer", description="S.", entities=[],
        ...                    tools=[])
        >>> apply_fidelity(spec, {})[1]
        {}
    """
    figures: dict[str, float] = {}
    tools = []
    for tool in spec.tools:
        row = measured.get(tool.name)
        if row is None or tool.simulated or row.get("agreement") is None:
            tools.append(tool)
            continue
        figures[tool.name] = float(row["agreement"])
        if row["agreement"] < min_agreement:
            reason = (f"fidelity: agreed with the real implementation on {row['both_ok']} of "
                      f"{row['informative']} calls either side answered "
                      f"(< {min_agreement:.0%})")
            tool = tool.model_copy(update={"simulated": True, "simulated_reason": reason})
        tools.append(tool)
    return spec.model_copy(update={"tools": tools}), figures
