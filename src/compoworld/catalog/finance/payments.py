"""Payments: customers, their invoices, the payments against them and refunds."""

import re
from datetime import timedelta
from typing import Any, Literal

from compoworld.catalog._filters import given
from compoworld.errors import BadArguments, Conflict, RecordNotFound, Refused
from compoworld.service import Db, Entity, Page, Result, Service
from compoworld.types import (
    CompanyName,
    Currency,
    Date,
    Email,
    InvoiceNumber,
    Money,
    PersonName,
    Phone,
    Pool,
    Ref,
)

service = Service("payments", domain="finance",
                  description="Invoicing and payments: customers, invoices, payments, refunds.")

InvoiceStatus = Literal["draft", "open", "paid", "void"]
Method = Literal["card", "bank_transfer", "ach", "check", "cash"]


@service.entity
class Customer(Entity):
    """A billed customer; all of a customer's invoices are in its billing currency."""
    id_prefix = "cu"
    unique_fields = ("email",)
    name: PersonName
    email: Email
    company: CompanyName | None = None
    phone: Phone | None = None
    currency: Currency = "USD"
    created_on: Date


@service.entity
class Invoice(Entity):
    """An invoice: a draft until sent, then open until paid in full (or void)."""
    id_prefix = "in"
    unique_fields = ("number",)
    number: InvoiceNumber
    customer_id: Ref[Customer]
    description: str
    amount: Money
    currency: Currency
    status: InvoiceStatus = "draft"
    issue_date: Date | None = None
    due_date: Date | None = None
    balance_due: Money
    paid_on: Date | None = None


@service.entity
class Payment(Entity):
    """A payment received against an invoice."""
    id_prefix = "py"
    invoice_id: Ref[Invoice]
    customer_id: Ref[Customer]
    amount: Money
    currency: Currency
    method: Method
    paid_on: Date
    refunded: Money = 0.0


@service.entity
class Refund(Entity):
    """Money given back from a payment."""
    id_prefix = "rf"
    payment_id: Ref[Payment]
    amount: Money
    reason: str = ""
    refunded_on: Date


class CustomerDetails(Customer):
    """A customer with the count of their open invoices and the balance still due on them."""
    open_invoices: int
    open_balance: Money


class InvoiceDetails(Invoice):
    """An invoice with its customer's name, its payments and their refunds."""
    customer_name: PersonName
    payments: list[Payment]
    refunds: list[Refund]


class CustomerBalance(Result):
    """What a customer owes (open and overdue invoices) and has paid, in their currency."""
    customer_id: Ref[Customer]
    currency: Currency
    open_invoices: int
    overdue_invoices: int
    outstanding: Money
    overdue: Money
    total_paid: Money
    total_refunded: Money


class RevenueSummary(Result):
    """Payments received (in all and by method) and refunds given, in one currency."""
    currency: Currency
    payments: int
    received: Money
    by_method: dict[Method, Money]
    refunds: int
    refunded: Money
    net: Money


class PaymentRecorded(Result):
    """A new payment and the invoice it was recorded against, as updated."""
    payment: Payment
    invoice: Invoice


class RefundGiven(Result):
    """A new refund and the payment it was given from, as updated."""
    refund: Refund
    payment: Payment


def _positive(amount: float) -> float:
    if amount <= 0:
        raise BadArguments(f"amount must be positive, got {amount}")
    return round(amount, 2)


@service.read(returns=Page[Customer])
def list_customers(db: Db, query: str | None = None, limit: int = 20,
                   offset: int = 0) -> dict[str, Any]:
    """List customers sorted by name, optionally filtered.

    Args:
        query: Case-insensitive substring of the customer's name, email or company.
        limit: Maximum number of customers to return (1-100).
        offset: Number of customers to skip, for paging.
    """
    return db.page(Customer, given({"name|email|company__contains": query}), order_by="name",
                   limit=limit, offset=offset)


