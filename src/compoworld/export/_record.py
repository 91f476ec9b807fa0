"""The SFT record of one scored trajectory, in the release's schema (``sft_record.schema.json``).

One JSON object per line, top-level keys in this order: ``tools``, ``meta``, ``source``,
``messages``. Messages: ``system``, ``user``, then ``assistant`` turns
``{role, content, reasoning_content, tool_calls: [{id, type: "function", function: {name,
arguments: <object>}}]}`` and ``tool`` results ``{role, tool_call_id, name, content: <JSON
string>}``, ending with an assistant message without ``tool_calls``.

``form="trl"`` gives the same conversation in the shape ``datasets`` and TRL's
``SFTTrainer`` take without surprises: tool-call arguments and ``tools`` as JSON text (as
objects, Arrow would merge the keys of every tool schema into one struct and fill the
gaps with nulls), the same ``meta``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import orjson

if TYPE_CHECKING:
    from compoworld.scoring import ScoredTrajectory
    from compoworld.tasks import Task

RecordForm = Literal["release", "trl"]

PENALTY_KINDS = frozenset({"no_collateral", "forbidden", "no_duplicate"})
"""Criterion kinds whose failure is a harmful action (a change nobody asked for, a forbidden
or duplicated write): one failing zeroes ``net_score``."""
ERROR_PENALTY = 0.05
"""What ``net_score`` loses per refused call that reached a real tool (the agent's fault)."""


def _arguments(raw: Any) -> Any:
    """Tool-call arguments as an object (text that is not a JSON object stays text)."""
    if not isinstance(raw, str):
        return raw
    try:
        value = orjson.loads(raw) if raw.strip() else {}
    except orjson.JSONDecodeError:
        return raw
    return value if isinstance(value, dict) else raw


def _message(message: dict[str, Any], form: RecordForm) -> dict[str, Any]:
    """One message in the record's shape (the keys its role uses, in the schema's order)."""
    role = message.get("role")
    if role == "assistant":
        out: dict[str, Any] = {"role": "assistant", "content": message.get("content") or "",
                               "reasoning_content": message.get("reasoning_content") or ""}
        calls = message.get("tool_calls") or []
        if calls:
            out["tool_calls"] = []
            for c in calls:
                arguments = _arguments(c["function"]["arguments"])
                if form == "trl" and not isinstance(arguments, str):
                    arguments = orjson.dumps(arguments).decode()
                out["tool_calls"].append({"id": c["id"], "type": "function", "function": {
                    "name": c["function"]["name"], "arguments": arguments}})
        return out
    if role == "tool":
        content = message.get("content")
        return {"role": "tool", "tool_call_id": message["tool_call_id"],
                "name": message.get("name", ""),
                "content": content if isinstance(content, str) else orjson.dumps(content).decode()}
    return {"role": str(role), "content": message.get("content") or ""}


def _reached_tool(call: Any, interface: str) -> bool:
    """Whether a logged call reached a real tool (domain errors included; calls that were not
    run, unknown tools and gateway rejections excluded)."""
    if not isinstance(call.arguments, dict):
        return False  # never run: unparsable arguments or past the per-turn limit
    if interface == "gateway":
        if call.name != "call_tool" or not isinstance(call.arguments.get("tool_name"), str):
            return False
        inner = call.arguments.get("arguments")
        if inner is not None and not isinstance(inner, dict):
            return False
    return call.success or not (call.code == 404 and (call.error or "").startswith("unknown tool"))


def net_score(scored: ScoredTrajectory) -> float:
    """``rubric_score`` after penalties: 0.0 when a criterion of :data:`PENALTY_KINDS` fails
    (collateral, forbidden or duplicated writes); else ``rubric_score`` less
    :data:`ERROR_PENALTY` per refused call to a real tool, never below 0. A clean full
    completion scores 1.0; a completion that stumbled on the way scores a little less."""
    if any(not c.passed and c.kind in PENALTY_KINDS for c in scored.criteria):
        return 0.0
    t = scored.trajectory
    refused = sum(1 for c in t.calls if not c.success and c.error_source == "agent"
                  and _reached_tool(c, t.interface))
    return round(max(0.0, scored.rubric_score - ERROR_PENALTY * refused), 6)


def recipe(task: Task | None, agent: str) -> dict[str, Any]:
    """``meta.src``: how the record was made — the task's generator, motif, walk length,
    service and distractor counts and seed (null when the task is not at hand), and the agent
    that played it (``oracle``, ``oracle-stumble``: the oracle with planted errors it
    recovers from, ``openai``, ``local``)."""
    if task is None:
        made: dict[str, Any] = {"generator": None, "motif": None, "walk_length": None,
                                "n_services": None, "n_distractors": None, "seed": None}
    else:
        made = {"generator": task.provenance.get("generator"),
                "motif": task.provenance.get("motif"), "walk_length": len(task.plan),
                "n_services": len(task.involved), "n_distractors": len(task.distractors),
                "seed": task.seed}
    return {**made, "agent": agent}


def sft_record(scored: ScoredTrajectory, task: Task | None = None, *,
               form: RecordForm = "release") -> dict[str, Any]:
    """The SFT record of one scored trajectory (see the module docs and docs/training.md).

    Args:
        scored: The scored trajectory.
        task: Its task, for ``meta.src`` (the generation recipe); without it those are null.
        form: ``release`` (the released schema) or ``trl`` (arguments and tools as JSON text).

    Example:
        >>> import asyncio
        >>> from compoworld.tasks import generate_tasks
        >>> from compoworld.rollout import OracleAgent, run_episode
        >>> from compoworld.scoring import score_trajectory
        >>> task = next(generate_tasks(1, seed=0))
        >>> trajectory = asyncio.run(run_episode(task, OracleAgent()))
        >>> record = sft_record(score_trajectory(task, trajectory), task)
        >>> list(record), [m["role"] for m in record["messages"]][:3]
        (['tools', 'meta', 'source', 'messages'], ['system', 'user', 'assistant'])
    """
    t = scored.trajectory
    return {
        "tools": t.tools if form == "release" else orjson.dumps(t.tools).decode(),
        "meta": {
            "task_id": t.task_id, "src": recipe(task, t.agent), "rollout_idx": t.rollout_idx,
            "rubric_score": scored.rubric_score, "score": scored.score,
            "net_score": net_score(scored), "n_tool_calls": len(t.calls),
            "n_real_tool_calls": sum(_reached_tool(c, t.interface) for c in t.calls),
            "n_steps": t.n_steps, "discover_mode": t.interface, "finish_reason": t.finish_reason,
            "services": list(scored.labels.services), "domain": scored.labels.domain,
            "capabilities": list(scored.labels.capabilities),
        },
        "source": f"compoworld/{t.agent}" + (f":{t.model}" if t.model else ""),
        "messages": [_message(m, form) for m in t.messages],
    }
