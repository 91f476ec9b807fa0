"""The world model: answers to the tools that code does not implement.

A tool marked ``simulated`` is answered by the :class:`~compoworld.service.Simulator` attached
to its environment. The offline simulator (here, the default) needs no model: its answers are
built from the tool's output type, seeded, cached per (tool, arguments, state, seed) so every
rollout of a group sees one world, and what they invent is written back to state. The
:class:`LLMSimulator` asks a model instead, validates (and repairs) what it says, and falls
back to the offline simulator when the model cannot answer.
"""

from dataclasses import replace

from compoworld.service import Service, SimulatedCall, Simulator, SimulatorStats
from compoworld.simulate._cache import SimulationCache, cache_key
from compoworld.simulate._llm import LLMSimulator, OnError
from compoworld.simulate._offline import OfflineSimulator
from compoworld.simulate._writeback import write_back

__all__ = [
    "LLMSimulator",
    "OfflineSimulator",
    "OnError",
    "SimulatedCall",
    "SimulationCache",
    "Simulator",
    "SimulatorStats",
    "cache_key",
    "simulated",
    "write_back",
]


def simulated(service: Service, tools: list[str] | None = None) -> Service:
    """A copy of ``service`` whose tools (default: all) are answered by the world model.

    Used to measure and test simulators against services whose real behaviour is known.
    """
    copy = Service(service.name, domain=service.domain, description=service.description)
    copy.origin = service.origin
    for entity in service.entities.values():
        copy.entity(entity)
    for name, tool in service.tools.items():
        copy.add_tool(replace(tool, simulated=True) if tools is None or name in tools else tool)
    copy._seeders = list(service._seeders)
    return copy