@service.read(returns=CustomerDetails)
def get_customer(db: Db, customer_id: Ref[Customer]) -> dict[str, Any]:
    """Get a customer's details with their open invoices' count and balance still due.

    Args:
        customer_id: The customer's id.
    """
    customer = db.get(Customer, customer_id)
    owed = db.select(Invoice, {"customer_id": customer_id, "status": "open"})
    return {**customer, "open_invoices": len(owed),
            "open_balance": round(sum(i["balance_due"] for i in owed), 2)}


@service.read(returns=Page[Invoice])
def list_invoices(db: Db, customer_id: Ref[Customer] | None = None,
                  status: InvoiceStatus | None = None, overdue: bool = False, limit: int = 20,
                  offset: int = 0) -> dict[str, Any]:
    """List invoices, newest number first, optionally filtered.

    Args:
        customer_id: Only this customer's invoices.
        status: Only invoices in this status.
        overdue: Only open invoices whose due date has passed.
        limit: Maximum number of invoices to return (1-100).
        offset: Number of invoices to skip, for paging.
    """
    where = {"customer_id": db.get(Customer, customer_id)["id"] if customer_id else None,
             "status": status, "status__in": ["open"] if overdue else None,
             "due_date__lt": db.today.isoformat() if overdue else None}
    return db.page(Invoice, given(where), order_by="number", descending=True, limit=limit,
                   offset=offset)


@service.read(returns=InvoiceDetails)
def get_invoice(db: Db, invoice_id: Ref[Invoice]) -> dict[str, Any]:
    """Get an invoice with its customer's name, its payments and their refunds.

    Args:
        invoice_id: The invoice's id.
    """
    invoice = db.get(Invoice, invoice_id)
    payments = db.select(Payment, {"invoice_id": invoice_id}, order_by="paid_on")
    return {**invoice, "customer_name": db.get(Customer, invoice["customer_id"])["name"],
            "payments": payments, "refunds": db.select(
                Refund, {"payment_id__in": [p["id"] for p in payments]}, order_by="refunded_on")}


@service.read(returns=Invoice)
def find_invoice_by_number(db: Db, number: InvoiceNumber) -> dict[str, Any]:
    """Find the invoice with this number.

    Args:
        number: The invoice number, e.g. "INV-10042".
    """
    found = db.find(Invoice, number=f"INV-{re.sub(r'[^0-9]', '', number)}")
    if found is None:
        raise RecordNotFound(f"no invoice has number {number!r}")
    return found


@service.read(returns=Page[Payment])
def list_payments(db: Db, invoice_id: Ref[Invoice] | None = None,
                  customer_id: Ref[Customer] | None = None, method: Method | None = None,
                  since: Date | None = None, until: Date | None = None, limit: int = 20,
                  offset: int = 0) -> dict[str, Any]:
    """List payments received, newest first, optionally filtered.

    Payments received on the same day are listed in the order they were recorded.

    Args:
        invoice_id: Only payments against this invoice.
        customer_id: Only payments from this customer.
        method: Only payments made this way.
        since: Only payments received on or after this day.
        until: Only payments received on or before this day.
        limit: Maximum number of payments to return (1-100).
        offset: Number of payments to skip, for paging.
    """
    where = {"invoice_id": db.get(Invoice, invoice_id)["id"] if invoice_id else None,
             "customer_id": db.get(Customer, customer_id)["id"] if customer_id else None,
             "method": method, "paid_on__gte": since, "paid_on__lte": until}
    if since and until and since > until:
        raise BadArguments(f"since ({since}) must not be after until ({until})")
    return db.page(Payment, given(where), order_by="paid_on", descending=True, limit=limit,
                   offset=offset)


