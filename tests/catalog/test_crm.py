"""The crm service on the real runtime: seeding, reads, aggregates and business rules."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from typing import Any

import pytest

from compoworld.catalog import load_service
from compoworld.service import Environment, check_service

SERVICE = "crm"  # the conftest's world and env fixtures serve it

OPEN = ("prospecting", "qualification", "proposal", "negotiation")


def rows(env: Environment, entity: str, **where: Any) -> list[dict[str, Any]]:
    return env.db("crm").select(entity, where)


def open_deal(env: Environment, stage: str = "prospecting") -> dict[str, Any]:
    return next(d for d in rows(env, "deal", stage=stage) if d["amount"] > 0)


# -- seeding -----------------------------------------------------------------------------


def test_passes_the_conformance_check() -> None:
    report = check_service(load_service("crm"))
    assert report.ok, str(report)


def test_seed_is_deterministic_realistic_and_seed_dependent(env: Environment) -> None:
    counts = {table: len(records) for table, records in env.rows().items()}
    assert 250 <= sum(counts.values()) <= 400, counts
    assert all(n > 0 for n in counts.values()), counts
    again = Environment([load_service("crm")], seed=0)
    assert again.digest() == env.digest()
    assert Environment([load_service("crm")], seed=1).digest() != env.digest()


def test_seeded_accounts_contacts_and_leads_come_from_the_pool(env: Environment) -> None:
    companies = {c.name: c for c in env.pool.companies}
    people = {p.email: p for p in env.pool.people}
    accounts = {a["id"]: a for a in rows(env, "account")}
    for account in accounts.values():
        company = companies[account["name"]]
        assert (account["domain"], account["industry"]) == (company.domain, company.industry)
    for contact in rows(env, "contact"):
        person = people[contact["email"]]
        assert (contact["name"], contact["phone"], contact["job_title"]) == (
            person.name, person.phone, person.job_title)
        assert accounts[contact["account_id"]]["name"] == person.company.name
    for lead in rows(env, "lead"):
        person = people[lead["email"]]
        assert (lead["name"], lead["company"]) == (person.name, person.company.name)
    reps = env.pool.people[-6:]
    owners = {r["owner"] for t in ("account", "deal", "lead") for r in rows(env, t)}
    assert owners <= {p.name for p in reps}
    seeded = {r["email"] for t in ("contact", "lead") for r in rows(env, t)}
    assert not seeded & {p.email for p in reps}


def test_seeded_state_is_consistent(env: Environment) -> None:
    today = env.today.isoformat()
    contacts = {c["id"]: c for c in rows(env, "contact")}
    for deal in rows(env, "deal"):
        if deal["contact_id"]:
            assert contacts[deal["contact_id"]]["account_id"] == deal["account_id"]
        if deal["stage"] in ("won", "lost"):
            assert deal["close_date"] < today
        if deal["stage"] == "won":
            assert deal["amount"] > 0
    for lead in rows(env, "lead"):
        converted = lead["status"] == "converted"
        assert (lead["converted_contact_id"] is not None) == converted
        if converted:
            assert contacts[lead["converted_contact_id"]]["email"] == lead["email"]
    for activity in rows(env, "activity"):
        assert activity["occurred_on"] <= today
        assert contacts[activity["contact_id"]]["account_id"] == activity["account_id"]


# -- reads -------------------------------------------------------------------------------


def test_list_accounts_pages_through_accounts_sorted_by_name(env: Environment, ok, refused) -> None:
    first = ok(env, "crm__list_accounts", limit=5)
    second = ok(env, "crm__list_accounts", limit=5, offset=5)
    names = sorted(a["name"] for a in rows(env, "account"))
    assert [a["name"] for a in first["items"] + second["items"]] == names[:10]
    assert first["total"] == second["total"] == len(names)
    refused(env, "crm__list_accounts", 400, limit=0)
    refused(env, "crm__list_accounts", 400, limit=101)


def test_list_accounts_filters_by_query_and_industry(env: Environment, ok) -> None:
    account = rows(env, "account")[3]
    found = ok(env, "crm__list_accounts", query=account["domain"].upper())
    assert account["id"] in [a["id"] for a in found["items"]]
    by_industry = ok(env, "crm__list_accounts", industry=account["industry"], limit=100)
    expected = [a for a in rows(env, "account") if a["industry"] == account["industry"]]
    assert by_industry["total"] == len(expected)
    assert {a["id"] for a in by_industry["items"]} == {a["id"] for a in expected}


def test_list_contacts_searches_by_email_and_account(env: Environment, ok, refused) -> None:
    contact = rows(env, "contact")[7]
    found = ok(env, "crm__list_contacts", query=contact["email"])
    assert [c["id"] for c in found["items"]] == [contact["id"]]
    at_account = ok(env, "crm__list_contacts", account_id=contact["account_id"], limit=100)
    assert at_account["total"] == len(rows(env, "contact", account_id=contact["account_id"]))
    assert all(c["account_id"] == contact["account_id"] for c in at_account["items"])
    refused(env, "crm__list_contacts", 404, account_id="ac_missing")


def test_list_leads_filters_by_status_newest_first(env: Environment, ok) -> None:
    leads = ok(env, "crm__list_leads", status="new", limit=100)
    assert leads["total"] == len(rows(env, "lead", status="new")) > 0
    dates = [lead["created_on"] for lead in leads["items"]]
    assert dates == sorted(dates, reverse=True)
    assert all(lead["status"] == "new" for lead in leads["items"])


def test_list_deals_filters_open_deals_of_an_owner(env: Environment, ok) -> None:
    owner = rows(env, "deal")[0]["owner"]
    found = ok(env, "crm__list_deals", owner=owner, open_only=True, limit=100)
    expected = [d for d in rows(env, "deal", owner=owner) if d["stage"] in OPEN]
    assert found["total"] == len(expected) > 0
    assert sorted(d["id"] for d in found["items"]) == sorted(d["id"] for d in expected)
    dates = [d["close_date"] for d in found["items"]]
    assert dates == sorted(dates)
    soon = (env.today + timedelta(days=30)).isoformat()
    closing = ok(env, "crm__list_deals", closing_before=soon, limit=100)
    assert closing["total"] == sum(d["close_date"] <= soon for d in rows(env, "deal"))


def test_get_account_includes_its_contacts_deals_and_activities(env: Environment, ok, refused) -> None:
    account = rows(env, "account")[0]
    data = ok(env, "crm__get_account", account_id=account["id"])
    assert data["name"] == account["name"]
    for key, entity in (("contacts", "contact"), ("deals", "deal"), ("activities", "activity")):
        assert sorted(r["id"] for r in data[key]) == sorted(
            r["id"] for r in rows(env, entity, account_id=account["id"]))
    refused(env, "crm__get_account", 404, account_id="ac_missing")


@pytest.mark.parametrize("currency", ["USD", "EUR"])
def test_pipeline_summary_matches_a_hand_computation(env: Environment, currency: str, ok) -> None:
    deals = rows(env, "deal", currency=currency)
    data = ok(env, "crm__get_pipeline_summary", currency=currency.lower())
    count: dict[str, int] = defaultdict(int)
    total: dict[str, float] = defaultdict(float)
    for deal in deals:
        count[deal["stage"]] += 1
        total[deal["stage"]] += deal["amount"]
    assert [s["stage"] for s in data["stages"]] == [*OPEN, "won", "lost"]
    for stage in data["stages"]:
        assert stage["count"] == count[stage["stage"]]
        assert stage["total_amount"] == pytest.approx(total[stage["stage"]])
    assert data["open_count"] == sum(count[s] for s in OPEN)
    assert data["open_total"] == pytest.approx(sum(total[s] for s in OPEN))
    weights = {"prospecting": 0.1, "qualification": 0.25, "proposal": 0.5, "negotiation": 0.75}
    assert data["weighted_open_total"] == pytest.approx(
        sum(total[s] * w for s, w in weights.items()), abs=0.01)


def test_pipeline_summary_by_owner(env: Environment, ok) -> None:
    owner = rows(env, "deal")[0]["owner"]
    data = ok(env, "crm__get_pipeline_summary", owner=owner)
    mine = rows(env, "deal", owner=owner, currency="USD")
    assert sum(s["count"] for s in data["stages"]) == len(mine)
    assert data["open_total"] == pytest.approx(
        sum(d["amount"] for d in mine if d["stage"] in OPEN))


# -- deals -------------------------------------------------------------------------------


def test_create_deal_defaults_to_the_account_owner(env: Environment, ok) -> None:
    contact = rows(env, "contact")[0]
    account = env.db("crm").get("account", contact["account_id"])
    close = (env.today + timedelta(days=45)).isoformat()
    deal = ok(env, "crm__create_deal", account_id=account["id"], name="Renewal 2026", amount=12500,
              close_date=close, contact_id=contact["id"])
    assert (deal["stage"], deal["owner"]) == ("prospecting", account["owner"])
    assert deal["amount"] == 12500
    listed = ok(env, "crm__list_deals", account_id=account["id"], limit=100)["items"]
    assert deal in listed


def test_create_deal_rules(env: Environment, refused) -> None:
    contact = rows(env, "contact")[0]
    other = next(a for a in rows(env, "account") if a["id"] != contact["account_id"])
    future = (env.today + timedelta(days=10)).isoformat()
    args = {"account_id": contact["account_id"], "name": "X", "amount": 10.0, "close_date": future}
    refused(env, "crm__create_deal", 422, **{**args, "close_date": "2020-01-01"})
    refused(env, "crm__create_deal", 422, **{**args, "account_id": other["id"],
                                             "contact_id": contact["id"]})
    refused(env, "crm__create_deal", 400, **{**args, "amount": -5})
    refused(env, "crm__create_deal", 400, **{**args, "name": "  "})
    refused(env, "crm__create_deal", 404, **{**args, "account_id": "ac_missing"})
    refused(env, "crm__create_deal", 400, **{**args, "close_date": "next week"})


def test_update_deal_changes_only_the_fields_given(env: Environment, ok) -> None:
    deal = next(d for d in rows(env, "deal") if d["stage"] in OPEN and d["contact_id"]
                and len(rows(env, "contact", account_id=d["account_id"])) > 1)
    colleague = next(c for c in rows(env, "contact", account_id=deal["account_id"])
                     if c["id"] != deal["contact_id"])
    close = (env.today + timedelta(days=60)).isoformat()
    changed = ok(env, "crm__update_deal", deal_id=deal["id"], amount=0, close_date=close,
                 name="  Bigger scope  ", owner="Pat Seller")
    assert changed == {**deal, "amount": 0, "close_date": close, "name": "Bigger scope",
                       "owner": "Pat Seller"}
    listed = ok(env, "crm__list_deals", account_id=deal["account_id"], limit=100)["items"]
    assert changed in listed
    assert ok(env, "crm__update_deal", deal_id=deal["id"]) == changed  # nothing to change
    today = ok(env, "crm__update_deal", deal_id=deal["id"], close_date=env.today.isoformat())
    assert (today["close_date"], today["amount"]) == (env.today.isoformat(), 0)
    moved = ok(env, "crm__update_deal", deal_id=deal["id"], contact_id=colleague["id"])
    assert moved == {**today, "contact_id": colleague["id"]}
    assert moved in ok(env, "crm__get_account", account_id=deal["account_id"])["deals"]


def test_update_deal_keeps_the_pipeline_summary_in_step(env: Environment, ok) -> None:
    deal = open_deal(env, "negotiation")
    before = ok(env, "crm__get_pipeline_summary", currency=deal["currency"])
    ok(env, "crm__update_deal", deal_id=deal["id"], amount=deal["amount"] + 1000)
    after = ok(env, "crm__get_pipeline_summary", currency=deal["currency"])
    assert after["open_total"] == pytest.approx(before["open_total"] + 1000)
    assert after["weighted_open_total"] == pytest.approx(before["weighted_open_total"] + 750)


def test_update_deal_rules(env: Environment, refused) -> None:
    deal = open_deal(env, "qualification")
    other = next(c for c in rows(env, "contact") if c["account_id"] != deal["account_id"])
    yesterday = (env.today - timedelta(days=1)).isoformat()
    for stage in ("won", "lost"):
        closed = rows(env, "deal", stage=stage)[0]
        assert stage in refused(env, "crm__update_deal", 422, deal_id=closed["id"], amount=10)
        refused(env, "crm__update_deal", 422, deal_id=closed["id"])
        refused(env, "crm__update_deal", 404, deal_id=closed["id"], contact_id="ct_missing")
    assert "past" in refused(env, "crm__update_deal", 422, deal_id=deal["id"], close_date=yesterday)
    refused(env, "crm__update_deal", 422, deal_id=deal["id"], contact_id=other["id"])
    refused(env, "crm__update_deal", 400, deal_id=deal["id"], amount=-0.01)
    refused(env, "crm__update_deal", 400, deal_id=deal["id"], name=" ")
    refused(env, "crm__update_deal", 400, deal_id=deal["id"], owner="")
    refused(env, "crm__update_deal", 400, deal_id=deal["id"], close_date="soon")
    refused(env, "crm__update_deal", 404, deal_id="dl_missing", amount=10)
    refused(env, "crm__update_deal", 404, deal_id=deal["id"], contact_id="ct_missing")
    assert env.db("crm").get("deal", deal["id"]) == deal


def test_deal_stages_only_move_forward(env: Environment, ok, refused) -> None:
    deal = open_deal(env, "qualification")
    refused(env, "crm__advance_deal_stage", 422, deal_id=deal["id"], stage="prospecting")
    refused(env, "crm__advance_deal_stage", 409, deal_id=deal["id"], stage="qualification")
    moved = ok(env, "crm__advance_deal_stage", deal_id=deal["id"], stage="negotiation")
    assert moved["stage"] == "negotiation" and moved["close_date"] == deal["close_date"]
    refused(env, "crm__advance_deal_stage", 422, deal_id=deal["id"], stage="proposal")


def test_winning_a_deal_closes_it_today(env: Environment, ok, refused) -> None:
    deal = open_deal(env, "negotiation")
    before = ok(env, "crm__get_pipeline_summary", currency=deal["currency"])
    won = ok(env, "crm__advance_deal_stage", deal_id=deal["id"], stage="won")
    assert (won["stage"], won["close_date"]) == ("won", env.today.isoformat())
    after = ok(env, "crm__get_pipeline_summary", currency=deal["currency"])
    assert after["stages"][4]["count"] == before["stages"][4]["count"] + 1
    refused(env, "crm__advance_deal_stage", 422, deal_id=deal["id"], stage="lost", lost_reason="x")


def test_a_deal_worth_nothing_cannot_be_won(env: Environment, ok, refused) -> None:
    # Opened here: whether the seed holds a prospecting deal not estimated yet is chance.
    account = rows(env, "account")[0]
    deal = ok(env, "crm__create_deal", account_id=account["id"], name="Pilot", amount=0,
              close_date=env.today.isoformat())
    message = refused(env, "crm__advance_deal_stage", 422, deal_id=deal["id"], stage="won")
    assert "0" in message


def test_losing_a_deal_needs_a_reason(env: Environment, ok, refused) -> None:
    deal = open_deal(env, "proposal")
    refused(env, "crm__advance_deal_stage", 422, deal_id=deal["id"], stage="lost")
    lost = ok(env, "crm__advance_deal_stage", deal_id=deal["id"], stage="lost",
              lost_reason="Went with a competitor")
    assert (lost["stage"], lost["lost_reason"]) == ("lost", "Went with a competitor")
    assert lost["close_date"] == env.today.isoformat()
    refused(env, "crm__advance_deal_stage", 422, deal_id=deal["id"], stage="won")


# -- creating accounts, contacts and leads -----------------------------------------------


def test_create_account_is_listed_and_fetched(env: Environment, ok) -> None:
    names = [a["name"] for a in rows(env, "account")]
    account = ok(env, "crm__create_account", name="  Zephyr   Robotics ", owner="Pat Seller",
                 domain="HTTPS://www.Zephyr-Robotics.io/about", industry="Manufacturing")
    assert (account["name"], account["domain"], account["owner"], account["created_on"]) == (
        "Zephyr Robotics", "zephyr-robotics.io", "Pat Seller", env.today.isoformat())
    assert ok(env, "crm__get_account", account_id=account["id"]) == {
        **account, "contacts": [], "deals": [], "activities": []}
    found = ok(env, "crm__list_accounts", query="zephyr-robotics")
    assert found == {"items": [account], "total": 1, "next_offset": None}
    listed = ok(env, "crm__list_accounts", limit=100)
    assert listed["total"] == len(names) + 1
    assert [a["name"] for a in listed["items"]] == sorted([*names, "Zephyr Robotics"])[:100]
    bare = ok(env, "crm__create_account", name="Quiet Holdings", owner="Pat Seller")
    assert (bare["domain"], bare["industry"]) == (None, None)


def test_create_account_rules(env: Environment, refused) -> None:
    existing = rows(env, "account")[0]
    base = {"owner": "Pat Seller", "domain": "new-co.com"}
    message = refused(env, "crm__create_account", 409, name=existing["name"], **base)
    assert existing["id"] in message
    refused(env, "crm__create_account", 409, name=existing["name"].upper(), **base)
    refused(env, "crm__create_account", 409, name=f" {existing['name'].lower()} ", **base)
    refused(env, "crm__create_account", 400, name="  ", **base)
    refused(env, "crm__create_account", 400, name="New Co", owner=" ", domain="new-co.com")
    for domain in ("not a domain", "http://", " ", "localhost"):
        refused(env, "crm__create_account", 400, name="New Co", owner="Pat Seller", domain=domain)
    refused(env, "crm__create_account", 400, name="New Co", domain="new-co.com")  # no owner


def test_create_contact_shows_on_its_account(env: Environment, ok) -> None:
    account = rows(env, "account")[2]
    contact = ok(env, "crm__create_contact", account_id=account["id"], name="Ada Lovelace",
                 email="Ada.Lovelace@Example.com", phone="+1-555-010-9999",
                 job_title="Head of Engines")
    assert (contact["email"], contact["account_id"]) == ("ada.lovelace@example.com", account["id"])
    assert contact in ok(env, "crm__get_account", account_id=account["id"])["contacts"]
    found = ok(env, "crm__list_contacts", query="ada.lovelace@")
    assert found == {"items": [contact], "total": 1, "next_offset": None}
    at_account = ok(env, "crm__list_contacts", account_id=account["id"], limit=100)
    assert at_account["total"] == len(rows(env, "contact", account_id=account["id"]))


def test_create_contact_rules(env: Environment, refused) -> None:
    taken = rows(env, "contact")[0]
    account = rows(env, "account")[0]
    base = {"account_id": account["id"], "name": "Someone New"}
    refused(env, "crm__create_contact", 404, **{**base, "account_id": "ac_missing"}, email="a@b.com")
    assert taken["id"] in refused(env, "crm__create_contact", 409, **base, email=taken["email"])
    refused(env, "crm__create_contact", 409, **base, email=taken["email"].upper())
    refused(env, "crm__create_contact", 400, **base, email="not-an-email")
    refused(env, "crm__create_contact", 400, **{**base, "name": " "}, email="a@b.com")


def test_create_lead_is_new_and_listed_first(env: Environment, ok) -> None:
    lead = ok(env, "crm__create_lead", name="Grace Hopper", email="Grace@Navy.example",
              company="Compilers Inc", source="event", owner="Pat Seller",
              job_title="Rear Admiral")
    assert (lead["status"], lead["created_on"], lead["email"]) == (
        "new", env.today.isoformat(), "grace@navy.example")
    assert lead["converted_contact_id"] is None
    newest = ok(env, "crm__list_leads", status="new", limit=1)
    assert newest["items"] == [lead]
    assert newest["total"] == len(rows(env, "lead", status="new"))
    converted = ok(env, "crm__convert_lead", lead_id=lead["id"])
    assert converted["contact"]["email"] == "grace@navy.example"


def test_create_lead_rules(env: Environment, refused) -> None:
    leads = rows(env, "lead")
    lead_emails = {lead["email"] for lead in leads}
    contact = next(c for c in rows(env, "contact") if c["email"] not in lead_emails)
    base = {"name": "Someone New", "company": "Newco", "source": "web", "owner": "Pat Seller"}
    assert leads[0]["id"] in refused(env, "crm__create_lead", 409, **base, email=leads[0]["email"])
    refused(env, "crm__create_lead", 409, **base, email=leads[1]["email"].upper())
    message = refused(env, "crm__create_lead", 409, **base, email=contact["email"].upper())
    assert contact["name"] in message and contact["id"] in message
    refused(env, "crm__create_lead", 400, **{**base, "source": "billboard"}, email="x@newco.com")
    refused(env, "crm__create_lead", 400, **{**base, "company": " "}, email="x@newco.com")
    refused(env, "crm__create_lead", 400, **base, email="x@")


# -- accounts and leads ------------------------------------------------------------------


def test_an_account_with_open_deals_cannot_be_deleted(env: Environment, refused) -> None:
    deal = open_deal(env, "proposal")
    refused(env, "crm__delete_account", 409, account_id=deal["account_id"])
    refused(env, "crm__delete_account", 404, account_id="ac_missing")


def test_deleting_an_account_removes_its_records_but_keeps_leads(env: Environment, ok, refused) -> None:
    lead = rows(env, "lead", status="converted")[0]
    account_id = env.db("crm").get("contact", lead["converted_contact_id"])["account_id"]
    for deal in rows(env, "deal", account_id=account_id):
        if deal["stage"] in OPEN:
            ok(env, "crm__advance_deal_stage", deal_id=deal["id"], stage="lost", lost_reason="Closed")
    result = ok(env, "crm__delete_account", account_id=account_id)
    assert result["deleted"] and result["contacts_deleted"] > 0
    refused(env, "crm__get_account", 404, account_id=account_id)
    for entity in ("contact", "deal", "activity"):
        assert rows(env, entity, account_id=account_id) == []
    kept = env.db("crm").get("lead", lead["id"])
    assert (kept["status"], kept["converted_contact_id"]) == ("converted", None)


def test_convert_lead_creates_an_account_contact_and_deal(env: Environment, ok, refused) -> None:
    accounts = {a["name"] for a in rows(env, "account")}
    lead = next(lead for lead in rows(env, "lead", status="new")
                if lead["company"] not in accounts)
    data = ok(env, "crm__convert_lead", lead_id=lead["id"], deal_amount=30000)
    assert data["account"]["name"] == lead["company"]
    assert data["account"]["owner"] == lead["owner"]
    assert (data["contact"]["email"], data["contact"]["name"]) == (lead["email"], lead["name"])
    assert data["deal"]["amount"] == 30000 and data["deal"]["stage"] == "prospecting"
    assert data["deal"]["close_date"] == (env.today + timedelta(days=30)).isoformat()
    assert data["lead"]["status"] == "converted"
    account = ok(env, "crm__get_account", account_id=data["account"]["id"])
    assert [c["id"] for c in account["contacts"]] == [data["contact"]["id"]]
    assert [d["id"] for d in account["deals"]] == [data["deal"]["id"]]
    assert "already converted" in refused(env, "crm__convert_lead", 409, lead_id=lead["id"])


def test_convert_lead_joins_an_existing_account(env: Environment, ok) -> None:
    accounts = {a["name"]: a for a in rows(env, "account")}
    lead = next(lead for lead in rows(env, "lead")
                if lead["status"] in ("new", "qualified") and lead["company"] in accounts)
    count = len(accounts)
    data = ok(env, "crm__convert_lead", lead_id=lead["id"])
    assert data["account"]["id"] == accounts[lead["company"]]["id"]
    assert data["deal"] is None
    assert len(rows(env, "account")) == count
    found = ok(env, "crm__list_contacts", query=lead["email"])["items"]
    assert [c["account_id"] for c in found] == [accounts[lead["company"]]["id"]]


def test_converted_and_disqualified_leads_cannot_be_converted(env: Environment, refused) -> None:
    converted = rows(env, "lead", status="converted")[0]
    assert "already converted" in refused(env, "crm__convert_lead", 409, lead_id=converted["id"])
    disqualified = rows(env, "lead", status="disqualified")[0]
    refused(env, "crm__convert_lead", 422, lead_id=disqualified["id"])
    refused(env, "crm__convert_lead", 404, lead_id="ld_missing")
    new = rows(env, "lead", status="new")[0]
    refused(env, "crm__convert_lead", 400, lead_id=new["id"], deal_amount=-1)


# -- activities --------------------------------------------------------------------------


def test_log_activity_is_dated_today_and_shows_on_the_account(env: Environment, ok) -> None:
    deal = next(d for d in rows(env, "deal") if d["contact_id"])
    activity = ok(env, "crm__log_activity", kind="call", subject="Discussed renewal pricing",
                  account_id=deal["account_id"], contact_id=deal["contact_id"],
                  deal_id=deal["id"])
    assert activity["occurred_on"] == env.today.isoformat()
    account = ok(env, "crm__get_account", account_id=deal["account_id"])
    assert account["activities"][0] == activity


def test_log_activity_refuses_records_of_another_account(env: Environment, refused) -> None:
    deal = next(d for d in rows(env, "deal") if d["contact_id"])
    other = next(c for c in rows(env, "contact") if c["account_id"] != deal["account_id"])
    other_deal = next(d for d in rows(env, "deal") if d["account_id"] != deal["account_id"])
    base = {"kind": "note", "subject": "x", "account_id": deal["account_id"]}
    refused(env, "crm__log_activity", 422, **base, contact_id=other["id"])
    refused(env, "crm__log_activity", 422, **base, deal_id=other_deal["id"])
    refused(env, "crm__log_activity", 400, **{**base, "subject": " "})
    refused(env, "crm__log_activity", 400, **{**base, "kind": "fax"})
    refused(env, "crm__log_activity", 404, **base, deal_id="dl_missing")
