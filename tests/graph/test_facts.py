from compoworld.graph import extract_facts
from compoworld.world import compose


def test_facts_of_a_page_keep_their_item_and_list_size():
    world = compose(["payments"], seed=0)
    tool = world.env.tools["payments__list_invoices"]
    page = world.call("payments__list_invoices", {"limit": 3})["data"]
    facts = extract_facts(tool.output_schema, page, "payments")
    ids = [f for f in facts if f.key == ("ref", "payments", "invoice")]
    assert [f.value for f in ids] == [item["id"] for item in page["items"]]
    assert {(f.list_path, f.list_size) for f in ids} == {("items", 3)}
    assert [f.index for f in ids] == [0, 1, 2] and ids[1].path == "items.1.id"
    money = {f.path for f in facts if f.key == ("type", "Money")}
    assert "items.0.amount" in money


def test_facts_of_a_record_and_nested_lists():
    world = compose(["payments"], seed=0)
    invoice_id = world.call("payments__list_invoices", {"status": "paid", "limit": 1}
                            )["data"]["items"][0]["id"]
    tool = world.env.tools["payments__get_invoice"]
    details = world.call("payments__get_invoice", {"invoice_id": invoice_id})["data"]
    facts = extract_facts(tool.output_schema, details, "payments")
    top = {f.path: f for f in facts if f.list_path is None}
    assert top["id"].value == invoice_id and top["customer_name"].key == ("type", "PersonName")
    payments = [f for f in facts if f.path.startswith("payments.") and f.path.endswith(".id")]
    assert payments and all(f.list_path == "payments" for f in payments)


def test_untyped_values_are_not_facts():
    world = compose(["contacts"], seed=0)
    tool = world.env.tools["contacts__list_groups"]
    groups = world.call("contacts__list_groups", {})["data"]
    facts = extract_facts(tool.output_schema, groups, "contacts")
    assert {f.key for f in facts} == {("ref", "contacts", "group")}  # names are plain text
