"""Export: verified trajectories → SFT records; tasks → RL datasets.

SFT records are ``{"tools": [...], "messages": [...], "meta": {...}}`` — OpenAI tool-calling
chat, the shape TRL's ``SFTTrainer`` reads; RL rows are the prompt messages, the task id and
the task itself (to rebuild the world and score the episode). See docs/rewards.md.
"""

from compoworld.export._record import PENALTY_KINDS, RecordForm, net_score, sft_record
from compoworld.export._rl import RLFormat, export_rl, rl_row
from compoworld.export._sft import SFT_SCHEMA_PATH, ExportStats, Format, export_sft, load_sft

__all__ = ["PENALTY_KINDS", "SFT_SCHEMA_PATH", "ExportStats", "Format", "RLFormat", "RecordForm",
           "export_rl", "export_sft", "load_sft", "net_score", "rl_row", "sft_record"]
