"""CRM: accounts and their contacts, inbound leads, a deal pipeline and logged activities."""

import re
from datetime import timedelta
from typing import Any, Literal, get_args

from compoworld.catalog._filters import given
from compoworld.errors import BadArguments, Conflict, Refused
from compoworld.service import Db, Entity, Page, Result, Service
from compoworld.types import (
    CompanyName,
    Currency,
    Date,
    Domain,
    Email,
    Industry,
    JobTitle,
    Money,
    PersonName,
    Phone,
    Pool,
    Ref,
)

service = Service("crm", domain="sales",
                  description="A sales CRM: accounts, contacts, leads, deals and activities.")

Stage = Literal["prospecting", "qualification", "proposal", "negotiation", "won", "lost"]
STAGES: tuple[str, ...] = get_args(Stage)
OPEN_STAGES = STAGES[:4]
PROBABILITY = dict(zip(STAGES, (10, 25, 50, 75, 100, 0), strict=True))
LeadStatus = Literal["new", "qualified", "converted", "disqualified"]
LeadSource = Literal["web", "referral", "event", "outbound", "partner"]
ActivityKind = Literal["call", "email", "meeting", "note"]
DEAL_KINDS = ("Annual license", "Expansion", "Pilot", "Support renewal", "Data migration", "Seats")
ACTIVITIES = (("call", "Discovery call"), ("call", "Pricing call"), ("email", "Sent proposal"),
              ("meeting", "Product demo"), ("meeting", "Business review"), ("note", "Budget ok"))


@service.entity
class Account(Entity):
    """A customer or prospect company, owned by a sales rep."""
    unique_fields = ("name",)
    name: CompanyName
    domain: Domain | None = None
    industry: Industry | None = None
    owner: PersonName
    created_on: Date

@service.entity
class Contact(Entity):
    """A person working at an account."""
    id_prefix = "ct"
    unique_fields = ("email",)
    account_id: Ref[Account]
    name: PersonName
    email: Email
    phone: Phone | None = None
    job_title: JobTitle | None = None

@service.entity
class Lead(Entity):
    """A prospective buyer, not yet converted into a contact."""
    id_prefix = "ld"
    unique_fields = ("email",)
    name: PersonName
    email: Email
    phone: Phone | None = None
    company: CompanyName
    job_title: JobTitle | None = None
    source: LeadSource
    status: LeadStatus = "new"
    owner: PersonName
    created_on: Date
    converted_contact_id: Ref[Contact] | None = None

@service.entity
class Deal(Entity):
    """A sales opportunity with an account."""
    id_prefix = "dl"
    name: str
    account_id: Ref[Account]
    contact_id: Ref[Contact] | None = None
    amount: Money
    currency: Currency = "USD"
    stage: Stage = "prospecting"
    close_date: Date
    owner: PersonName
    lost_reason: str = ""

@service.entity
class Activity(Entity):
    """A logged call, email, meeting or note about an account."""
    id_prefix = "av"
    kind: ActivityKind
    subject: str
    account_id: Ref[Account]
    contact_id: Ref[Contact] | None = None
    deal_id: Ref[Deal] | None = None
    occurred_on: Date

class AccountDetails(Account):  # output types (not tables): what tools return beyond a record or page
    contacts: list[Contact]
    deals: list[Deal]
    activities: list[Activity]

class StageTotal(Result):
    stage: Stage
    count: int
    total_amount: Money

class PipelineSummary(Result):
    currency: Currency
    stages: list[StageTotal]
    open_count: int
    open_total: Money
    weighted_open_total: Money

class AccountDeleted(Result):
    id: str
    deleted: bool
    contacts_deleted: int

class LeadConversion(Result):
    lead: Lead
    account: Account
    contact: Contact
    deal: Deal | None


@service.read(returns=Page[Account])
def list_accounts(db: Db, query: str | None = None, industry: Industry | None = None,
                  owner: PersonName | None = None, limit: int = 20, offset: int = 0) -> dict[str, Any]:
    """List accounts sorted by name, optionally filtered.

    Args:
        query: Case-insensitive substring of the account's name or web domain.
        industry: Only accounts in this industry.
        owner: Only accounts owned by this sales rep (full name).
        limit: Maximum number of accounts to return (1-100).
        offset: Number of accounts to skip, for paging.
    """
    where = {"industry": industry, "owner": owner, "name|domain__contains": query}
    return db.page(Account, given(where), order_by="name", limit=limit, offset=offset)


