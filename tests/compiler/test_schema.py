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
    # musixmatch: {message: {header: {status_code}, body: {track_list: [{track: {...}}]}}}
    (obj(message=obj(header=obj(status_code={"type": "number"}), body=obj(
        track_list={"type": "array", "items": obj(track=REF)}))), "track.search", True),
    # musixmatch one record: {message: {header: {...}, body: {track: {...}}}}
    (obj(message=obj(header=obj(status_code={"type": "number"}), body=obj(track=REF))),
     "track.get", False),
    # UK Parliament oral questions: {Response: [...], PagingInfo, StatusCode, Success, Errors}
    (obj(Errors={"type": "array", "items": {"type": "string"}},
         PagingInfo=obj(Total={"type": "integer"}), Response={"type": "array", "items": REF},
         StatusCode={"type": "string"}, Success={"type": "boolean"}), "list", True),
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


def test_a_lone_object_is_unwrapped_only_around_a_list_or_an_envelope():
    # payrun.io: {LinkCollection: {Links: {Link: [...]}}}, links only: stays one object
    links = obj(LinkCollection=obj(Links=obj(Link={"type": "array", "items": obj(
        href={"type": "string"})})))
    assert shape(links, "tags") == (["LinkCollection"], False)
    # opendatanetwork.com (an example): {topics: {demographics: {...}}} is a map, no envelope
    topics = obj(topics=obj(demographics=obj(name={"type": "string"})))
    assert shape(topics, "availability") == (["topics"], False)
    # a list beside more than metadata stays part of one object
    report = obj(Response={"type": "array", "items": REF}, Owner=obj(name={"type": "string"}),
                 a={"type": "string"}, b={"type": "string"}, c={"type": "string"})
    assert shape(report, "report") == (["Owner", "Response", "a", "b", "c"], False)


def test_identifying_facts_of_objects_too_large_to_flatten_are_lifted():
    # adyen.com FundService: accountHolderDetails has more than 16 properties
    details = {f"other{i}": {"type": "string"} for i in range(18)}
    details |= {"email": {"type": "string"}, "fullPhoneNumber": {"type": "string"},
                "merchantCategoryCode": {"type": "string"}}
    record = {"accountHolderCode": {"type": "string"}, "accountHolderDetails": obj(**details)}
    flat = flatten(record)
    assert set(flat) == {"accountHolderCode", "accountHolderDetails",
                         "accountHolderDetails_email", "accountHolderDetails_fullPhoneNumber"}
    assert set(flatten(record, max_fields=3)) == {  # the budget holds: one fact lifted
        "accountHolderCode", "accountHolderDetails", "accountHolderDetails_email"}
