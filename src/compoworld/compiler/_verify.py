"""``verify_spec``: conformance generated from a spec, per tool; failing tools are simulated.

The checks (each tool runs those of its operation, on a fresh copy of one seeded world):

* every required argument left out → 400 naming it; an unknown record id → 404;
* a valid call succeeds, its data matches the declared output, reads leave the state alone,
  and the same call on a fresh copy of the world gives the same data;
* get returns the record asked for; create → the record reads back; list / search include a
  record added to the state and every item honours each filter; update is visible; delete →
  a later delete is 404; a transition sets its status and refuses to repeat; send stores the
  message; count / summary agree with the state; compute answers the same question the same way.
"""

from __future__ import annotations

import random

from compoworld.compiler._result import ToolCheck, VerifyResult
from compoworld.compiler._verify_ops import CheckFailed, Context, check_op
from compoworld.errors import CompoWorldError
from compoworld.service import Environment, ServiceSpec, build_service


def verify_spec(spec: ServiceSpec, *, seed: int = 0) -> VerifyResult:
    """Verify every implemented tool of ``spec``; switch each failing tool to simulated.

    Args:
        spec: A compiled (or hand-written) service spec.
        seed: World seed of the checking environment.

    Returns:
        The spec with failures recorded as ``simulated_reason`` (``"verify: ..."``), the names
        of implemented tools, the simulated ones with reasons, and per-tool check results.

    Raises:
        UserError: The spec does not build on the engine at all.

    Example:
        >>> from compoworld.service import load_spec
        >>> from compoworld.catalog import catalog_path  # doctest: +SKIP
        >>> verify_spec(load_spec("helpdesk.json")).implemented  # doctest: +SKIP
        ['list_tickets', 'search_tickets', ...]
    """
    service = build_service(spec)
    env = Environment([service], seed=seed)
    checks: dict[str, ToolCheck] = {}
    ctx = Context(spec=spec, service=service, env=env, rng=random.Random(seed))
    for tool in spec.tools:
        if tool.simulated:
            continue
        env.reset()
        ctx.rng = random.Random(f"{seed}:{tool.name}")
        ctx.done, ctx.pristine = [], True
        try:
            check_op(ctx, tool)
            failure = None
        except CheckFailed as error:
            failure = str(error)
        except (CompoWorldError, KeyError, ValueError, TypeError, IndexError) as error:
            failure = f"check could not run: {type(error).__name__}: {error}"
        for crash in env.failures:
            failure = failure or f"{crash.tool} crashed: {crash.error}"
        checks[tool.name] = ToolCheck(tool.name, failure is None, tuple(ctx.done), failure)
    env.reset()
    env.close()
    tools, implemented, simulated = [], [], {}
    for tool in spec.tools:
        check = checks.get(tool.name)
        if tool.simulated:
            simulated[tool.name] = tool.simulated_reason or "simulated"
            tools.append(tool)
        elif check is not None and check.passed:
            implemented.append(tool.name)
            tools.append(tool)
        else:
            reason = f"verify: {check.failure if check else 'not checked'}"
            simulated[tool.name] = reason
            tools.append(tool.model_copy(update={"simulated": True, "simulated_reason": reason}))
    return VerifyResult(spec.model_copy(update={"tools": tools}), implemented, simulated, checks)

