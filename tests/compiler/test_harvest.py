"""``harvest_mcp`` against real stdio MCP servers (started by the real ``mcp`` client), and the
harvested file compiled by the catalog build."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import orjson
import pytest

pytest.importorskip("mcp")

from compoworld.compiler._build import build_catalog
from compoworld.compiler._harvest import harvest_mcp, write_harvest
from compoworld.errors import UserError

NOTES_SERVER = textwrap.dedent('''
    import os
    try:  # mcp 2.x renamed FastMCP to MCPServer
        from mcp.server.mcpserver import MCPServer as FastMCP
    except ImportError:
        from mcp.server.fastmcp import FastMCP
    from mcp.types import ToolAnnotations

    server = FastMCP("Notes Server")

    READ, DESTRUCTIVE = ToolAnnotations(readOnlyHint=True), ToolAnnotations(destructiveHint=True)

    @server.tool(annotations=READ)
    def list_notes(tag: str = "") -> list[dict]:
        """List the notes, optionally only those with a tag."""
        return []

    @server.tool()
    def create_note(title: str, body: str, author_email: str) -> dict:
        """Create a note.

        Args:
            title: The note's title.
            body: The text.
            author_email: Email of the author.
        """
        return {"id": "n1", "title": title, "body": body, "author_email": author_email}

    @server.tool(annotations=READ)
    def get_note(note_id: str) -> dict:
        """Get one note by id."""
        return {"id": note_id}

    @server.tool(annotations=DESTRUCTIVE)
    def delete_note(note_id: str) -> dict:
        """Delete a note by id."""
        return {"deleted": note_id, "key": os.environ.get("NOTES_KEY", "")}

    server.run()
''')

PAGED_SERVER = textwrap.dedent('''
    import inspect
    import anyio
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    TOOLS = [types.Tool(name=f"get_item_{i}", description=f"Tool {i}.",
                        inputSchema={"type": "object", "properties": {}}) for i in range(5)]

    def page(cursor):
        start = int(cursor) if cursor else 0
        end = start + 2
        return types.ListToolsResult(tools=TOOLS[start:end],
                                     nextCursor=str(end) if end < len(TOOLS) else None)

    if "on_list_tools" in inspect.signature(Server.__init__).parameters:  # mcp 2.x
        async def on_list_tools(ctx, params):
            return page(params.cursor if params else None)

        server = Server("paged", on_list_tools=on_list_tools)
    else:  # mcp 1.x
        server = Server("paged")

        async def list_tools(request):
            params = request.params
            return types.ServerResult(page(params.cursor if params else None))

        server.request_handlers[types.ListToolsRequest] = list_tools

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
''')


def _script(tmp_path: Path, name: str, code: str) -> list[str]:
    path = tmp_path / name
    path.write_text(code)
    return [sys.executable, str(path)]


@pytest.mark.slow
def test_harvest_lists_every_tool_and_compiles(tmp_path: Path):
    spec = harvest_mcp(_script(tmp_path, "notes.py", NOTES_SERVER), {"NOTES_KEY": "dummy"})
    assert spec["name"] == "notes_server"
    assert [t["name"] for t in spec["tools"]] == ["list_notes", "create_note", "get_note",
                                                  "delete_note"]
    create = spec["tools"][1]
    assert create["inputSchema"]["required"] == ["title", "body", "author_email"]
    assert spec["tools"][0]["annotations"]["readOnlyHint"] is True
    assert spec["harvest"]["env_keys"] == ["NOTES_KEY"] and b"dummy" not in orjson.dumps(spec)
    write_harvest(spec, tmp_path / "specs" / "notes.json")
    report = build_catalog(tmp_path / "specs", tmp_path / "catalog", workers=1, progress=False,
                           min_implemented=0.0, keep_islands=True)  # alone in its catalog
    assert report.built == 1, orjson.loads((tmp_path / "catalog" / "catalog.json").read_bytes())
    (record,) = orjson.loads((tmp_path / "catalog" / "catalog.json").read_bytes())["services"]
    assert record["kind"] == "mcp" and record["tools"] == 4 and record["implemented"] >= 1
    assert "Email" in record["linking_types"]


@pytest.mark.slow
def test_harvest_follows_cursors_through_all_pages(tmp_path: Path):
    spec = harvest_mcp(_script(tmp_path, "paged.py", PAGED_SERVER))
    assert [t["name"] for t in spec["tools"]] == [f"get_item_{i}" for i in range(5)]
    assert spec["harvest"]["pages"] == 3


def test_a_server_that_does_not_start_is_a_clear_error(tmp_path: Path):
    with pytest.raises(UserError, match=r"failed|did not list"):
        harvest_mcp([sys.executable, "-c", "import sys; sys.exit(3)"], timeout=20)
    with pytest.raises(UserError, match="needs the server command"):
        harvest_mcp([])
