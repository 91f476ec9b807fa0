"""Episodes, agents and the rollout runner.

Example:
    >>> import asyncio
    >>> from compoworld.tasks import generate_tasks
    >>> from compoworld.rollout import OracleAgent, run_episode
    >>> trajectory = asyncio.run(run_episode(next(generate_tasks(1)), OracleAgent()))
    >>> trajectory.finish_reason
    'stop'
"""

from compoworld.rollout._agent import Agent
from compoworld.rollout._chat import AGENT_KINDS, AgentKind, AgentSpec, ChatAgent, make_agent
from compoworld.rollout._episode import MAX_ARGUMENT_CHARS, Episode, run_episode
from compoworld.rollout._mcp import EpisodeServer
from compoworld.rollout._narration import Narrator, Note, NoteKind
from compoworld.rollout._oracle import OracleAgent
from compoworld.rollout._runner import (
    EpisodeSettings,
    RolloutStats,
    rollout,
    rollout_async,
    run_group,
)
from compoworld.rollout._sink import RolloutSink
from compoworld.rollout._trajectory import (
    CallRecord,
    ErrorSource,
    FinishReason,
    Timings,
    Trajectory,
    task_digest,
)
from compoworld.rollout._world import SIMULATOR_KINDS, WorldModelSpec, build_world

__all__ = [
    "AGENT_KINDS",
    "MAX_ARGUMENT_CHARS",
    "SIMULATOR_KINDS",
    "Agent",
    "AgentKind",
    "AgentSpec",
    "CallRecord",
    "ChatAgent",
    "Episode",
    "EpisodeServer",
    "EpisodeSettings",
    "ErrorSource",
    "FinishReason",
    "Narrator",
    "Note",
    "NoteKind",
    "OracleAgent",
    "RolloutSink",
    "RolloutStats",
    "Timings",
    "Trajectory",
    "WorldModelSpec",
    "build_world",
    "make_agent",
    "rollout",
    "rollout_async",
    "run_episode",
    "run_group",
    "task_digest",
]
