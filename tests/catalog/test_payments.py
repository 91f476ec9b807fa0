"""The payments service on the real runtime: seeding, reads, aggregates and business rules."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from typing import Any

import pytest

from compoworld.catalog import load_service
from compoworld.service import Environment, check_service

SERVICE = "payments"  # the conftest's world and env fixtures serve it


def rows(env: Environment, entity: str, **where: Any) -> list[dict[str, Any]]:
    return env.db("payments").select(entity, where)


def invoice(env: Environment, status: str, paid: bool | None = None) -> dict[str, Any]:
    """A seeded invoice in ``status``; ``paid``: with (True) or without (False) payments."""
    for record in rows(env, "invoice", status=status):
        has_payments = bool(rows(env, "payment", invoice_id=record["id"]))
        if paid is None or paid == has_payments:
            return record
    raise AssertionError(f"no seeded {status} invoice with paid={paid}")


def day(env: Environment, offset: int) -> str:
    return (env.today + timedelta(days=offset)).isoformat()


# -- seeding -----------------------------------------------------------------------------


def test_passes_the_conformance_check() -> None:
    report = check_service(load_service("payments"))
    assert report.ok, str(report)


def test_seed_is_deterministic_realistic_and_seed_dependent(env: Environment) -> None:
    counts = {table: len(records) for table, records in env.rows().items()}
    assert 250 <= sum(counts.values()) <= 400, counts
    assert all(n > 0 for n in counts.values()), counts
    assert Environment([load_service("payments")], seed=0).digest() == env.digest()
    assert Environment([load_service("payments")], seed=1).digest() != env.digest()
    statuses = {i["status"] for i in rows(env, "invoice")}
    assert statuses == {"draft", "open", "paid", "void"}


def test_seeded_customers_are_pool_people(env: Environment) -> None:
    people = {p.email: p for p in env.pool.people}
    customers = rows(env, "customer")
    for customer in customers:
        person = people[customer["email"]]
        assert (customer["name"], customer["phone"], customer["company"]) == (
            person.name, person.phone, person.company.name)
    assert {c["company"] for c in customers} <= {c.name for c in env.pool.companies}


def test_seeded_invoices_payments_and_refunds_add_up(env: Environment) -> None:
    today = env.today.isoformat()
    customers = {c["id"]: c for c in rows(env, "customer")}
    refunds: dict[str, float] = defaultdict(float)
    for refund in rows(env, "refund"):
        refunds[refund["payment_id"]] += refund["amount"]
    for record in rows(env, "invoice"):
        payments = rows(env, "payment", invoice_id=record["id"])
        paid = sum(p["amount"] for p in payments)
        assert record["currency"] == customers[record["customer_id"]]["currency"]
        assert all(p["currency"] == record["currency"] for p in payments)
        if record["status"] == "draft":
            assert record["issue_date"] is None and not payments
        else:
            assert record["issue_date"] <= today and record["issue_date"] < record["due_date"]
            assert all(record["issue_date"] <= p["paid_on"] <= today for p in payments)
        if record["status"] == "paid":
            assert paid == pytest.approx(record["amount"]) and record["balance_due"] == 0
            assert record["paid_on"] == max(p["paid_on"] for p in payments)
        elif record["status"] == "open":
            assert record["balance_due"] == pytest.approx(record["amount"] - paid)
        elif record["status"] == "void":
            assert not payments
        for payment in payments:
            assert payment["refunded"] == pytest.approx(refunds[payment["id"]])
            assert payment["refunded"] <= payment["amount"]
    numbers = [i["number"] for i in rows(env, "invoice") if i["issue_date"]]
    issued = sorted(rows(env, "invoice", issue_date__isnull=False), key=lambda i: i["number"])
    assert len(set(numbers)) == len(numbers)
    assert [i["issue_date"] for i in issued] == sorted(i["issue_date"] for i in issued)


# -- reads -------------------------------------------------------------------------------


def test_list_customers_pages_and_searches(env: Environment, ok, refused) -> None:
    first = ok(env, "payments__list_customers", limit=7)
    second = ok(env, "payments__list_customers", limit=7, offset=7)
    names = sorted(c["name"] for c in rows(env, "customer"))
    assert [c["name"] for c in first["items"] + second["items"]] == names[:14]
    assert first["total"] == len(names)
    customer = rows(env, "customer")[5]
    found = ok(env, "payments__list_customers", query=customer["email"].upper())
    assert [c["id"] for c in found["items"]] == [customer["id"]]
    refused(env, "payments__list_customers", 400, limit=500)
    refused(env, "payments__list_customers", 400, offset=-1)


def test_list_invoices_filters_by_customer_and_status(env: Environment, ok, refused) -> None:
    customer_id = rows(env, "invoice")[0]["customer_id"]
    mine = ok(env, "payments__list_invoices", customer_id=customer_id, limit=100)
    assert sorted(i["id"] for i in mine["items"]) == sorted(
        i["id"] for i in rows(env, "invoice", customer_id=customer_id))
    paid = ok(env, "payments__list_invoices", status="paid", limit=10, offset=10)
    assert paid["total"] == len(rows(env, "invoice", status="paid"))
    numbers = sorted((i["number"] for i in rows(env, "invoice", status="paid")), reverse=True)
    assert [i["number"] for i in paid["items"]] == numbers[10:20]
    refused(env, "payments__list_invoices", 404, customer_id="cu_missing")


def test_list_invoices_overdue(env: Environment, ok) -> None:
    today = env.today.isoformat()
    expected = {i["id"] for i in rows(env, "invoice", status="open") if i["due_date"] < today}
    found = ok(env, "payments__list_invoices", overdue=True, limit=100)
    assert {i["id"] for i in found["items"]} == expected and found["total"] == len(expected) > 0
    assert ok(env, "payments__list_invoices", overdue=True, status="paid")["total"] == 0


def test_get_invoice_shows_payments_and_refunds(env: Environment, ok, refused) -> None:
    refund = rows(env, "refund")[0]
    payment = env.db("payments").get("payment", refund["payment_id"])
    data = ok(env, "payments__get_invoice", invoice_id=payment["invoice_id"])
    customer = env.db("payments").get("customer", data["customer_id"])
    assert data["customer_name"] == customer["name"]
    assert payment in data["payments"] and refund in data["refunds"]
    refused(env, "payments__get_invoice", 404, invoice_id="in_missing")


@pytest.mark.parametrize("spelling", ["{n}", "{n_lower}", "{n_bare}", " {n} "])
def test_find_invoice_by_number(env: Environment, spelling: str, ok) -> None:
    record = rows(env, "invoice")[20]
    number = spelling.format(n=record["number"], n_lower=record["number"].lower(),
                             n_bare=record["number"].replace("-", ""))
    assert ok(env, "payments__find_invoice_by_number", number=number) == record


def test_find_invoice_by_unknown_number(env: Environment, refused) -> None:
    refused(env, "payments__find_invoice_by_number", 404, number="INV-99999")


def test_customer_balance_matches_a_hand_computation(env: Environment, ok, refused) -> None:
    today = env.today.isoformat()
    for customer in rows(env, "customer")[:15]:
        data = ok(env, "payments__get_customer_balance", customer_id=customer["id"])
        open_ = rows(env, "invoice", customer_id=customer["id"], status="open")
        late = [i for i in open_ if i["due_date"] < today]
        payments = rows(env, "payment", customer_id=customer["id"])
        assert data["currency"] == customer["currency"]
        assert (data["open_invoices"], data["overdue_invoices"]) == (len(open_), len(late))
        assert data["outstanding"] == pytest.approx(sum(i["balance_due"] for i in open_))
        assert data["overdue"] == pytest.approx(sum(i["balance_due"] for i in late))
        assert data["total_paid"] == pytest.approx(sum(p["amount"] for p in payments))
        assert data["total_refunded"] == pytest.approx(sum(p["refunded"] for p in payments))
    refused(env, "payments__get_customer_balance", 404, customer_id="cu_missing")


def test_an_invoice_due_today_is_not_overdue_yet(env: Environment, ok) -> None:
    record = invoice(env, "open")
    env.db("payments").update("invoice", record["id"], due_date=env.today.isoformat())
    data = ok(env, "payments__get_customer_balance", customer_id=record["customer_id"])
    late = [i for i in rows(env, "invoice", customer_id=record["customer_id"], status="open")
            if i["due_date"] < env.today.isoformat()]
    assert data["overdue_invoices"] == len(late)
    overdue = ok(env, "payments__list_invoices", overdue=True, limit=100)["items"]
    assert record["id"] not in {i["id"] for i in overdue}


def newest_first(payments: list[dict[str, Any]]) -> list[str]:
    """Payment ids by day received, newest first; same-day payments in the order recorded."""
    return [p["id"] for p in sorted(payments, key=lambda p: p["paid_on"], reverse=True)]


def test_list_payments_pages_newest_first(env: Environment, ok, refused) -> None:
    expected = newest_first(rows(env, "payment"))
    first = ok(env, "payments__list_payments", limit=15)
    second = ok(env, "payments__list_payments", limit=15, offset=15)
    assert [p["id"] for p in first["items"] + second["items"]] == expected[:30]
    assert first["total"] == second["total"] == len(expected) > 30
    last = ok(env, "payments__list_payments", limit=100, offset=len(expected) - 3)
    assert [p["id"] for p in last["items"]] == expected[-3:]
    assert ok(env, "payments__list_payments", offset=len(expected))["items"] == []
    payment = env.db("payments").get("payment", expected[0])
    assert first["items"][0] == payment
    refused(env, "payments__list_payments", 400, limit=0)
    refused(env, "payments__list_payments", 400, limit=101)
    refused(env, "payments__list_payments", 400, offset=-1)


@pytest.mark.parametrize("which", ["invoice", "customer", "method", "period", "all"])
def test_list_payments_filters_match_a_hand_computation(env: Environment, which: str, ok) -> None:
    some = rows(env, "payment")[4]
    since, until = day(env, -60), day(env, -20)
    args: dict[str, Any] = {
        "invoice": {"invoice_id": some["invoice_id"]},
        "customer": {"customer_id": some["customer_id"]},
        "method": {"method": "check"},
        "period": {"since": since, "until": until},
        "all": {"customer_id": some["customer_id"], "method": some["method"],
                "since": day(env, -400), "until": env.today.isoformat()},
    }[which]
    expected = [p for p in rows(env, "payment")
                if all(p[k] == v for k, v in args.items() if k not in ("since", "until"))
                and args.get("since", "") <= p["paid_on"] <= args.get("until", "9999")]
    found = ok(env, "payments__list_payments", limit=100, **args)
    assert [p["id"] for p in found["items"]] == newest_first(expected)
    assert found["total"] == len(expected) > 0


def test_list_payments_one_day_and_unknown_ids(env: Environment, ok, refused) -> None:
    paid_on = rows(env, "payment")[10]["paid_on"]
    found = ok(env, "payments__list_payments", since=paid_on, until=paid_on, limit=100)
    assert found["total"] == len(rows(env, "payment", paid_on=paid_on)) > 0
    assert ok(env, "payments__list_payments", method="cash")["total"] == 0  # never seeded
    refused(env, "payments__list_payments", 400, since=day(env, -1), until=day(env, -2))
    refused(env, "payments__list_payments", 400, method="bitcoin")
    refused(env, "payments__list_payments", 400, since="last month")
    refused(env, "payments__list_payments", 404, invoice_id="in_missing")
    refused(env, "payments__list_payments", 404, customer_id="cu_missing")


def test_a_recorded_payment_is_listed_with_todays(env: Environment, ok) -> None:
    unpaid = invoice(env, "open", paid=False)
    earlier = ok(env, "payments__list_payments", since=env.today.isoformat(), limit=100)
    recorded = ok(env, "payments__record_payment", invoice_id=unpaid["id"], amount=1, method="cash")
    today = ok(env, "payments__list_payments", since=env.today.isoformat(), limit=100)
    assert today == {"items": [*earlier["items"], recorded["payment"]],
                     "total": earlier["total"] + 1, "next_offset": None}
    assert [p["id"] for p in ok(env, "payments__list_payments", limit=100)["items"]] == newest_first(
        rows(env, "payment"))[:100]
    mine = ok(env, "payments__list_payments", invoice_id=unpaid["id"], method="cash")
    assert mine == {"items": [recorded["payment"]], "total": 1, "next_offset": None}


def test_get_customer_matches_a_hand_computation(env: Environment, ok, refused) -> None:
    for customer in rows(env, "customer")[:15]:
        data = ok(env, "payments__get_customer", customer_id=customer["id"])
        open_ = rows(env, "invoice", customer_id=customer["id"], status="open")
        assert data == {**customer, "open_invoices": len(open_),
                        "open_balance": pytest.approx(sum(i["balance_due"] for i in open_))}
        balance = ok(env, "payments__get_customer_balance", customer_id=customer["id"])
        assert data["open_balance"] == balance["outstanding"]
    refused(env, "payments__get_customer", 404, customer_id="cu_missing")


def test_get_customer_follows_payments_and_new_customers(env: Environment, ok) -> None:
    unpaid = invoice(env, "open", paid=False)
    before = ok(env, "payments__get_customer", customer_id=unpaid["customer_id"])
    ok(env, "payments__record_payment", invoice_id=unpaid["id"], amount=unpaid["balance_due"],
       method="ach")
    after = ok(env, "payments__get_customer", customer_id=unpaid["customer_id"])
    assert after["open_invoices"] == before["open_invoices"] - 1
    assert after["open_balance"] == pytest.approx(before["open_balance"] - unpaid["balance_due"])
    created = ok(env, "payments__create_customer", name="Ada Lovelace", email="ada@example.com")
    assert ok(env, "payments__get_customer", customer_id=created["id"]) == {
        **created, "open_invoices": 0, "open_balance": 0}


@pytest.mark.parametrize(("currency", "since", "until"),
                         [("USD", None, None), ("USD", -90, -30), ("GBP", -200, 0)])
def test_revenue_summary_matches_a_hand_computation(env: Environment, currency: str,
                                                    since: int | None, until: int | None, ok) -> None:
    start = day(env, since) if since is not None else "0000-01-01"
    end = day(env, until) if until is not None else "9999-12-31"
    payments = {p["id"]: p for p in rows(env, "payment", currency=currency)}
    received = [p for p in payments.values() if start <= p["paid_on"] <= end]
    refunds = [r for r in rows(env, "refund")
               if r["payment_id"] in payments and start <= r["refunded_on"] <= end]
    args = {"currency": currency} | ({"since": start, "until": end} if since is not None else {})
    data = ok(env, "payments__get_revenue_summary", **args)
    by_method: dict[str, float] = defaultdict(float)
    for payment in received:
        by_method[payment["method"]] += payment["amount"]
    assert data["payments"] == len(received) > 0
    assert data["received"] == pytest.approx(sum(by_method.values()))
    assert data["by_method"] == pytest.approx(dict(by_method))
    assert data["refunds"] == len(refunds)
    assert data["refunded"] == pytest.approx(sum(r["amount"] for r in refunds))
    assert data["net"] == pytest.approx(data["received"] - data["refunded"])


# -- customers and invoices --------------------------------------------------------------


def test_create_customer_and_duplicate_email(env: Environment, ok, refused) -> None:
    customer = ok(env, "payments__create_customer", name="Ada Lovelace", email="Ada@Example.com",
                  company="Analytical Engines", currency="eur")
    assert (customer["email"], customer["currency"]) == ("ada@example.com", "EUR")
    found = ok(env, "payments__list_customers", query="lovelace")["items"]
    assert found == [customer]
    refused(env, "payments__create_customer", 409, name="Someone Else", email="ada@example.com")
    refused(env, "payments__create_customer", 400, name="Bad Email", email="not-an-email")


def test_create_invoice_drafts_with_the_next_number(env: Environment, ok) -> None:
    customer = rows(env, "customer", currency="EUR")[0]
    last = max(int(i["number"][4:]) for i in rows(env, "invoice"))
    draft = ok(env, "payments__create_invoice", customer_id=customer["id"], amount=1200.5,
               description="Workshop")
    assert draft["number"] == f"INV-{last + 1}"
    assert (draft["status"], draft["currency"], draft["balance_due"]) == ("draft", "EUR", 1200.5)
    assert draft["issue_date"] is None
    assert ok(env, "payments__find_invoice_by_number", number=draft["number"]) == draft
    again = ok(env, "payments__create_invoice", customer_id=customer["id"], amount=10, description="x",
               currency="EUR")
    assert again["number"] == f"INV-{last + 2}"


def test_create_invoice_rules(env: Environment, refused) -> None:
    customer = rows(env, "customer", currency="USD")[0]
    message = refused(env, "payments__create_invoice", 422, customer_id=customer["id"], amount=50,
                      description="x", currency="EUR")
    assert "USD" in message
    refused(env, "payments__create_invoice", 400, customer_id=customer["id"], amount=0, description="x")
    refused(env, "payments__create_invoice", 400, customer_id=customer["id"], amount=-3, description="x")
    refused(env, "payments__create_invoice", 404, customer_id="cu_missing", amount=5, description="x")


def test_only_draft_invoices_can_be_edited(env: Environment, ok, refused) -> None:
    draft = invoice(env, "draft")
    changed = ok(env, "payments__update_invoice", invoice_id=draft["id"], amount=99.99,
                 description="Revised quote")
    assert (changed["amount"], changed["balance_due"]) == (99.99, 99.99)
    assert ok(env, "payments__get_invoice", invoice_id=draft["id"])["description"] == "Revised quote"
    for status in ("open", "paid", "void"):
        refused(env, "payments__update_invoice", 422, invoice_id=invoice(env, status)["id"], amount=1.0)
    refused(env, "payments__update_invoice", 400, invoice_id=draft["id"], amount=0)


def test_send_invoice_issues_it_today(env: Environment, ok, refused) -> None:
    draft = invoice(env, "draft")
    sent = ok(env, "payments__send_invoice", invoice_id=draft["id"], due_in_days=14)
    assert (sent["status"], sent["issue_date"], sent["due_date"]) == (
        "open", env.today.isoformat(), day(env, 14))
    refused(env, "payments__send_invoice", 409, invoice_id=draft["id"])
    refused(env, "payments__send_invoice", 422, invoice_id=invoice(env, "paid")["id"])
    refused(env, "payments__send_invoice", 422, invoice_id=invoice(env, "void")["id"])
    refused(env, "payments__send_invoice", 400, invoice_id=invoice(env, "draft")["id"], due_in_days=0)


def test_void_invoice_rules(env: Environment, ok, refused) -> None:
    assert "paid" in refused(env, "payments__void_invoice", 422, invoice_id=invoice(env, "paid")["id"])
    refused(env, "payments__void_invoice", 422, invoice_id=invoice(env, "open", paid=True)["id"])
    refused(env, "payments__void_invoice", 409, invoice_id=invoice(env, "void")["id"])
    unpaid = invoice(env, "open", paid=False)
    customer_id = unpaid["customer_id"]
    before = ok(env, "payments__get_customer_balance", customer_id=customer_id)
    voided = ok(env, "payments__void_invoice", invoice_id=unpaid["id"])
    assert (voided["status"], voided["balance_due"]) == ("void", 0)
    after = ok(env, "payments__get_customer_balance", customer_id=customer_id)
    assert after["open_invoices"] == before["open_invoices"] - 1
    assert after["outstanding"] == pytest.approx(before["outstanding"] - unpaid["balance_due"])
    assert ok(env, "payments__void_invoice", invoice_id=invoice(env, "draft")["id"])["status"] == "void"


# -- payments and refunds ----------------------------------------------------------------


def test_paying_the_balance_in_two_parts_marks_the_invoice_paid(env: Environment, ok, refused) -> None:
    unpaid = invoice(env, "open", paid=False)
    total = unpaid["amount"]
    first = ok(env, "payments__record_payment", invoice_id=unpaid["id"], amount=round(total / 3, 2),
               method="card", paid_on=unpaid["issue_date"])
    assert first["invoice"]["status"] == "open"
    assert first["invoice"]["balance_due"] == pytest.approx(total - round(total / 3, 2))
    rest = first["invoice"]["balance_due"]
    second = ok(env, "payments__record_payment", invoice_id=unpaid["id"], amount=rest,
                method="bank_transfer", currency=unpaid["currency"])
    assert second["payment"]["paid_on"] == env.today.isoformat()
    data = ok(env, "payments__get_invoice", invoice_id=unpaid["id"])
    assert (data["status"], data["balance_due"], data["paid_on"]) == (
        "paid", 0, env.today.isoformat())
    assert [p["id"] for p in data["payments"]] == [first["payment"]["id"], second["payment"]["id"]]
    refused(env, "payments__record_payment", 422, invoice_id=unpaid["id"], amount=1, method="card")


def test_record_payment_rules(env: Environment, refused) -> None:
    unpaid = invoice(env, "open", paid=False)
    base = {"invoice_id": unpaid["id"], "method": "card"}
    message = refused(env, "payments__record_payment", 422, **base, amount=unpaid["balance_due"] + 0.01)
    assert "balance" in message
    other = "EUR" if unpaid["currency"] != "EUR" else "USD"
    refused(env, "payments__record_payment", 422, **base, amount=1, currency=other)
    refused(env, "payments__record_payment", 422, **base, amount=1, paid_on=day(env, 1))
    refused(env, "payments__record_payment", 422, **base, amount=1, paid_on=day(env, -3000))
    refused(env, "payments__record_payment", 400, **base, amount=0)
    refused(env, "payments__record_payment", 400, **{**base, "method": "bitcoin"}, amount=1)
    for status in ("draft", "void", "paid"):
        refused(env, "payments__record_payment", 422, invoice_id=invoice(env, status)["id"], amount=1,
                method="card")
    refused(env, "payments__record_payment", 404, invoice_id="in_missing", amount=1, method="card")


def test_refunds_never_exceed_the_payment(env: Environment, ok, refused) -> None:
    payment = next(p for p in rows(env, "payment") if p["refunded"] == 0 and p["amount"] > 20)
    invoice_before = env.db("payments").get("invoice", payment["invoice_id"])
    refused(env, "payments__refund_payment", 422, payment_id=payment["id"], amount=payment["amount"] + 1)
    part = ok(env, "payments__refund_payment", payment_id=payment["id"], amount=10, reason="Late delivery")
    assert (part["refund"]["amount"], part["payment"]["refunded"]) == (10, 10)
    assert part["refund"]["refunded_on"] == env.today.isoformat()
    rest = ok(env, "payments__refund_payment", payment_id=payment["id"])
    assert rest["refund"]["amount"] == pytest.approx(payment["amount"] - 10)
    assert rest["payment"]["refunded"] == pytest.approx(payment["amount"])
    refused(env, "payments__refund_payment", 409, payment_id=payment["id"])
    refused(env, "payments__refund_payment", 409, payment_id=payment["id"], amount=1)
    assert env.db("payments").get("invoice", payment["invoice_id"]) == invoice_before
    refunds = ok(env, "payments__get_invoice", invoice_id=payment["invoice_id"])["refunds"]
    assert {part["refund"]["id"], rest["refund"]["id"]} <= {r["id"] for r in refunds}


def test_refunds_show_in_the_revenue_summary(env: Environment, ok, refused) -> None:
    payment = next(p for p in rows(env, "payment", currency="USD") if p["refunded"] == 0)
    before = ok(env, "payments__get_revenue_summary", since=env.today.isoformat())
    ok(env, "payments__refund_payment", payment_id=payment["id"], amount=5)
    after = ok(env, "payments__get_revenue_summary", since=env.today.isoformat())
    assert after["refunded"] == pytest.approx(before["refunded"] + 5)
    assert after["net"] == pytest.approx(before["net"] - 5)
    refused(env, "payments__refund_payment", 400, payment_id=payment["id"], amount=-5)
    refused(env, "payments__refund_payment", 404, payment_id="py_missing")