@service.read(returns=AccountDetails)
def get_account(db: Db, account_id: Ref[Account]) -> dict[str, Any]:
    """Get an account with its contacts, its deals and its activities (most recent first).

    Args:
        account_id: The account's id.
    """
    account, where = db.get(Account, account_id), {"account_id": account_id}
    return {**account, "contacts": db.select(Contact, where, order_by="name"),
            "deals": db.select(Deal, where, order_by="close_date"),
            "activities": db.select(Activity, where, order_by="occurred_on", descending=True)}


@service.read(returns=Page[Contact])
def list_contacts(db: Db, account_id: Ref[Account] | None = None, query: str | None = None,
                  limit: int = 20, offset: int = 0) -> dict[str, Any]:
    """List contacts sorted by name, optionally filtered.

    Args:
        account_id: Only contacts at this account.
        query: Case-insensitive substring of the contact's name, email or job title.
        limit: Maximum number of contacts to return (1-100).
        offset: Number of contacts to skip, for paging.
    """
    where = {"account_id": db.get(Account, account_id)["id"] if account_id else None,
             "name|email|job_title__contains": query}
    return db.page(Contact, given(where), order_by="name", limit=limit, offset=offset)


@service.read(returns=Page[Lead])
def list_leads(db: Db, status: LeadStatus | None = None, query: str | None = None,
               limit: int = 20, offset: int = 0) -> dict[str, Any]:
    """List leads, newest first, optionally filtered.

    Args:
        status: Only leads in this status.
        query: Case-insensitive substring of the lead's name, email or company.
        limit: Maximum number of leads to return (1-100).
        offset: Number of leads to skip, for paging.
    """
    where = {"status": status, "name|email|company__contains": query}
    return db.page(Lead, given(where), order_by="created_on", descending=True, limit=limit, offset=offset)


@service.read(returns=Page[Deal])
def list_deals(db: Db, account_id: Ref[Account] | None = None, stage: Stage | None = None,
               owner: PersonName | None = None, open_only: bool = False,
               closing_before: Date | None = None, limit: int = 20, offset: int = 0) -> dict[str, Any]:
    """List deals sorted by close date, optionally filtered.

    Args:
        account_id: Only deals with this account.
        stage: Only deals in this stage.
        owner: Only deals owned by this sales rep (full name).
        open_only: Only deals that are not yet won or lost.
        closing_before: Only deals whose close date is on or before this date.
        limit: Maximum number of deals to return (1-100).
        offset: Number of deals to skip, for paging.
    """
    where = {"account_id": db.get(Account, account_id)["id"] if account_id else None,
             "stage": stage, "owner": owner, "stage__in": list(OPEN_STAGES) if open_only else None,
             "close_date__lte": closing_before}
    return db.page(Deal, given(where), order_by="close_date", limit=limit, offset=offset)


@service.read(returns=PipelineSummary)
def get_pipeline_summary(db: Db, currency: Currency = "USD",
                         owner: PersonName | None = None) -> dict[str, Any]:
    """Count and total the deals of each stage in one currency, plus open totals.

    The weighted open total weighs open deals by win probability (10/25/50/75% by stage).

    Args:
        currency: Only deals in this currency.
        owner: Only deals owned by this sales rep (full name).
    """
    rows = db.sql("SELECT stage, count(*) AS n, sum(amount) AS total FROM {deal} WHERE currency = ?"
                  + (" AND owner = ?" if owner else "") + " GROUP BY stage",
                  [currency.upper(), *([owner] if owner else [])])
    found = {r["stage"]: (r["n"], round(r["total"], 2)) for r in rows}
    stages = {s: found.get(s, (0, 0.0)) for s in STAGES}
    return {"currency": currency.upper(),
            "stages": [{"stage": s, "count": n, "total_amount": t} for s, (n, t) in stages.items()],
            "open_count": sum(stages[s][0] for s in OPEN_STAGES),
            "open_total": round(sum(stages[s][1] for s in OPEN_STAGES), 2),
            "weighted_open_total": round(sum(stages[s][1] * PROBABILITY[s] / 100 for s in OPEN_STAGES), 2)}


def _account_named(db: Db, name: str) -> dict[str, Any] | None:  # the name's case does not matter
    rows = db.sql("SELECT id FROM {account} WHERE name = ? COLLATE NOCASE", [name])
    return db.get(Account, rows[0]["id"]) if rows else None


