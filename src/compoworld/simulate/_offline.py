"""The offline simulator: schema-driven, seeded, consistent with state. The default world model.

No model, no network: the answer is built from the tool's output type and its semantic
annotations, seeded by (tool, arguments, state digest, world seed). Records it invents are
written to the service's state, so a later (implemented) read agrees with what it said.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from compoworld.service import SimulatedCall, SimulatorStats
from compoworld.simulate._cache import SimulationCache, cache_key
from compoworld.simulate._draw import Draw, IdCache
from compoworld.simulate._generate import plan_for
from compoworld.simulate._writeback import write_back
from compoworld.types import Pool, derive_seed

_ATTEMPTS = 5
_ANY_OBJECT: dict[str, Any] = {"type": "object"}


class OfflineSimulator:
    """Answers simulated tools offline. Share one instance (and its cache) across a group.

    Args:
        pool: The world's shared pool (people, companies, today) — pass the environment's.
        cache: Where answers are kept (default: a new in-memory cache).

    Example:
        >>> from compoworld.service import Environment
        >>> from compoworld.catalog import load_service
        >>> from compoworld.simulate import OfflineSimulator, simulated
        >>> env = Environment([simulated(load_service("contacts"))], seed=0)
        >>> env.simulator = OfflineSimulator(env.pool)
        >>> env.call("contacts__search_contacts", {"query": "ann"})["success"]
        True
    """

    def __init__(self, pool: Pool, cache: SimulationCache | None = None) -> None:
        self.pool = pool
        self.cache = cache if cache is not None else SimulationCache()
        self.stats = SimulatorStats()
        self._ids = IdCache()

    def simulate(self, call: SimulatedCall) -> Any:
        self.stats.simulated_calls += 1
        self.stats.by_tool[call.name] = self.stats.by_tool.get(call.name, 0) + 1
        key = cache_key(call.name, call.arguments, call.state_digest, call.seed)
        data = self.cache.get(key)
        if data is None:
            data = self.generate(call, key)
            self.cache.put(key, data)
        else:
            self.stats.cache_hits += 1
        self.stats.written_back += write_back(call.db, call.tool, data)
        return data

    def generate(self, call: SimulatedCall, key: str) -> Any:
        """A fresh answer for ``call`` that matches the tool's output type."""
        output = call.tool.output
        schema = call.tool.output_schema or _ANY_OBJECT
        plan = plan_for(schema, call.db)
        fixed = {p.name: call.arguments[p.name] for p in call.tool.params
                 if p.name in call.arguments and call.arguments[p.name] is not None}
        asked = _asked_id(call.tool, call.arguments)
        if asked is not None:
            fixed["id"] = asked  # the record the call names by id is the one it answers about
        creates = call.tool.kind == "write" and asked is None
        for attempt in range(_ATTEMPTS):
            draw = Draw(derive_seed(call.seed, key, attempt), self.pool, call.db,
                        call.state_digest, self._ids, fixed, creates=creates)
            data = plan(draw, None)
            if output is None:
                return data
            try:
                return output.dump_python(output.validate_python(data), mode="json")
            except ValidationError:
                self.stats.schema_repairs += 1
        raise RuntimeError(f"no schema-valid answer for {call.name!r} in {_ATTEMPTS} attempts")


def _asked_id(tool: Any, arguments: dict[str, Any]) -> str | None:
    """The id a call names, when the tool returns a record of that same entity."""
    schema = tool.output_schema or {}
    entity = schema.get("properties", {}).get("id", {}).get("x-ref")
    for param in tool.params:
        if entity and param.ref == entity and isinstance(arguments.get(param.name), str):
            return str(arguments[param.name])
    return None
