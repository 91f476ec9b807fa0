"""Response and body shapes: envelopes unwrapped, nested objects flattened within a budget."""

from typing import Any

import pytest

from compoworld.compiler._schema import Resolver, flatten
from compoworld.compiler._shape import body_shape, record_shape

CONTACT = {"type": "object", "properties": {
    "id": {"type": "string"}, "name": {"type": "string"},
    "email": {"type": "string", "format": "email"}}}
DOC: dict[str, Any] = {"components": {"schemas": {"Contact": CONTACT}}}
REF = {"$ref": "#/components/schemas/Contact"}


def shape(schema: dict[str, Any], hint: str = "") -> tuple[list[str], bool]:
    props, many = record_shape(Resolver(DOC, "test.json"), schema, "", hint=hint)
    return sorted(props), many


def obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


@pytest.mark.parametrize(("schema", "hint", "many"), [
    # apideck: {status_code, status, service, resource, operation, data: {...}}
    (obj(status_code={"type": "integer"}, status={"type": "string"},
         service={"type": "string"}, resource={"type": "string"},
         operation={"type": "string"}, data=REF), "contacts", False),
    # apideck lists: {data: [...], meta: {...}, links: {...}}
    (obj(status_code={"type": "integer"}, data={"type": "array", "items": REF},
         meta=obj(items_on_page={"type": "integer"}), links=obj(next={"type": "string"})),
     "contacts", True),
    # YNAB: {data: {contacts: [...], server_knowledge: 3}}
    (obj(data=obj(contacts={"type": "array", "items": REF},
                  server_knowledge={"type": "integer"})), "contacts", True),
    # YNAB one record: {data: {contact: {...}}} under /contacts/{id}
    (obj(data=obj(contact=REF, server_knowledge={"type": "integer"})), "contacts", False),
    # HAL: {_embedded: {items: [...]}, _links: {...}, current_page: 1}
    (obj(_links=obj(self=obj(href={"type": "string"})), current_page={"type": "integer"},
         _embedded=obj(items={"type": "array", "items": REF})), "contacts", True),
    # Open Banking: {data: [{Brand: [{BrandName, Contact: [...]}]}], meta: {...}}
    (obj(meta=obj(total={"type": "integer"}), data={"type": "array", "items": obj(
        Brand={"type": "array", "items": obj(BrandName={"type": "string"}, Contact={
            "type": "array", "items": REF})})}), "contacts", True),
])
def test_envelopes_are_unwrapped_to_the_record(schema, hint, many):
    assert shape(schema, hint) == (["email", "id", "name"], many)


def test_a_record_holding_a_data_object_is_no_envelope():
    record = obj(id={"type": "string"}, name={"type": "string"},
                 data=obj(size={"type": "integer"}))
    assert shape(record, "files") == (["data", "id", "name"], False)
    several = obj(status={"type": "string"}, data=CONTACT, extra=CONTACT)
    assert shape(several)[0] == ["data", "extra", "status"]


def test_a_body_wrapping_one_record_is_unwrapped():
    resolver = Resolver(DOC, "test.json")
    wrapped = {"type": "object", "required": ["contact"], "properties": {"contact": {
        "type": "object", "required": ["email"], "properties": CONTACT["properties"]}}}
    props, required, _ = body_shape(resolver, wrapped, "", "contacts")
    assert sorted(props) == ["email", "id", "name"] and required == ["email"]
    other = obj(settings=obj(theme={"type": "string"}))  # not named like the resource
    assert list(body_shape(resolver, other, "", "contacts")[0]) == ["settings"]


def test_flatten_opens_two_levels_and_spends_the_field_budget_on_facts():
    address = obj(city={"type": "string"}, postal_code={"type": "string"},
                  street={"type": "string"})
    record = {"id": {"type": "string"},
              "stats": obj(a={"type": "integer"}, b={"type": "integer"}, c={"type": "integer"}),
              "owner": obj(email={"type": "string"}, address=address)}
    flat = flatten(record)
    assert {"owner_email", "owner_address_city", "owner_address_postal_code", "stats_a"} <= set(
        flat)
    tight = flatten(record, max_fields=7)  # room for one object: the one with the facts
    assert "owner_address_city" in tight and "stats" in tight and "id" in tight
    assert len(tight) <= 7
    shallow = flatten(record, levels=1)
    assert "owner_address" in shallow and "owner_address_city" not in shallow
