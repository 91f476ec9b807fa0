"""Contacts: an address book of people, their details, tags and groups."""

from __future__ import annotations

from typing import Any

from compoworld.errors import Conflict, RecordNotFound, Refused
from compoworld.service import Db, Entity, Page, Result, Service
from compoworld.types import (
    City,
    CompanyName,
    Country,
    Date,
    Email,
    FirstName,
    JobTitle,
    LastName,
    PersonName,
    Phone,
    Pool,
    Ref,
)

service = Service("contacts", domain="people",
                  description="An address book: people, their contact details, tags and groups.")


@service.entity
class Contact(Entity):
    """A person in the address book."""

    id_prefix = "ct"
    unique_fields = ("email",)

    name: PersonName
    first_name: FirstName
    last_name: LastName
    email: Email
    phone: Phone | None = None
    company: CompanyName | None = None
    job_title: JobTitle | None = None
    city: City | None = None
    country: Country | None = None
    birthday: Date | None = None
    tags: list[str] = []
    favorite: bool = False
    notes: str = ""


@service.entity
class Group(Entity):
    """A named group of contacts."""

    id_prefix = "gr"
    unique_fields = ("name",)

    name: str
    description: str = ""


@service.entity
class Membership(Entity):
    """A contact's membership of a group."""

    id_prefix = "mb"

    contact_id: Ref[Contact]
    group_id: Ref[Group]


class Deleted(Result):
    """A contact that was deleted."""

    id: Ref[Contact]
    deleted: bool


@service.read(returns=Page[Contact])
def list_contacts(db: Db, company: CompanyName | None = None, tag: str | None = None,
                  favorite: bool | None = None, limit: int = 20, offset: int = 0) -> dict[str, Any]:
    """List contacts, optionally filtered, sorted by name.

    Args:
        company: Only contacts working at this company.
        tag: Only contacts carrying this tag.
        favorite: Only favourite (true) or non-favourite (false) contacts.
        limit: Maximum number of contacts to return (1-100).
        offset: Number of contacts to skip, for paging.
    """
    where: dict[str, Any] = {}
    if company is not None:
        where["company"] = company
    if favorite is not None:
        where["favorite"] = favorite
    if tag is not None:
        where["tags__contains"] = f'"{tag}"'
    return db.page(Contact, where, order_by="name", limit=limit, offset=offset)


@service.read(returns=list[Contact])
def search_contacts(db: Db, query: str, limit: int = 10) -> list[dict[str, Any]]:
    """Search contacts by name, email, company or job title (case-insensitive substring).

    Args:
        query: Text to look for, e.g. part of a name or an email domain.
        limit: Maximum number of contacts to return.
    """
    if not query.strip():
        raise Refused("query must not be empty")
    return db.select(Contact, {"name|email|company|job_title__contains": query.strip()},
                     order_by="name", limit=max(1, min(limit, 100)))


@service.read(returns=Contact)
def get_contact(db: Db, contact_id: Ref[Contact]) -> dict[str, Any]:
    """Get a contact's full details.

    Args:
        contact_id: The contact's id.
    """
    return db.get(Contact, contact_id)


@service.read(returns=Contact)
def find_contact_by_email(db: Db, email: Email) -> dict[str, Any]:
    """Find the contact with this exact email address.

    Args:
        email: The email address to look up (case-insensitive).
    """
    found = db.find(Contact, email=email.strip().lower())
    if found is None:
        raise RecordNotFound(f"no contact has email {email!r}")
    return found


@service.write(returns=Contact)
def create_contact(db: Db, first_name: FirstName, last_name: LastName, email: Email,
                   phone: Phone | None = None, company: CompanyName | None = None,
                   job_title: JobTitle | None = None, city: City | None = None,
                   tags: list[str] | None = None) -> dict[str, Any]:
    """Add a person to the address book. Emails are unique.

    Args:
        first_name: Given name.
        last_name: Family name.
        email: Email address (must not belong to another contact).
        phone: Phone number.
        company: Company the person works for.
        job_title: The person's job title.
        city: City the person lives in.
        tags: Labels to attach, e.g. ["client", "vip"].
    """
    return db.insert(
        Contact, name=f"{first_name} {last_name}", first_name=first_name, last_name=last_name,
        email=email.strip().lower(), phone=phone, company=company, job_title=job_title, city=city,
        tags=sorted(set(tags or [])),
    )