@service.read(returns=CustomerBalance)
def get_customer_balance(db: Db, customer_id: Ref[Customer]) -> dict[str, Any]:
    """Get what a customer owes: open and overdue invoices and balances, and what they paid.

    Args:
        customer_id: The customer's id.
    """
    customer = db.get(Customer, customer_id)
    owed = db.select(Invoice, {"customer_id": customer_id, "status": "open"})
    late = [i for i in owed if i["due_date"] < db.today.isoformat()]
    (paid,) = db.sql("SELECT coalesce(sum(amount), 0) AS paid, coalesce(sum(refunded), 0) AS "
                     "refunded FROM {payment} WHERE customer_id = ?", [customer_id])
    return {"customer_id": customer_id, "currency": customer["currency"],
            "open_invoices": len(owed), "overdue_invoices": len(late),
            "outstanding": round(sum(i["balance_due"] for i in owed), 2),
            "overdue": round(sum(i["balance_due"] for i in late), 2),
            "total_paid": round(paid["paid"], 2), "total_refunded": round(paid["refunded"], 2)}


@service.read(returns=RevenueSummary)
def get_revenue_summary(db: Db, currency: Currency = "USD", since: Date | None = None,
                        until: Date | None = None) -> dict[str, Any]:
    """Total the payments received and the refunds given in one currency over a period.

    Args:
        currency: Only payments in this currency.
        since: First day of the period (default: no limit).
        until: Last day of the period, inclusive (default: no limit).
    """
    period = [currency.upper(), since or "0000-01-01", until or "9999-12-31"]
    methods = db.sql("SELECT method, count(*) AS n, sum(amount) AS total FROM {payment} WHERE "
                     "currency = ? AND paid_on BETWEEN ? AND ? GROUP BY method ORDER BY method",
                     period)
    (refunds,) = db.sql("SELECT count(*) AS n, coalesce(sum(r.amount), 0) AS total FROM {refund} "
                        "r JOIN {payment} p ON p.id = r.payment_id WHERE p.currency = ? AND "
                        "r.refunded_on BETWEEN ? AND ?", period)
    received = round(sum(m["total"] for m in methods), 2)
    return {"currency": period[0], "payments": sum(m["n"] for m in methods), "received": received,
            "by_method": {m["method"]: round(m["total"], 2) for m in methods},
            "refunds": refunds["n"], "refunded": round(refunds["total"], 2),
            "net": round(received - refunds["total"], 2)}


@service.write(returns=Customer)
def create_customer(db: Db, name: PersonName, email: Email, company: CompanyName | None = None,
                    phone: Phone | None = None, currency: Currency = "USD") -> dict[str, Any]:
    """Add a customer. Customer emails are unique.

    Args:
        name: The customer's full name.
        email: Billing email address.
        company: The company the customer buys for.
        phone: Phone number.
        currency: Billing currency; every invoice of the customer is in it.
    """
    return db.insert(Customer, name=name.strip(), email=email.strip().lower(), company=company,
                     phone=phone, currency=currency.upper(), created_on=db.today.isoformat())


@service.write(returns=Invoice)
def create_invoice(db: Db, customer_id: Ref[Customer], amount: Money, description: str,
                   currency: Currency | None = None) -> dict[str, Any]:
    """Draft an invoice for a customer; it gets the next invoice number. Send it to issue it.

    Args:
        customer_id: The customer billed.
        amount: Amount due.
        description: What the invoice is for.
        currency: Must be the customer's billing currency (the default).
    """
    customer = db.get(Customer, customer_id)
    if currency is not None and currency.upper() != customer["currency"]:
        raise Refused(f"customer {customer_id!r} is billed in {customer['currency']}, "
                      f"not {currency}")
    (last,) = db.sql("SELECT max(CAST(substr(number, 5) AS INTEGER)) AS n FROM {invoice}")
    number = (last["n"] or 10000) + 1
    return db.insert(Invoice, number=f"INV-{number}", customer_id=customer_id,
                     description=description.strip(), amount=_positive(amount),
                     currency=customer["currency"], balance_due=_positive(amount))


@service.write(returns=Invoice)
def update_invoice(db: Db, invoice_id: Ref[Invoice], amount: Money | None = None,
                   description: str | None = None) -> dict[str, Any]:
    """Change a draft invoice; fields left out stay as they are. Sent invoices cannot change.

    Args:
        invoice_id: The invoice's id.
        amount: New amount due.
        description: New description.
    """
    invoice = db.get(Invoice, invoice_id)
    if invoice["status"] != "draft":
        raise Refused(f"invoice {invoice['number']} is {invoice['status']}; only drafts can change")
    changes: dict[str, Any] = {} if description is None else {"description": description.strip()}
    if amount is not None:
        changes.update(amount=_positive(amount), balance_due=_positive(amount))
    return db.update(Invoice, invoice_id, **changes)


