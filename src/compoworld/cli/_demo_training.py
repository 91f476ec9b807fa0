"""The demo's last stage: oracle rollouts of the verified tasks, their scores, the rewards of a
group (CFR against uniform), a reward-hacking probe for contrast, and the SFT records."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from compoworld.export import export_sft
from compoworld.rollout import OracleAgent, rollout
from compoworld.scoring import ClaimProbe, group_rewards, score_trajectories, summarize
from compoworld.scoring._file import load_trajectories, save_scored
from compoworld.tasks import Task

GROUP = 2


def rollouts_to_sft(tasks: list[Task], out: Path, console: Console) -> None:
    """Roll out, score, reward and export; print what a researcher would look at."""
    for path in ("rollouts.jsonl", "probe_rollouts.jsonl"):
        (out / path).unlink(missing_ok=True)  # the demo starts over each time
    rollout(tasks, OracleAgent(), group=GROUP, out=out / "rollouts.jsonl", timings=False)
    rollout(tasks, ClaimProbe(), group=GROUP, out=out / "probe_rollouts.jsonl", timings=False)
    by_id = {t.id: t for t in tasks}
    oracle = score_trajectories(by_id.values(), load_trajectories(out / "rollouts.jsonl"))
    probe = score_trajectories(by_id.values(), load_trajectories(out / "probe_rollouts.jsonl"))
    save_scored(oracle, out / "scored.jsonl")

    table = Table()
    for column in ("agent", "rollouts", "full completion", "mean rubric score", "mean CFR reward"):
        table.add_column(column)
    for name, scored in (("oracle (reference plan)", oracle),
                         ("probe: does nothing, claims success", probe)):
        summary = summarize(scored)
        rewards = group_rewards(scored, "cfr")
        table.add_row(name, str(summary.trajectories), f"{summary.full_completion:.0%}",
                      f"{summary.mean_rubric_score:.2f}",
                      f"{sum(rewards.values()) / max(1, len(rewards)):.2f}")
    console.print(f"{len(tasks)} tasks × {GROUP} rollouts per agent, scored by replaying each "
                  "trajectory on its rebuilt world:")
    console.print(table)
    stats = export_sft(oracle, out / "sft.jsonl", min_score=1.0, tasks=tasks)
    console.print(f"{stats.kept} SFT records (tools, meta, source, messages) in {out}/sft.jsonl"
                  + (f"; dropped {stats.dropped}" if stats.dropped else ""))
