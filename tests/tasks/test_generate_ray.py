"""Generation on a local Ray instance started by the test: the tasks one process writes; and
what a Ray worker goes through that one process does not (chunks out of order, a running task
cancelled part-way, the worker reused), checked in this process."""

import sys
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

import pytest

from compoworld.tasks import GenerationSettings, GenerationStats, generate_tasks
from compoworld.tasks._context import _context
from compoworld.tasks._generate import _attempt, _chunk
from compoworld.tasks._model import Task

SETTINGS = GenerationSettings(min_steps=2, max_steps=4)


@pytest.mark.slow
def test_ray_generates_what_one_process_generates(local_ray: Any) -> None:
    settings = SETTINGS
    one, on_ray = GenerationStats(), GenerationStats()
    local = list(generate_tasks(6, seed=2, settings=settings, stats=one))
    remote = list(generate_tasks(6, seed=2, settings=settings, stats=on_ray, ray=True))
    assert len(local) == 6
    assert [t.model_dump_json() for t in remote] == [t.model_dump_json() for t in local]
    assert (on_ray.attempts, on_ray.rejected) == (one.attempts, one.rejected)
    # Resumed after the fourth task's attempt (what `generate` does): the same last two.
    start = local[3].provenance["attempt"] + 1
    seen_before = {(t.id) for t in local[:4]}
    tail = list(generate_tasks(2, seed=2, settings=settings, start_attempt=start, ray=True))
    assert [t.id for t in tail] == [t.id for t in local[4:]] and not seen_before & {
        t.id for t in tail}


def _outcome(outcome: Task | str) -> str:
    return outcome.model_dump_json() if isinstance(outcome, Task) else outcome


def _repeated_plan(seed: int, attempts: int) -> tuple[int, int]:
    """Two attempts of ``seed`` (earlier, later) whose plans are the same, the earlier a task."""
    first: dict[object, int] = {}
    for attempt in range(attempts):
        outcome, signature = _attempt(seed, attempt, SETTINGS, None)
        if signature is None:
            continue
        if signature in first:
            return first[signature], attempt
        if isinstance(outcome, Task):
            first[signature] = attempt
    raise AssertionError(f"no plan repeats in {attempts} attempts of seed {seed}")


def test_a_worker_given_its_chunks_out_of_order_writes_what_one_process_does() -> None:
    # A worker running the later attempt's chunk before the earlier one's (Ray does not promise
    # the order) must not call the earlier attempt a duplicate of the later one.
    earlier, later = _repeated_plan(2, 80)
    alone = _outcome(_attempt(2, earlier, SETTINGS, None)[0])
    late = _chunk((2, later, 1, SETTINGS, "out-of-order"))
    early = _chunk((2, earlier, 1, SETTINGS, "out-of-order"))
    assert _outcome(early[0][0]) == alone and alone.startswith("{")
    assert late[0][1] == early[0][1]  # the same plan: the parent drops the later attempt


LIFECYCLE = frozenset({"mount", "_settle", "fill", "_copy_rows", "settle", "reset", "_recover"})


class _Interrupt:
    """Counts the lines run in the environments' lifecycle methods; raises KeyboardInterrupt
    at the ``at``-th (where Ray's cancel lands in a running task: between two lines)."""

    def __init__(self, at: int | None) -> None:
        self.at, self.lines = at, 0

    def __call__(self, frame: FrameType, event: str, arg: object) -> Callable[..., Any] | None:
        if frame.f_code.co_name not in LIFECYCLE or "compoworld/service" not in (
                frame.f_code.co_filename):
            return None
        if event == "line":
            self.lines += 1
            if self.lines == self.at:
                raise KeyboardInterrupt
        return self


@pytest.fixture
def fresh_context() -> Iterator[None]:
    _context.cache_clear()
    yield
    _context.cache_clear()  # no test after this one sees an interrupted process's context


def test_an_attempt_cancelled_part_way_leaves_the_process_generating_the_same(
        fresh_context: None) -> None:
    """A Ray worker whose running task was cancelled (a KeyboardInterrupt anywhere in it) runs
    the next task with the same cached generation context: its outcomes must be a fresh
    process's."""
    attempts = range(3)
    counter = _Interrupt(None)
    sys.settrace(counter)
    try:
        expected = [_outcome(_attempt(2, a, SETTINGS, None)[0]) for a in attempts]
    finally:
        sys.settrace(None)
    assert counter.lines > 200  # services are mounted and settled in these attempts
    for at in range(7, counter.lines, counter.lines // 9):
        _context.cache_clear()
        sys.settrace(_Interrupt(at))
        try:
            for a in attempts:
                _attempt(2, a, SETTINGS, None)
        except KeyboardInterrupt:
            pass
        finally:
            sys.settrace(None)
        assert [_outcome(_attempt(2, a, SETTINGS, None)[0]) for a in attempts] == expected, at
