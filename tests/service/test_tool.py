from typing import Any, Literal

import pytest

from compoworld.errors import NotFound, UserError
from compoworld.service import Db, Entity, Environment, Service, Tool, check_service, openai_tools
from compoworld.types import Date, Email, Ref


def documented(db: Db, email: Email, when: Date, kind: Literal["a", "b"] = "a",
               count: int = 3, note: str | None = None) -> dict[str, Any]:
    """Do a documented thing.

    More detail on a second paragraph.

    Args:
        email: Who to do it for.
        when: On which day.
        kind: Which variant.
        count: How many times.
        note: An optional note.
    """
    return {"email": email}


def test_schema_comes_from_signature_and_docstring():
    tool = Tool.from_function(documented, "read")
    assert tool.description == "Do a documented thing.\n\nMore detail on a second paragraph."
    schema = tool.parameters
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert schema["required"] == ["email", "when"]
    props = schema["properties"]
    assert props["email"] == {"type": "string", "format": "email", "description": "Who to do it for.",
                              "pattern": props["email"]["pattern"], "x-semantic-type": "Email"}
    assert props["when"]["format"] == "date" and props["when"]["x-semantic-type"] == "Date"
    assert props["kind"]["enum"] == ["a", "b"] and props["kind"]["default"] == "a"
    assert props["count"] == {"type": "integer", "description": "How many times.", "default": 3}
    assert props["note"] == {"type": "string", "description": "An optional note."}
    assert [p.semantic for p in tool.params] == ["Email", "Date", None, None, None]


def test_the_first_parameter_must_be_the_db_handle():
    def bad(email: str, other: int) -> None:
        """Bad."""

    with pytest.raises(UserError, match="first parameter"):
        Tool.from_function(bad, "read")


def test_unannotated_parameters_are_refused():
    def bad(db: Db, x) -> None:  # type: ignore[no-untyped-def]
        """Bad."""

    with pytest.raises(UserError, match="no type annotation"):
        Tool.from_function(bad, "read")


def test_tool_names_must_be_snake_case():
    with pytest.raises(UserError, match="lower snake case"):
        Tool.from_function(documented, "read", name="Do-It")


def test_refs_must_name_an_entity_of_the_service():
    service = Service("s", domain="d", description="x")

    def get_thing(db: Db, thing_id: Ref["thing"]) -> None:  # noqa: F821
        """Get.

        Args:
            thing_id: Id.
        """

    with pytest.raises(UserError, match="unknown entity 'thing'"):
        service.read(get_thing)


def test_service_tool_lookup_suggests(toy):
    with pytest.raises(NotFound, match="did you mean 'get_owner'"):
        toy.tool("get_onwer")


def test_openai_export_uses_qualified_names_and_drops_internal_keys(toy):
    env = Environment([toy])
    tools = openai_tools(env.tools)
    names = [t["function"]["name"] for t in tools]
    assert names == [f"toy__{name}" for name in toy.tools]
    text = str(tools)
    assert "x-semantic-type" not in text and "x-ref" not in text
    add = next(t for t in tools if t["function"]["name"] == "toy__add_entry")
    assert add["type"] == "function"
    assert add["function"]["parameters"]["required"] == ["owner_id", "amount"]


def test_check_service_catches_broken_services():
    broken = Service("broken", domain="test", description="Broken on purpose.")

    @broken.entity
    class Item(Entity):
        label: str

    @broken.read
    def list_items(db: Db, limit: int = 5) -> list[dict[str, Any]]:
        """List items (the parameter is not documented)."""
        db.insert(Item, label="written by a read")
        return db.select(Item, limit=limit)

    @broken.write
    def explode(db: Db, item_id: Ref[Item]) -> None:
        """Always crashes.

        Args:
            item_id: Any item.
        """
        raise RuntimeError("bug")

    @broken.read(returns=Item)
    def get_item(db: Db, item_id: Ref[Item]) -> dict[str, Any]:
        """Get an item, with a field its declared output does not have.

        Args:
            item_id: The item.
        """
        return {**db.get(Item, item_id), "surprise": 1}

    @broken.read
    def count_items(db: Db) -> dict[str, Any]:
        """Count items (declares a bare object as output)."""
        return {"n": db.count(Item)}

    calls = iter(range(10**6))

    @broken.seeder
    def seed(db: Db, pool: Any) -> None:
        db.insert(Item, label=f"item {next(calls)}")  # differs at each build: not deterministic

    report = check_service(broken)
    text = "\n".join(report.problems)
    assert not report.ok
    assert "parameter 'limit' is not documented" in text
    assert "read tool" in text
    assert "seeding is not deterministic" in text
    assert "broken__explode crashed" in text
    assert "get_item: result does not match its declared output at 'surprise'" in text
    assert "tool 'count_items' does not declare what it returns precisely" in text


def test_output_schemas_carry_semantic_types_and_references():
    from compoworld.catalog import load_service

    helpdesk = load_service("helpdesk")
    page = helpdesk.tools["list_tickets"].output_schema
    assert set(page["properties"]) == {"items", "total", "next_offset"}
    ticket = page["properties"]["items"]["items"]["properties"]
    assert ticket["id"]["x-ref"] == "ticket" and ticket["customer_id"]["x-ref"] == "customer"
    customer = helpdesk.tools["get_customer"].output_schema["properties"]
    assert customer["email"]["x-semantic-type"] == "Email"
    assert set(helpdesk.tools["delete_ticket"].output_schema["properties"]) == {"id", "deleted"}
