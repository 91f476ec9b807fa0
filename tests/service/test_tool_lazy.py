"""A tool's validator and schemas are built on first use, and are the same as built eagerly."""

from dataclasses import replace
from typing import Any

import pytest

from compoworld.errors import BadArguments
from compoworld.service import Db, Tool
from compoworld.service._tool import compile_params
from compoworld.types import Email


def invite(db: Db, email: Email, note: str | None = None) -> dict[str, Any]:
    """Invite someone.

    Args:
        email: Who to invite.
        note: A line for the invitation.
    """
    return {"email": email}


def test_schemas_are_built_on_first_use_and_match_the_eager_build():
    tool = Tool.from_function(invite, "write", returns=dict[str, str])
    assert not {"_compiled", "output", "output_schema"} & set(vars(tool))  # nothing built yet
    _, eager = compile_params("invite", tool.params)
    assert tool.parameters == eager
    assert "_compiled" in vars(tool) and tool.validator is tool.validator  # built once
    assert tool.output_schema == {"type": "object", "additionalProperties": {"type": "string"}}
    with pytest.raises(BadArguments, match="email"):
        tool.check_arguments({"email": "not an email"})
    assert tool.check_arguments({"email": "a@b.co"}) == {"email": "a@b.co"}
    simulated = replace(tool, simulated=True)  # a copy builds its own, the same
    assert simulated.parameters == tool.parameters and simulated.simulated