@service.write(returns=Invoice)
def send_invoice(db: Db, invoice_id: Ref[Invoice], due_in_days: int = 30) -> dict[str, Any]:
    """Send a draft invoice to the customer: it is issued today and becomes open.

    Args:
        invoice_id: The invoice's id.
        due_in_days: Payment terms: days from today until the invoice is due (1-365).
    """
    invoice = db.get(Invoice, invoice_id)
    if invoice["status"] == "open":
        raise Conflict(f"invoice {invoice['number']} was already sent")
    if invoice["status"] != "draft":
        raise Refused(f"invoice {invoice['number']} is {invoice['status']} and cannot be sent")
    if not 1 <= due_in_days <= 365:
        raise BadArguments("due_in_days must be between 1 and 365")
    return db.update(Invoice, invoice_id, status="open", issue_date=db.today.isoformat(),
                     due_date=(db.today + timedelta(days=due_in_days)).isoformat())


@service.write(returns=Invoice)
def void_invoice(db: Db, invoice_id: Ref[Invoice]) -> dict[str, Any]:
    """Void a draft or open invoice that has no payments; nothing is owed on it any more.

    Args:
        invoice_id: The invoice's id.
    """
    invoice = db.get(Invoice, invoice_id)
    if invoice["status"] == "void":
        raise Conflict(f"invoice {invoice['number']} is already void")
    if invoice["status"] == "paid":
        raise Refused(f"invoice {invoice['number']} is paid; a paid invoice cannot be voided")
    if db.count(Payment, {"invoice_id": invoice_id}):
        raise Refused(f"invoice {invoice['number']} has payments; refund them before voiding")
    return db.update(Invoice, invoice_id, status="void", balance_due=0.0)


@service.write(returns=PaymentRecorded)
def record_payment(db: Db, invoice_id: Ref[Invoice], amount: Money, method: Method,
                   currency: Currency | None = None, paid_on: Date | None = None) -> dict[str, Any]:
    """Record a payment against an open invoice; paying the whole balance marks it paid.

    Args:
        invoice_id: The invoice paid.
        amount: Amount received; at most the invoice's balance due.
        method: How the customer paid.
        currency: Currency of the payment; must be the invoice's (the default).
        paid_on: Day the money arrived (default: today; not in the future).
    """
    invoice = db.get(Invoice, invoice_id)
    amount, paid_on = _positive(amount), paid_on or db.today.isoformat()
    if invoice["status"] != "open":
        hint = "send it first" if invoice["status"] == "draft" else "nothing is due"
        raise Refused(f"invoice {invoice['number']} is {invoice['status']}; {hint}")
    if currency is not None and currency.upper() != invoice["currency"]:
        raise Refused(f"invoice {invoice['number']} is in {invoice['currency']}, not {currency}")
    if amount > invoice["balance_due"]:
        raise Refused(f"amount {amount} exceeds the balance due of {invoice['balance_due']}")
    if not invoice["issue_date"] <= paid_on <= db.today.isoformat():
        raise Refused(f"paid_on must be between the issue date and today, got {paid_on}")
    payment = db.insert(Payment, invoice_id=invoice_id, customer_id=invoice["customer_id"],
                        amount=amount, currency=invoice["currency"], method=method,
                        paid_on=paid_on)
    balance = round(invoice["balance_due"] - amount, 2)
    invoice = db.update(Invoice, invoice_id, balance_due=balance, **(
        {"status": "paid", "paid_on": paid_on} if balance == 0 else {}))
    return {"payment": payment, "invoice": invoice}


