"""Export: verified trajectories → SFT records; tasks → RL datasets.

SFT records are ``{"tools": [...], "messages": [...], "meta": {...}}`` — OpenAI tool-calling
chat, the shape TRL's ``SFTTrainer`` reads; RL rows are the prompt messages, the task id and
the task itself (to rebuild the world and score the episode). See docs/rewards.md.
"""

from compoworld.export._rl import RLFormat, export_rl, rl_row
from compoworld.export._sft import ExportStats, Format, export_sft, load_sft, sft_record

__all__ = ["ExportStats", "Format", "RLFormat", "export_rl", "export_sft", "load_sft", "rl_row",
           "sft_record"]
