"""Scoring speed: trajectories scored per second (rebuild, replay, rubric), on one core.

Run from the repository root with the project's virtualenv::

    .venv/bin/python bench/score.py               # table
    .venv/bin/python bench/score.py --json        # exactly one JSON object on stdout

Generates ``--tasks`` verified tasks, rolls each out with the oracle and with two wrong agents
(a mutation probe that also writes a second record, and one that repeats the last write), then
scores every trajectory the way ``compoworld score`` does (``score_trajectories``: one world per
task shared by its rollouts, each trajectory replayed on a fork and checked against the rubric
from the change journal). Also times the rubric check alone on the replayed worlds. A
measurement, not a test: the exit code is 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time

from compoworld.rollout import OracleAgent, Trajectory, build_world, run_episode
from compoworld.scoring import PROBES, called_tools, replay, score_trajectories
from compoworld.tasks import generate_tasks, score


def _rollouts(tasks: list, agents: list) -> list[Trajectory]:
    async def run() -> list[Trajectory]:
        return list(await asyncio.gather(*(
            run_episode(task, agent, rollout_idx=i, timings=False)
            for task in tasks for i, agent in enumerate(agents))))
    return asyncio.run(run())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CompoWorld scoring speed.")
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    tasks = list(generate_tasks(args.tasks, seed=args.seed))
    probes = {p.kind: p for p in PROBES}
    agents = [OracleAgent(), probes["twin-write"](), probes["repeat-write"]()]
    trajectories = _rollouts(tasks, agents)
    wall, cpu = time.perf_counter(), time.process_time()
    scored = score_trajectories(tasks, trajectories)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    by_id = {t.id: t for t in tasks}
    rubric_seconds = 0.0
    for trajectory in trajectories:  # the rubric check alone, on a replayed world
        task = by_id[trajectory.task_id]
        world = build_world(task)
        episode = world.fork()
        replay(episode, trajectory.calls)
        started = time.perf_counter()
        score(task.rubric, world.env, episode.env, trajectory.final_message,
              called_tools(episode, trajectory.calls))
        rubric_seconds += time.perf_counter() - started
        episode.env.close()
        world.env.close()
    n = len(scored)
    report = {
        "tasks": len(tasks), "trajectories": n,
        "full_completion_by_agent": {
            agent.name: round(sum(s.score for s, t in zip(scored, trajectories, strict=True)
                                  if t.agent == agent.name) / len(tasks), 3)
            for agent in agents},
        "trajectories_per_second": round(n / wall, 1),
        "trajectories_per_cpu_second": round(n / cpu, 1) if cpu else None,
        "rubric_ms_per_trajectory": round(1000 * rubric_seconds / n, 3),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{n} trajectories of {len(tasks)} tasks scored in {wall:.2f} s "
          f"({report['trajectories_per_second']}/s wall, "
          f"{report['trajectories_per_cpu_second']}/CPU-s; load {report['load_average']})")
    print(f"rubric check alone: {report['rubric_ms_per_trajectory']} ms a trajectory")
    for agent, rate in report["full_completion_by_agent"].items():
        print(f"  full completion, {agent:<22} {rate:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