@service.write(returns=Contact)
def update_contact(db: Db, contact_id: Ref[Contact], email: Email | None = None,
                   phone: Phone | None = None, company: CompanyName | None = None,
                   job_title: JobTitle | None = None, city: City | None = None,
                   notes: str | None = None) -> dict[str, Any]:
    """Change some details of a contact; fields left out stay as they are.

    Args:
        contact_id: The contact's id.
        email: New email address.
        phone: New phone number.
        company: New company.
        job_title: New job title.
        city: New city.
        notes: New free-text notes (replaces the old notes).
    """
    changes = {k: v for k, v in {"email": email and email.strip().lower(), "phone": phone,
               "company": company, "job_title": job_title, "city": city,
               "notes": notes}.items() if v is not None}
    return db.update(Contact, contact_id, **changes)


@service.write(returns=Deleted)
def delete_contact(db: Db, contact_id: Ref[Contact]) -> dict[str, Any]:
    """Delete a contact and their group memberships. Favourite contacts must be unstarred first.

    Args:
        contact_id: The contact's id.
    """
    contact = db.get(Contact, contact_id)
    if contact["favorite"]:
        raise Refused(f"contact {contact_id!r} is a favourite; unmark it before deleting")
    for membership in db.select(Membership, {"contact_id": contact_id}):
        db.delete(Membership, membership["id"])
    db.delete(Contact, contact_id)
    return {"id": contact_id, "deleted": True}


@service.write(returns=Contact)
def set_favorite(db: Db, contact_id: Ref[Contact], favorite: bool) -> dict[str, Any]:
    """Mark or unmark a contact as a favourite.

    Args:
        contact_id: The contact's id.
        favorite: True to mark as favourite, false to unmark.
    """
    return db.update(Contact, contact_id, favorite=favorite)


@service.write(returns=Contact)
def tag_contact(db: Db, contact_id: Ref[Contact], tag: str) -> dict[str, Any]:
    """Attach a tag to a contact (tags are lower case; a contact carries at most 10).

    Args:
        contact_id: The contact's id.
        tag: The tag, e.g. "client".
    """
    contact = db.get(Contact, contact_id)
    tag = tag.strip().lower()
    if not tag:
        raise Refused("tag must not be empty")
    if tag in contact["tags"]:
        raise Conflict(f"contact {contact_id!r} already has tag {tag!r}")
    if len(contact["tags"]) >= 10:
        raise Refused(f"contact {contact_id!r} already has 10 tags")
    return db.update(Contact, contact_id, tags=sorted([*contact["tags"], tag]))


@service.read(returns=list[Group])
def list_groups(db: Db) -> list[dict[str, Any]]:
    """List all contact groups."""
    return db.select(Group, order_by="name")


@service.write(returns=Group)
def create_group(db: Db, name: str, description: str = "") -> dict[str, Any]:
    """Create a contact group. Group names are unique.

    Args:
        name: The group's name.
        description: What the group is for.
    """
    if not name.strip():
        raise Refused("group name must not be empty")
    return db.insert(Group, name=name.strip(), description=description)


@service.write(returns=Membership)
def add_to_group(db: Db, contact_id: Ref[Contact], group_id: Ref[Group]) -> dict[str, Any]:
    """Add a contact to a group.

    Args:
        contact_id: The contact's id.
        group_id: The group's id.
    """
    db.get(Contact, contact_id)
    db.get(Group, group_id)
    if db.find(Membership, contact_id=contact_id, group_id=group_id):
        raise Conflict(f"contact {contact_id!r} is already in group {group_id!r}")
    return db.insert(Membership, contact_id=contact_id, group_id=group_id)


@service.read(returns=list[Contact])
def list_group_members(db: Db, group_id: Ref[Group]) -> list[dict[str, Any]]:
    """List the contacts in a group, sorted by name.

    Args:
        group_id: The group's id.
    """
    db.get(Group, group_id)
    ids = [m["contact_id"] for m in db.select(Membership, {"group_id": group_id})]
    return db.select(Contact, {"id__in": ids}, order_by="name")


@service.seeder
def seed(db: Db, pool: Pool) -> None:
    rng = pool.rng("contacts")
    fake = pool.faker("contacts")
    tags = ("client", "vendor", "friend", "family", "investor", "press", "vip")
    contacts = []
    for person in pool.people[: int(len(pool.people) * 0.8)]:
        contacts.append(db.insert(
            Contact, name=person.name, first_name=person.first_name, last_name=person.last_name,
            email=person.email, phone=person.phone, company=person.company.name,
            job_title=person.job_title, city=person.city, country=person.country,
            birthday=person.birthday.isoformat(), tags=sorted(rng.sample(tags, rng.randint(0, 2))),
            favorite=rng.random() < 0.1, notes=fake.sentence() if rng.random() < 0.3 else "",
        ))
    for name in ("Board", "Customers", "Suppliers", "Book club", "Conference 2026"):
        group = db.insert(Group, name=name, description=f"People in {name.lower()}.")
        for contact in rng.sample(contacts, min(len(contacts), rng.randint(4, 12))):
            db.insert(Membership, contact_id=contact["id"], group_id=group["id"])