@service.write(returns=Account)
def create_account(db: Db, name: CompanyName, owner: PersonName, domain: Domain | None = None,
                   industry: Industry | None = None) -> dict[str, Any]:
    """Add an account (a customer or prospect company), created today. Names are unique.

    Args:
        name: The company's name (no other account may have it, whatever the case).
        owner: Full name of the owning sales rep.
        domain: The company's web domain, e.g. "example.com".
        industry: The company's industry sector.
    """
    name, owner = " ".join(name.split()), " ".join(owner.split())
    site = re.sub(r"^(?:[a-z]+://)?(?:www\.)?|/.*$", "", (domain or "").lower()).strip(" .")
    if not name or not owner or (domain and not re.fullmatch(r"[a-z0-9-]+(\.[a-z0-9-]+)+", site)):
        raise BadArguments("name and owner must not be empty; domain must look like example.com")
    if taken := _account_named(db, name):
        raise Conflict(f"account {taken['id']!r} is already named {taken['name']!r}")
    return db.insert(Account, name=name, owner=owner, domain=site or None, industry=industry,
                     created_on=db.today.isoformat())


@service.write(returns=Contact)
def create_contact(db: Db, account_id: Ref[Account], name: PersonName, email: Email,
                   phone: Phone | None = None, job_title: JobTitle | None = None) -> dict[str, Any]:
    """Add a person working at an account as a contact. Contact emails are unique.

    Args:
        account_id: The account the person works at.
        name: The contact's full name.
        email: The contact's email address (must not be another contact's).
        phone: Phone number.
        job_title: The contact's job title.
    """
    db.get(Account, account_id)
    if not name.strip():
        raise BadArguments("name must not be empty")
    return db.insert(Contact, account_id=account_id, name=name.strip(), email=email, phone=phone,
                     job_title=job_title)


@service.write(returns=Lead)
def create_lead(db: Db, name: PersonName, email: Email, company: CompanyName, source: LeadSource,
                owner: PersonName, phone: Phone | None = None,
                job_title: JobTitle | None = None) -> dict[str, Any]:
    """Add a new lead, created today. No other lead or contact may have the lead's email.

    Args:
        name: The prospective buyer's full name.
        email: Their email address (must not be another lead's or a contact's).
        company: The company they buy for.
        source: Where the lead came from.
        owner: Full name of the sales rep who works the lead.
        phone: Phone number.
        job_title: Their job title.
    """
    if not name.strip() or not company.strip() or not owner.strip():
        raise BadArguments("name, company and owner must not be empty")
    if (contact := db.find(Contact, email=email)) is not None:
        raise Conflict(f"{email.lower()} already belongs to contact {contact['name']} "
                       f"({contact['id']!r}); log an activity or open a deal instead")
    return db.insert(Lead, name=name.strip(), email=email, phone=phone, company=company.strip(),
                     job_title=job_title, source=source, owner=owner.strip(), created_on=db.today.isoformat())


@service.write(returns=AccountDeleted)
def delete_account(db: Db, account_id: Ref[Account]) -> dict[str, Any]:
    """Delete an account with its contacts, activities and closed deals (not while deals are open).

    Args:
        account_id: The account's id.
    """
    where = {"account_id": db.get(Account, account_id)["id"]}
    if open_deals := db.count(Deal, {**where, "stage__in": list(OPEN_STAGES)}):
        raise Conflict(f"account {account_id!r} still has {open_deals} open deal(s)")
    contacts = [c["id"] for c in db.select(Contact, where)]
    for lead in db.select(Lead, {"converted_contact_id__in": contacts}):  # keep the lead
        db.update(Lead, lead["id"], converted_contact_id=None)
    for entity in (Activity, Deal, Contact):
        for record in db.select(entity, where):
            db.delete(entity, record["id"])
    db.delete(Account, account_id)
    return {"id": account_id, "deleted": True, "contacts_deleted": len(contacts)}


@service.write(returns=LeadConversion)
def convert_lead(db: Db, lead_id: Ref[Lead], deal_amount: Money | None = None) -> dict[str, Any]:
    """Convert a lead into a contact at its company's account, optionally opening a deal.

    The account is found by the lead's company name, or created (owned by the lead's owner).
    A lead is converted only once; disqualified leads cannot be converted.

    Args:
        lead_id: The lead's id.
        deal_amount: If given, also open a USD deal of this amount, closing in 30 days.
    """
    lead = db.get(Lead, lead_id)
    if lead["status"] == "converted":
        raise Conflict(f"lead {lead_id!r} was already converted")
    if lead["status"] == "disqualified":
        raise Refused(f"lead {lead_id!r} is disqualified and cannot be converted")
    if deal_amount is not None and deal_amount < 0:
        raise BadArguments("deal_amount must not be negative")
    account = _account_named(db, lead["company"]) or db.insert(Account, name=lead["company"],
        owner=lead["owner"], domain=lead["email"].split("@")[1], created_on=db.today.isoformat())
    contact = db.insert(Contact, account_id=account["id"], name=lead["name"],
                        email=lead["email"], phone=lead["phone"], job_title=lead["job_title"])
    deal = None if deal_amount is None else db.insert(
        Deal, name=f"{account['name']}: new business", account_id=account["id"], contact_id=contact["id"],
        amount=deal_amount, owner=account["owner"], close_date=(db.today + timedelta(days=30)).isoformat())
    lead = db.update(Lead, lead_id, status="converted", converted_contact_id=contact["id"])
    return {"lead": lead, "account": account, "contact": contact, "deal": deal}


