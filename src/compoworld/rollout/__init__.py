"""Episodes, agents and the rollout runner."""

from compoworld.rollout._agent import Agent
from compoworld.rollout._trajectory import CallRecord, ErrorSource, FinishReason, Timings, Trajectory

__all__ = ["Agent", "CallRecord", "ErrorSource", "FinishReason", "Timings", "Trajectory"]