@service.write(returns=RefundGiven)
def refund_payment(db: Db, payment_id: Ref[Payment], amount: Money | None = None,
                   reason: str = "") -> dict[str, Any]:
    """Refund all or part of a payment, today. The invoice's status and balance stay as they are.

    Args:
        payment_id: The payment's id.
        amount: Amount to give back (default: all that is not refunded yet).
        reason: Why the money is given back.
    """
    payment = db.get(Payment, payment_id)
    left = round(payment["amount"] - payment["refunded"], 2)
    if left <= 0:
        raise Conflict(f"payment {payment_id!r} is already fully refunded")
    amount = left if amount is None else _positive(amount)
    if amount > left:
        raise Refused(f"amount {amount} exceeds the {left} of the payment not yet refunded")
    refund = db.insert(Refund, payment_id=payment_id, amount=amount, reason=reason.strip(),
                       refunded_on=db.today.isoformat())
    payment = db.update(Payment, payment_id, refunded=round(payment["refunded"] + amount, 2))
    return {"refund": refund, "payment": payment}


DESCRIPTIONS = ("Consulting services", "Annual subscription", "Monthly subscription",
                "Implementation project", "Support retainer", "Training workshop")


@service.seeder
def seed(db: Db, pool: Pool) -> None:
    rng = pool.rng("payments")
    plans: list[tuple[int, int, dict[str, Any], str]] = []
    for person in pool.people[10:66]:
        customer = db.insert(
            Customer, name=person.name, email=person.email, company=person.company.name,
            phone=person.phone, currency=rng.choices(("USD", "EUR", "GBP"), (8, 1, 1))[0],
            created_on=pool.day(-rng.randint(200, 800)).isoformat())
        for _ in range(rng.randint(2, 4)):
            status = rng.choices(("draft", "open", "paid", "void"), (1, 3, 6, 1))[0]
            issued = 1 if status == "draft" else -rng.randint(1, 75 if status == "open" else 200)
            plans.append((issued, len(plans), customer, status))
    # Invoice numbers follow issue dates; drafts (not issued yet) come last.
    for number, (issued, _, customer, status) in enumerate(sorted(plans, key=lambda p: p[:2]),
                                                           start=10001):
        amount, terms = round(rng.uniform(80, 9000), 2), rng.choice((14, 30, 45))
        payments: list[tuple[float, int]] = []  # (amount, day offset from today)
        if status == "paid" or (status == "open" and rng.random() < 0.3):
            whole = status == "paid" and rng.random() < 0.7
            first = amount if whole else round(amount * rng.uniform(0.2, 0.6), 2)
            payments.append((first, min(0, issued + rng.randint(0, terms + 10))))
            if status == "paid" and not whole:
                payments.append((round(amount - first, 2),
                                 min(0, payments[0][1] + rng.randint(1, 20))))
        invoice = db.insert(
            Invoice, number=f"INV-{number}", customer_id=customer["id"],
            description=rng.choice(DESCRIPTIONS), amount=amount, currency=customer["currency"],
            status=status, issue_date=None if issued > 0 else pool.day(issued).isoformat(),
            due_date=None if issued > 0 else pool.day(issued + terms).isoformat(),
            balance_due=0.0 if status in ("paid", "void") else round(
                amount - sum(a for a, _ in payments), 2),
            paid_on=pool.day(payments[-1][1]).isoformat() if status == "paid" else None)
        for paid, day in payments:
            refund = 0.0
            if status == "paid" and rng.random() < 0.1:
                refund = paid if rng.random() < 0.4 else round(paid * rng.uniform(0.1, 0.5), 2)
            payment = db.insert(Payment, invoice_id=invoice["id"], customer_id=customer["id"],
                                amount=paid, currency=customer["currency"],
                                method=rng.choice(("card", "bank_transfer", "ach", "check")),
                                paid_on=pool.day(day).isoformat(), refunded=refund)
            if refund:
                db.insert(Refund, payment_id=payment["id"], amount=refund,
                          reason=rng.choice(("Duplicate charge", "Service credit", "Goodwill")),
                          refunded_on=pool.day(min(0, day + rng.randint(1, 20))).isoformat())