@service.write(returns=Deal)
def create_deal(db: Db, account_id: Ref[Account], name: str, amount: Money, close_date: Date,
                currency: Currency = "USD", contact_id: Ref[Contact] | None = None,
                owner: PersonName | None = None) -> dict[str, Any]:
    """Open a deal with an account, in the prospecting stage.

    Args:
        account_id: The account the deal is with.
        name: A short name for the deal.
        amount: Expected value (0 if not known yet).
        close_date: Expected close date (today or later).
        currency: Currency of the amount.
        contact_id: The main contact (must work at the account).
        owner: Full name of the owning sales rep (default: the account's owner).
    """
    account = db.get(Account, account_id)
    if contact_id is not None and db.get(Contact, contact_id)["account_id"] != account_id:
        raise Refused(f"contact {contact_id!r} does not work at account {account_id!r}")
    if amount < 0 or not name.strip():
        raise BadArguments("amount must not be negative and name must not be empty")
    if close_date < db.today.isoformat():
        raise Refused(f"close_date {close_date} is in the past")
    return db.insert(Deal, name=name.strip(), account_id=account_id, contact_id=contact_id,
                     amount=amount, currency=currency.upper(), close_date=close_date,
                     owner=(owner or "").strip() or account["owner"])


@service.write(returns=Deal)
def update_deal(db: Db, deal_id: Ref[Deal], name: str | None = None, amount: Money | None = None,
                close_date: Date | None = None, owner: PersonName | None = None,
                contact_id: Ref[Contact] | None = None) -> dict[str, Any]:
    """Change an open deal; fields left out stay as they are. Won and lost deals cannot change.

    Args:
        deal_id: The deal's id.
        name: New short name for the deal.
        amount: New expected value (0 or more).
        close_date: New expected close date (today or later).
        owner: Full name of the new owning sales rep.
        contact_id: New main contact (must work at the deal's account).
    """
    deal, contact = db.get(Deal, deal_id), None if contact_id is None else db.get(Contact, contact_id)
    if deal["stage"] not in OPEN_STAGES:
        raise Refused(f"deal {deal_id!r} is closed ({deal['stage']}) and cannot be changed")
    if contact is not None and contact["account_id"] != deal["account_id"]:
        raise Refused(f"contact {contact_id!r} does not work at account {deal['account_id']!r}")
    name, owner = (None if text is None else text.strip() for text in (name, owner))
    if (amount is not None and amount < 0) or "" in (name, owner):
        raise BadArguments("amount must not be negative and name and owner must not be empty")
    if close_date is not None and close_date < db.today.isoformat():
        raise Refused(f"close_date {close_date} is in the past")
    changes = dict(name=name, amount=amount, close_date=close_date, owner=owner, contact_id=contact_id)
    return db.update(Deal, deal_id, **{k: v for k, v in changes.items() if v is not None})


@service.write(returns=Deal)
def advance_deal_stage(db: Db, deal_id: Ref[Deal], stage: Stage, lost_reason: str = "") -> dict[str, Any]:
    """Move a deal to a later stage, or close it as won or lost (its close date becomes today).

    Stages run prospecting → qualification → proposal → negotiation → won and may be skipped
    but never moved back; any open deal can be lost. A deal worth 0 cannot be won.

    Args:
        deal_id: The deal's id.
        stage: The new stage.
        lost_reason: Why the deal was lost (required when stage is "lost").
    """
    deal = db.get(Deal, deal_id)
    current = deal["stage"]
    if current not in OPEN_STAGES:
        raise Refused(f"deal {deal_id!r} is already closed ({current})")
    if stage == current:
        raise Conflict(f"deal {deal_id!r} is already in stage {stage}")
    if stage != "lost" and STAGES.index(stage) < STAGES.index(current):
        raise Refused(f"deal {deal_id!r} cannot move back from {current} to {stage}")
    if stage == "won" and deal["amount"] <= 0:
        raise Refused(f"deal {deal_id!r} has no amount; a deal worth 0 cannot be won")
    if stage == "lost" and not lost_reason.strip():
        raise Refused("a lost_reason is required to mark a deal lost")
    closing = {"close_date": db.today.isoformat(), "lost_reason": lost_reason.strip()}
    return db.update(Deal, deal_id, stage=stage, **(closing if stage in ("won", "lost") else {}))


