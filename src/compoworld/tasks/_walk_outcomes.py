"""The words of a walk's trace: what became of each start a walk considered
(:data:`OUTCOMES`, ``walk(trace=...)``, ``Walk.refusals``) and why a walk stopped
(:data:`STOPS`, ``Walk.stopped``). ``bench/coverage.py`` and ``bench/walk_length.py`` count them."""

from __future__ import annotations

OUTCOMES = {
    "motif": "the motif's first stage does not admit it",
    "needs": "it needs an id no earlier answer holds (a start has none)",
    "fill": "its required inputs cannot be supplied",
    "stage": "what it was given fits no stage of the motif",
    "purpose": "a write with no purpose to state (tasks._write_purpose, tasks._removed)",
    "call": "the call failed on the seeded world",
    "no-op": "a write that changed nothing, or not what its stage says",
    "role": "it misused the user's account or undid an earlier change",
    "alone": "called, but no second step was taken from it",
    "one-service": "steps taken, all in its service",
    "incomplete": "left its service, but the motif's required stages not done",
    "broken": "a replay of the walk diverged",
    "kept": "the walk from it was kept",
}
"""What became of a start a walk considered (``walk(trace=...)``), by key."""

STOPS = {
    "length": "its plan keeps the drawn length (and it has left its first service)",
    "spare": "it took every spare step past its length",
    "broken": "a replay of the walk diverged",
    "unfinished": "its piece of work is not done, and no other may replace it",
    "max-pieces": "its pieces of work done, and it follows the most a walk may",
    "no-piece-opens": "its pieces of work done, and no motif's first stage fits a step it "
                      "can take",
}
"""Why a walk stopped (``Walk.stopped``). ``no-candidate/<why>``: no tool fits the motif's
next stages; ``refused/<why>``: some do, and every one failed (``Walk.refusals``); then, with
``<why>`` one of these, why no more piece of work was taken up instead."""
