"""``bench/fidelity.py`` against a real stdio MCP server (started by the real ``mcp`` client):
a call both sides refuse is no agreement, a refusal answered as plain text is a refusal."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("mcp")

sys.path.insert(0, str(Path(__file__).parents[2] / "bench"))

import anyio

from _agreement import verdict
from compoworld.compiler._harvest import harvest_mcp
from fidelity import measure

# A notes server with no create tool: every get of an id refuses ("Note not found", plain
# text, no isError) as the compiled side's 404 does; its delete answers "Deleted" for any
# id, where the compiled delete refuses an id it does not hold.
NOTES = textwrap.dedent('''
    try:  # mcp 2.x renamed FastMCP to MCPServer
        from mcp.server.mcpserver import MCPServer as FastMCP
    except ImportError:
        from mcp.server.fastmcp import FastMCP

    server = FastMCP("Notes")

    @server.tool()
    def list_notes() -> dict:
        """List the notes."""
        return {"notes": []}

    @server.tool()
    def get_note(note_id: str) -> str:
        """Get one note by id."""
        return "Note not found"

    @server.tool()
    def delete_note(note_id: str) -> str:
        """Delete a note by id."""
        return "Deleted"

    server.run()
''')


def test_both_refusing_is_no_agreement_and_text_refusals_are_refusals(tmp_path: Path) -> None:
    script = tmp_path / "notes.py"
    script.write_text(NOTES)
    command = [sys.executable, str(script)]
    doc = harvest_mcp(command, None, timeout=60)
    measured = anyio.run(measure, "notes", doc, command, {}, str(tmp_path), 3, 0)
    rows = measured["per_tool"]
    assert set(rows) == {"list_notes", "get_note", "delete_note"}
    # both refuse every get: unmeasured, never "faithful" (it was, counted as agreement)
    get = rows["get_note"]
    assert get["both_refused"] == get["calls"] == 3 and get["agreement"] is None
    assert verdict(get["agreement"], 0.8) == "unmeasured"
    # the real delete answers where ours refuses: measured, and unfaithful
    delete = rows["delete_note"]
    assert delete["real_only"] == 3 and delete["agreement"] == 0.0
    assert verdict(delete["agreement"], 0.8) == "unfaithful"
    listing = rows["list_notes"]
    assert listing["both_ok"] == 3 and verdict(listing["agreement"], 0.8) == "faithful"