@service.write(returns=Activity)
def log_activity(db: Db, kind: ActivityKind, subject: str, account_id: Ref[Account],
                 contact_id: Ref[Contact] | None = None, deal_id: Ref[Deal] | None = None) -> dict[str, Any]:
    """Log a call, email, meeting or note with an account, dated today.

    Args:
        kind: What kind of activity it was.
        subject: A one-line summary, e.g. "Discussed renewal pricing".
        account_id: The account concerned.
        contact_id: The contact concerned (must work at the account).
        deal_id: The deal concerned (must be with the account).
    """
    db.get(Account, account_id)
    for entity, record_id in ((Contact, contact_id), (Deal, deal_id)):
        if record_id is not None and db.get(entity, record_id)["account_id"] != account_id:
            raise Refused(f"{entity.entity_name} {record_id!r} is not with account {account_id!r}")
    if not subject.strip():
        raise BadArguments("subject must not be empty")
    return db.insert(Activity, kind=kind, subject=subject.strip(), account_id=account_id,
                     contact_id=contact_id, deal_id=deal_id, occurred_on=db.today.isoformat())


@service.seeder
def seed(db: Db, pool: Pool) -> None:
    rng = pool.rng("crm")
    reps = [p.name for p in pool.people[-6:]]  # the sales team: never contacts or leads
    accounts: dict[str, dict[str, Any]] = {}
    for company in pool.companies[: max(1, len(pool.companies) * 4 // 5)]:
        if company.name not in accounts:  # company names may repeat in the pool
            accounts[company.name] = db.insert(
                Account, name=company.name, domain=company.domain, industry=company.industry,
                owner=rng.choice(reps), created_on=pool.day(-rng.randint(90, 900)).isoformat())
    contacts: dict[str, list[str]] = {name: [] for name in accounts}
    for i, person in enumerate(pool.people[:-6]):
        contact = None
        if person.company.name in accounts and (i % 5 != 4 or rng.random() < 0.25):
            contact = db.insert(Contact, account_id=accounts[person.company.name]["id"], name=person.name,
                                email=person.email, phone=person.phone, job_title=person.job_title)
            contacts[person.company.name].append(contact["id"])
        if i % 5 == 4:  # every fifth person came in as a lead; some have been converted
            db.insert(Lead, name=person.name, email=person.email, phone=person.phone,
                      company=person.company.name, job_title=person.job_title,
                      source=rng.choice(get_args(LeadSource)), status="converted" if contact else rng.choices(
                          ("new", "qualified", "disqualified"), (2, 1, 1))[0],
                      owner=rng.choice(reps), created_on=pool.day(-rng.randint(1, 60)).isoformat(),
                      converted_contact_id=contact and contact["id"])
    for name, account in accounts.items():
        deals = []
        for _ in range(rng.randint(1, 3)):
            stage = rng.choices(STAGES, (3, 3, 3, 2, 3, 2))[0]
            unknown = stage == "prospecting" and rng.random() < 0.2  # amount not estimated yet
            close = pool.day(rng.randint(-10, 120) if stage in OPEN_STAGES else -rng.randint(1, 180))
            deals.append(db.insert(
                Deal, name=f"{name}: {rng.choice(DEAL_KINDS)}", account_id=account["id"], stage=stage,
                contact_id=rng.choice(contacts[name]) if contacts[name] else None,
                amount=0.0 if unknown else float(rng.randrange(20, 1500) * 100),
                currency=rng.choices(("USD", "EUR", "GBP"), (8, 1, 1))[0], close_date=close.isoformat(),
                owner=account["owner"] if rng.random() < 0.85 else rng.choice(reps),
                lost_reason="Chose a competitor" if stage == "lost" else "")["id"])
        for contact_id in contacts[name]:
            for _ in range(rng.randint(0, 3)):
                kind, subject = rng.choice(ACTIVITIES)
                db.insert(Activity, kind=kind, subject=subject, account_id=account["id"],
                          contact_id=contact_id, deal_id=rng.choice(deals) if rng.random() < 0.6 else None,
                          occurred_on=pool.day(-rng.randint(0, 90)).isoformat())
