"""Scoring: a trajectory against its task's rubric → a pass vector, rubric score, completion.

The task's world is rebuilt and the trajectory's calls replayed (the runtime is
deterministic), then each criterion is checked on the final state and the final message.
The reward-hacking probes (scripted adversarial agents) live here too, as the scorer's tests
against cheating.

Example:
    >>> import asyncio
    >>> from compoworld.tasks import generate_tasks
    >>> from compoworld.rollout import OracleAgent, run_episode
    >>> task = next(generate_tasks(1, seed=0))
    >>> scored = score_trajectory(task, asyncio.run(run_episode(task, OracleAgent())))
    >>> scored.score, summarize([scored]).full_completion
    (1.0, 1.0)
"""

from compoworld.scoring._file import load_scored, load_trajectories, save_scored
from compoworld.scoring._groups import group_rewards, pass_batch
from compoworld.scoring._model import CriterionScore, ReplayMismatch, ScoredTrajectory
from compoworld.scoring._probe_report import AgentFigures, answer_variants, run_probes
from compoworld.scoring._probes import PROBES, CallAllProbe, ClaimProbe, DumpProbe, Probe, WriteAllProbe
from compoworld.scoring._score import (
    PROGRAMMATIC_KINDS,
    called_tools,
    replay,
    score_trajectories,
    score_trajectory,
)
from compoworld.scoring._summary import ScoreSummary, summarize

__all__ = [
    "PROBES",
    "PROGRAMMATIC_KINDS",
    "AgentFigures",
    "CallAllProbe",
    "ClaimProbe",
    "CriterionScore",
    "DumpProbe",
    "Probe",
    "ReplayMismatch",
    "ScoreSummary",
    "ScoredTrajectory",
    "WriteAllProbe",
    "answer_variants",
    "called_tools",
    "group_rewards",
    "load_scored",
    "load_trajectories",
    "pass_batch",
    "replay",
    "run_probes",
    "save_scored",
    "score_trajectories",
    "score_trajectory",
    "summarize",
]
