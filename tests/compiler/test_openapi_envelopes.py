"""Import details that decide entity fields: response envelopes, Google's standard query
parameters and clean one-sentence tool descriptions — compiled, verified and run."""

from typing import Any

from compoworld.compiler import compile_openapi, verify_spec
from compoworld.compiler._openapi import _transport
from compoworld.compiler._schema import Resolver
from compoworld.compiler._shape import record_shape
from compoworld.compiler._summary import summary_sentence
from compoworld.service import Environment, Provenance, build_service

_META = {"status_code": {"type": "integer"}, "status": {"type": "string"},
         "service": {"type": "string"}, "resource": {"type": "string"},
         "operation": {"type": "string"}}
_GOOGLE = [{"name": n, "in": "query", "schema": {"type": "string"}} for n in (
    "$.xgafv", "access_token", "alt", "callback", "fields", "key", "oauth_token", "prettyPrint",
    "quotaUser", "upload_protocol", "uploadType")]


def _ok(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


CRM: dict[str, Any] = {  # the shape of apideck.com/crm.json, cut down
    "openapi": "3.0.0", "info": {"title": "CRM"},
    "paths": {
        "/crm/contacts": {"get": {
            "operationId": "contactsAll",
            "summary": "List **contacts** (e.g. people you sell to). Paged with `cursor`.",
            "parameters": [{"name": "limit", "in": "query", "schema": {"type": "integer"}},
                           *_GOOGLE[:4]],
            "responses": _ok({"type": "object", "properties": {
                **_META, "data": {"type": "array", "items": {"$ref": "#/components/schemas/C"}},
                "meta": {"type": "object", "properties": {"cursor": {"type": "string"}}},
                "links": {"type": "object", "properties": {"next": {"type": "string"}}}}})}},
        "/crm/contacts/{id}": {"get": {
            "operationId": "contactsOne",
            "description": "<p>Get a contact.</p><p>Returns 404 when absent.</p>",
            "parameters": [{"name": "id", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "responses": _ok({"type": "object", "properties": {
                **_META, "data": {"$ref": "#/components/schemas/C"}}})}},
    },
    "components": {"schemas": {"C": {"type": "object", "properties": {
        "id": {"type": "string"}, "first_name": {"type": "string"},
        "last_name": {"type": "string"}, "name": {"type": "string"},
        "email": {"type": "string"}, "company_name": {"type": "string"},
        "website": {"type": "string"},
        "address": {"type": "object", "properties": {
            "city": {"type": "string"}, "postal_code": {"type": "string"}}}}}}},
}


def test_apideck_envelopes_unwrap_to_the_contact_and_it_links():
    result = compile_openapi(CRM, name="crm", domain="sales",
                             provenance=Provenance(source="crm.json"))
    (contact,) = [e for e in result.spec.entities if e.name == "contact"]
    fields = {f.name: f.type for f in contact.fields}
    assert not [f for f in fields if f.startswith("data") or f in _META]
    assert fields["email"] == "Email" and fields["company_name"] == "CompanyName"
    assert fields["name"] == "PersonName"  # beside a first and last name: the person's
    assert fields["first_name"] == "FirstName" and fields["website"] == "URL"
    assert fields["address_city"] == "City" and fields["address_postal_code"] == "PostalCode"
    verified = verify_spec(result.spec)
    named = {t.source: t.name for t in verified.spec.tools}
    listing, getting = named["GET /crm/contacts"], named["GET /crm/contacts/{id}"]
    assert set(verified.implemented) == {listing, getting}
    env = Environment([build_service(verified.spec)], seed=0)
    page = env.call(f"crm__{listing}", {"limit": 2})["data"]
    one = env.call(f"crm__{getting}", {"id": page["items"][0]["id"]})["data"]
    assert "@" in one["email"] and one == page["items"][0]


def test_google_standard_parameters_are_dropped():
    doc = {"openapi": "3.0.0", "info": {"title": "Tasks", "x-providerName": "googleapis.com"},
           "paths": {"/v1/lists": {"parameters": _GOOGLE, "get": {
               "parameters": [{"name": "maxResults", "in": "query",
                               "schema": {"type": "integer"}},
                              {"name": "showHidden", "in": "query",
                               "schema": {"type": "boolean"}}],
               "responses": _ok({"type": "object", "properties": {"items": {
                   "type": "array", "items": {"type": "object", "properties": {
                       "id": {"type": "string"}, "title": {"type": "string"}}}}}})}}}}
    spec = compile_openapi(doc, name="tasks", domain="productivity",
                           provenance=Provenance(source="tasks.json")).spec
    (tool,) = spec.tools
    # showHidden widens the answer by a flag: left out of the surface with the transport
    # controls (an equality filter on an invented `show_hidden` field would be wrong)
    assert [p.name for p in tool.params] == ["max_results"]
    fields = {f.name for e in spec.entities for f in e.fields}
    assert not fields & {"alt", "key", "quota_user", "oauth_token", "upload_type", "xgafv"}
    # outside Google, one of those names alone is an input like any other
    params = {("query", "key"): {}, ("query", "q"): {}}
    assert _transport(params, google=False) == set()
    assert _transport(params, google=True) == {("query", "key")}
    block = {("query", n): {} for n in ("alt", "quotaUser", "prettyPrint", "q")}
    assert len(_transport(block, google=False)) == 3  # Google's standard block anywhere


def test_tool_descriptions_are_one_clean_sentence():
    spec = compile_openapi(CRM, name="crm", domain="sales",
                           provenance=Provenance(source="crm.json")).spec
    described = {t.source: t.description for t in spec.tools}
    assert described == {"GET /crm/contacts": "List contacts (e.g., people you sell to).",
                         "GET /crm/contacts/{id}": "Get a contact."}
    assert summary_sentence("Lists items, i.e. all of them; see the docs. Then more.") == (
        "Lists items, i.e., all of them; see the docs.")
    assert summary_sentence("Version 2.1 of Dr. Who's API. More") == "Version 2.1 of Dr. Who's API."
    long = summary_sentence("word " * 100)
    assert long.endswith("…") and len(long) <= 301 and " wor…" not in long


def test_a_response_documented_only_by_an_example_gives_the_record():
    answer = {"http_code": 200, "response_code": "SUCCESS", "data": {
        "contact_id": 4, "email": "johndoe1@gmail.com", "first_name": "John",
        "action_address": "http://yourdomain.com", "address_city": "Altavista"}}
    doc = {"openapi": "3.0.0", "info": {"title": "SMS"}, "paths": {
        "/contacts/{contact_id}": {"get": {
            "parameters": [{"name": "contact_id", "in": "path", "required": True,
                            "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "OK", "content": {"application/json": {
                "examples": {"response": {"value": answer}}}}}}}}}}
    spec = compile_openapi(doc, name="sms", domain="communication",
                           provenance=Provenance(source="sms.json")).spec
    (contact,) = spec.entities
    fields = {f.name: f.type for f in contact.fields}
    assert fields["email"] == "Email" and fields["address_city"] == "City"
    assert fields["first_name"] == "FirstName" and "http_code" not in fields
    assert fields["action_address"] == "string"  # its example is a URL, not a street address


def test_a_name_is_a_persons_only_beside_the_records_own_first_or_last_name():
    maintainer = {"type": "object", "properties": {"first_name": {"type": "string"},
                                                   "last_name": {"type": "string"}}}
    doc = {"openapi": "3.0.0", "info": {"title": "Flags"}, "paths": {"/flags": {"get": {
        "responses": _ok({"type": "array", "items": {"type": "object", "properties": {
            "id": {"type": "string"}, "name": {"type": "string"},
            "maintainer": maintainer}}})}}}}
    spec = compile_openapi(doc, name="flags", domain="developer",
                           provenance=Provenance(source="flags.json")).spec
    fields = {f.name: f.type for e in spec.entities for f in e.fields}
    assert fields["maintainer_first_name"] == "FirstName" and fields["name"] == "string"


def _folder() -> dict[str, Any]:
    return {"type": "object", "properties": {"id": {"type": "string"},
                                             "name": {"type": "string"}}}


def test_a_list_named_by_the_paths_last_word_is_the_collection():
    """Mailchimp's ``GET /campaign-folders`` answers ``{"folders": [...], "_links": [...]}``."""
    answer = {"type": "object", "properties": {
        "folders": {"type": "array", "items": _folder()},
        "_links": {"type": "array", "items": {"type": "object", "properties": {
            "href": {"type": "string"}}}},
        "total_items": {"type": "integer"}}}
    assert record_shape(Resolver({}, "x"), answer, "", hint="campaign-folders") == (
        _folder()["properties"], True)


def test_a_page_object_named_like_the_path_is_unwrapped():
    """Spotify's ``GET /browse/featured-playlists``: ``{"message", "playlists": {"items"}}``."""
    page = {"type": "object", "properties": {"items": {"type": "array", "items": _folder()},
                                             "total": {"type": "integer"}}}
    answer = {"type": "object", "properties": {"message": {"type": "string"}, "playlists": page}}
    assert record_shape(Resolver({}, "x"), answer, "", hint="featured-playlists") == (
        _folder()["properties"], True)


def test_two_lists_with_no_name_to_choose_between_stay_one_object():
    """motaword's ``GET /earnings``: ``{"completed": [...], "ongoing": [...], "total"}``."""
    answer = {"type": "object", "properties": {
        "completed": {"type": "array", "items": _folder()},
        "ongoing": {"type": "array", "items": _folder()}, "total": {"type": "number"}}}
    assert record_shape(Resolver({}, "x"), answer, "", hint="earnings")[1] is False


def test_records_keyed_by_id_under_results_are_a_collection():
    """Oxford Dictionaries' ``GET /grammaticalFeatures/{source_language}``:
    ``{"metadata": {...}, "results": {"<id>": {"en": "..."}}}``."""
    label = {"type": "object", "properties": {"en": {"type": "string"}}}
    answer = {"type": "object", "properties": {
        "metadata": {"type": "object"},
        "results": {"type": "object", "additionalProperties": label}}}
    assert record_shape(Resolver({}, "x"), answer, "", hint="grammaticalFeatures") == (
        label["properties"], True)


def test_a_record_with_an_id_holding_its_items_is_no_envelope():
    """Magento's cart: ``{"id": 3, "items": [...], "customer": {...}}`` is one cart."""
    cart = {"type": "object", "properties": {"id": {"type": "integer"},
                                             "items": {"type": "array", "items": _folder()},
                                             "is_active": {"type": "boolean"}}}
    props, many = record_shape(Resolver({}, "x"), cart, "", hint="mine")
    assert many is False and set(props) == {"id", "items", "is_active"}


def test_the_callers_own_record_is_read_as_a_singleton():
    """``GET /carts/mine`` is the caller's cart, not a collection of "mines"."""
    cart = {"type": "object", "properties": {"id": {"type": "integer"},
                                             "items_count": {"type": "integer"}}}
    doc = {"openapi": "3.0.0", "info": {"title": "Shop"}, "paths": {
        "/carts/mine": {"get": {"responses": _ok(cart)}},
        "/carts/mine/items": {"get": {"responses": _ok({"type": "array", "items": _folder()})}},
    }}
    spec = compile_openapi(doc, name="shop", domain="commerce",
                           provenance=Provenance(source="shop.json")).spec
    assert {(t.name, t.op, t.entity) for t in spec.tools} == {
        ("get_cart", "get", "cart"), ("list_carts_items", "list", "carts_item")}
