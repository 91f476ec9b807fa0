"""Mail: one person's mailbox — folders, threads, drafts, sending, replying and filing."""

from __future__ import annotations

import calendar
from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import Field

from compoworld.errors import Conflict, RecordNotFound, Refused
from compoworld.service import Db, Entity, Page, Result, Service
from compoworld.types import Date, DateTime, Email, PersonName, Pool, Ref

service = Service("mail", domain="communication",
                  description="An email mailbox: folders, threads, drafts, sending and replying.")

SYSTEM_FOLDERS = ("inbox", "sent", "drafts", "archive", "spam", "trash")
MAX_RECIPIENTS = 50


@service.entity
class Account(Entity):
    """The mailbox owner: the person the agent acts for."""

    id_prefix = "ac"

    name: PersonName
    email: Email
    signature: str = ""


@service.entity
class Folder(Entity):
    """A folder messages are filed in. System folders cannot be deleted."""

    id_prefix = "fo"
    unique_fields = ("name",)

    name: str
    system: bool = False


@service.entity
class Message(Entity):
    """An email: received, sent by the owner, or a draft not sent yet."""

    id_prefix = "ms"

    thread_id: str
    folder: str
    status: Literal["received", "sent", "draft"]
    sender: Email
    sender_name: PersonName | None = None
    to: list[Email] = Field(default_factory=list)
    cc: list[Email] = Field(default_factory=list)
    subject: str = ""
    body: str = ""
    sent_at: DateTime | None = None
    is_read: bool = True
    is_starred: bool = False


class FolderCount(Result):
    """A folder with how many messages it holds and how many of them are unread."""

    name: str
    system: bool
    total: int
    unread: int


class Mailbox(Result):
    """The mailbox: its owner and its folders with message counts."""

    owner: Account
    folders: list[FolderCount]


class MessageDeleted(Result):
    """A deleted message: gone for good (deleted, no folder) or moved to the trash."""

    id: Ref[Message]
    deleted: bool
    folder: Literal["trash"] | None


class FolderDeleted(Result):
    """A folder that was deleted."""

    name: str
    deleted: bool


def _clock(db: Db) -> str:
    """The mailbox clock: 09:00 today, then one minute after the latest message."""
    latest = db.sql("SELECT max(sent_at) AS t FROM {message}")[0]["t"] or "2000-01-01T00:00:00"
    return max(db.now,
               datetime.fromisoformat(latest) + timedelta(minutes=1)).isoformat()


def _folder(db: Db, name: str) -> dict[str, Any]:
    if (found := db.find(Folder, name=name.strip().lower())) is None:
        known = ", ".join(f["name"] for f in db.select(Folder, order_by="name"))
        raise RecordNotFound(f"no folder named {name!r} (folders: {known})")
    return found


def _emails(values: list[str] | None, *, without: str = "") -> list[str]:
    """Lower-cased addresses, duplicates and ``without`` left out, order kept."""
    return list(dict.fromkeys(e for e in (v.strip().lower() for v in values or []) if e != without))


def _check_sendable(to: list[str], cc: list[str], subject: str, body: str) -> None:
    if not to:
        raise Refused("a message needs at least one recipient in 'to'")
    if len(to) + len(cc) > MAX_RECIPIENTS:
        raise Refused(f"a message may have at most {MAX_RECIPIENTS} recipients")
    if not subject.strip() and not body.strip():
        raise Refused("cannot send an empty message: give a subject or a body")


def _start_thread(db: Db, **values: Any) -> dict[str, Any]:
    record = db.insert(Message, thread_id="new", **values)
    return db.update(Message, record["id"], thread_id=record["id"])


def _compose(db: Db, to: list[str] | None, cc: list[str] | None, subject: str, body: str,
             *, draft: bool) -> dict[str, Any]:
    me, to, cc = db.select(Account)[0], _emails(to), _emails(cc)
    if not draft:
        _check_sendable(to, cc, subject, body)
    return _start_thread(db, folder="drafts" if draft else "sent",
                         status="draft" if draft else "sent", sender=me["email"],
                         sender_name=me["name"], to=to, cc=cc, subject=subject.strip(),
                         body=body, sent_at=None if draft else _clock(db))


@service.read(returns=Mailbox)
def get_mailbox(db: Db) -> dict[str, Any]:
    """Get the mailbox: its owner (name, email, signature) and its folders with message counts."""
    folders = db.sql("SELECT f.name, f.system, count(m.id) AS total, coalesce(sum(m.is_read = 0), "
                     "0) AS unread FROM {folder} f LEFT JOIN {message} m ON m.folder = f.name "
                     "GROUP BY f.id ORDER BY f.name")
    return {"owner": db.select(Account)[0],
            "folders": [{**f, "system": bool(f["system"])} for f in folders]}


@service.read(returns=Page[Message])
def list_messages(db: Db, folder: str | None = None, query: str | None = None,
                  thread_id: str | None = None, unread_only: bool = False,
                  starred_only: bool = False, sender: Email | None = None,
                  sent_after: Date | None = None, sent_before: Date | None = None,
                  limit: int = 20, offset: int = 0) -> dict[str, Any]:
    """List or search messages, newest first, as {"items", "total", "next_offset"}: one page,
    the number that match and the offset of the next page (null on the last page).

    Args:
        folder: Only this folder, e.g. "inbox", "sent", "archive" (default: all but spam, trash).
        query: Text the subject, body, sender or recipients contain (case-insensitive).
        thread_id: Only this conversation (a message's thread_id), in every folder.
        unread_only: Only unread messages.
        starred_only: Only starred messages.
        sender: Only messages from this email address.
        sent_after: Only messages sent on or after this date.
        sent_before: Only messages sent on or before this date.
        limit: Maximum number of messages to return (1-100).
        offset: Number of messages to skip, for paging.
    """
    filters = {"subject|body|sender|sender_name|to|cc__contains": (query or "").strip() or None,
               "thread_id": thread_id, "is_read": False if unread_only else None,
               "is_starred": True if starred_only else None,
               "sender": sender and sender.strip().lower(),
               "sent_at__gte": sent_after and f"{sent_after}T00:00:00",
               "sent_at__lte": sent_before and f"{sent_before}T23:59:59"}
    where: dict[str, Any] = {k: v for k, v in filters.items() if v is not None}
    if folder is not None:
        where["folder"] = _folder(db, folder)["name"]
    elif thread_id is None:
        where["folder__in"] = [f["name"] for f in db.select(Folder)
                               if f["name"] not in ("spam", "trash")]
    return db.page(Message, where, order_by="sent_at", descending=True, limit=limit, offset=offset)


@service.read(returns=Message)
def get_message(db: Db, message_id: Ref[Message]) -> dict[str, Any]:
    """Get a message with its full body.

    Args:
        message_id: The message's id.
    """
    return db.get(Message, message_id)


@service.write(returns=Message)
def create_draft(db: Db, subject: str = "", body: str = "", to: list[Email] | None = None,
                 cc: list[Email] | None = None) -> dict[str, Any]:
    """Save a new draft in the drafts folder; send it later with send_draft.

    Args:
        subject: The subject line.
        body: The message text.
        to: Recipients' email addresses (may be filled in later).
        cc: Email addresses to copy.
    """
    return _compose(db, to, cc, subject, body, draft=True)


@service.write(returns=Message)
def update_draft(db: Db, message_id: Ref[Message], subject: str | None = None,
                 body: str | None = None, to: list[Email] | None = None,
                 cc: list[Email] | None = None) -> dict[str, Any]:
    """Change a draft; fields left out stay as they are. Sent and received mail cannot be edited.

    Args:
        message_id: The draft's id.
        subject: New subject line.
        body: New message text (replaces the old text).
        to: New list of recipients (replaces the old list).
        cc: New list of addresses to copy (replaces the old list).
    """
    if db.get(Message, message_id)["status"] != "draft":
        raise Refused(f"message {message_id!r} is not a draft; sent and received mail "
                      "cannot be edited")
    changes = {"subject": subject and subject.strip(), "body": body,
               "to": None if to is None else _emails(to),
               "cc": None if cc is None else _emails(cc)}
    return db.update(Message, message_id, **{k: v for k, v in changes.items() if v is not None})


@service.write(returns=Message)
def send_draft(db: Db, message_id: Ref[Message]) -> dict[str, Any]:
    """Send a draft: it moves to the sent folder. It needs at least one recipient.

    Args:
        message_id: The draft's id.
    """
    message = db.get(Message, message_id)
    if message["status"] != "draft":
        raise Refused(f"message {message_id!r} is not a draft (it is {message['status']})")
    _check_sendable(message["to"], message["cc"], message["subject"], message["body"])
    return db.update(Message, message_id, status="sent", folder="sent", sent_at=_clock(db))


@service.write(returns=Message)
def send_message(db: Db, to: list[Email], subject: str, body: str,
                 cc: list[Email] | None = None) -> dict[str, Any]:
    """Write and send a new email at once (it starts a new thread).

    Args:
        to: Recipients' email addresses (at least one).
        subject: The subject line.
        body: The message text.
        cc: Email addresses to copy.
    """
    return _compose(db, to, cc, subject, body, draft=False)


@service.write(returns=Message)
def reply_to_message(db: Db, message_id: Ref[Message], body: str,
                     reply_all: bool = False) -> dict[str, Any]:
    """Reply to a message in its thread; the original is marked read. Drafts cannot be replied to.

    Args:
        message_id: The id of the message to answer.
        body: The reply text.
        reply_all: Also send to everyone else who was on the original message (as cc).
    """
    original = db.get(Message, message_id)
    if original["status"] == "draft":
        raise Refused(f"message {message_id!r} is a draft; send it with send_draft")
    me = db.select(Account)[0]
    first = original["to"] if original["status"] == "sent" else [original["sender"]]
    to = _emails(first, without=me["email"])
    others = _emails(original["to"] + original["cc"], without=me["email"]) if reply_all else []
    cc = [e for e in others if e not in to]
    subject = original["subject"]
    subject = subject if subject.lower().startswith("re:") else f"Re: {subject}"
    _check_sendable(to, cc, subject, body)
    db.update(Message, message_id, is_read=True)
    return db.insert(Message, thread_id=original["thread_id"], folder="sent", status="sent",
                     sender=me["email"], sender_name=me["name"], to=to, cc=cc,
                     subject=subject, body=body, sent_at=_clock(db))


def _quote(message: dict[str, Any]) -> str:
    """The forwarded message: its headers, then its body with every line quoted."""
    sender = message["sender"]
    sender = f"{message['sender_name']} <{sender}>" if message["sender_name"] else sender
    headers = [f"From: {sender}", f"Date: {message['sent_at']}",
               f"Subject: {message['subject']}", f"To: {', '.join(message['to'])}"]
    headers += [f"Cc: {', '.join(message['cc'])}"] if message["cc"] else []
    quoted = [f"> {line}".rstrip() for line in message["body"].splitlines()]
    return "\n".join(["---------- Forwarded message ----------", *headers, "", *quoted])


@service.write(returns=Message)
def forward_message(db: Db, message_id: Ref[Message], to: list[Email], note: str = "",
                    cc: list[Email] | None = None) -> dict[str, Any]:
    """Forward a message to other people (a new thread); the original is quoted and marked read.

    The subject gets a "Fwd: " prefix (once); drafts cannot be forwarded.

    Args:
        message_id: The id of the message to forward.
        to: Recipients' email addresses (at least one).
        note: Your text, written above the forwarded message.
        cc: Email addresses to copy.
    """
    original = db.get(Message, message_id)
    if original["status"] == "draft":
        raise Refused(f"message {message_id!r} is a draft; send it with send_draft")
    me, to = db.select(Account)[0], _emails(to)
    cc = [e for e in _emails(cc) if e not in to]
    subject = original["subject"]
    subject = subject if subject.lower().startswith("fwd:") else f"Fwd: {subject}".strip()
    body = f"{note.strip()}\n\n{_quote(original)}" if note.strip() else _quote(original)
    _check_sendable(to, cc, subject, body)
    db.update(Message, message_id, is_read=True)
    return _start_thread(db, folder="sent", status="sent", sender=me["email"],
                         sender_name=me["name"], to=to, cc=cc, subject=subject, body=body,
                         sent_at=_clock(db))


@service.write(returns=Message)
def move_message(db: Db, message_id: Ref[Message], folder: str) -> dict[str, Any]:
    """File a message in another folder. Nothing can be moved into "drafts" or "sent".

    Args:
        message_id: The message's id.
        folder: The target folder's name, e.g. "archive" or a folder you created.
    """
    message = db.get(Message, message_id)
    target = _folder(db, folder)["name"]
    if message["status"] == "draft":
        raise Refused(f"message {message_id!r} is a draft; send or delete it instead")
    if target in ("drafts", "sent"):
        raise Refused(f"messages cannot be moved into {target!r}")
    if message["folder"] == target:
        raise Conflict(f"message {message_id!r} is already in {target!r}")
    return db.update(Message, message_id, folder=target)


@service.write(returns=Message)
def mark_read(db: Db, message_id: Ref[Message], is_read: bool = True,
              starred: bool | None = None) -> dict[str, Any]:
    """Mark a message as read or unread, and optionally star or unstar it.

    Args:
        message_id: The message's id.
        is_read: True to mark as read, false to mark as unread.
        starred: True to star the message, false to remove its star; left out: unchanged.
    """
    starring = {} if starred is None else {"is_starred": starred}
    return db.update(Message, message_id, is_read=is_read, **starring)


@service.write(returns=MessageDeleted)
def delete_message(db: Db, message_id: Ref[Message]) -> dict[str, Any]:
    """Move a message to the trash; drafts and messages already in the trash are deleted for good.

    Args:
        message_id: The message's id.
    """
    message = db.get(Message, message_id)
    if message["status"] == "draft" or message["folder"] == "trash":
        db.delete(Message, message_id)
        return {"id": message_id, "deleted": True, "folder": None}
    db.update(Message, message_id, folder="trash")
    return {"id": message_id, "deleted": False, "folder": "trash"}


@service.write(returns=Folder)
def create_folder(db: Db, name: str) -> dict[str, Any]:
    """Create a folder. Names are lower case, unique, 1-40 characters and without '/'.

    Args:
        name: The folder's name, e.g. "invoices".
    """
    name = name.strip().lower()
    if not name or len(name) > 40 or "/" in name:
        raise Refused("a folder name must be 1-40 characters, without '/'")
    if db.find(Folder, name=name):
        raise Conflict(f"folder {name!r} already exists")
    return db.insert(Folder, name=name)


@service.write(returns=FolderDeleted)
def delete_folder(db: Db, name: str) -> dict[str, Any]:
    """Delete an empty folder you created; system folders (inbox, sent, ...) cannot be deleted.

    Args:
        name: The folder's name.
    """
    folder = _folder(db, name)
    if folder["system"]:
        raise Refused(f"{folder['name']!r} is a system folder and cannot be deleted")
    if held := db.count(Message, {"folder": folder["name"]}):
        raise Refused(f"folder {folder['name']!r} still holds {held} message(s); move them first")
    db.delete(Folder, folder["id"])
    return {"name": folder["name"], "deleted": True}


_PROJECTS = ("Apollo", "Borealis", "Cedar", "Delta", "Everest", "Falcon")
_TOPICS = (  # subject | opening line | folder the thread may be filed in
    "Q{q} budget review|Could you send me the Q{q} budget figures before {weekday}?|projects",
    "Invoice {inv} from {company}|Attached is invoice {inv} for ${amount}, due in 30 days.|receipts",
    "Flight confirmation: {city}|Your flight to {city} on {date} is confirmed.|travel",
    "Your order {order} has shipped|Order {order} is on its way, arriving by {date}.|receipts",
    "Project {project} kickoff|Let's kick off {project} next week. When are you free?|projects",
    "Feedback on the {project} deck|A few comments on the {project} timeline slide.|projects",
    "Contract renewal with {company}|Our {company} contract ends on {date}. Renew as is?|",
    "Lunch on {weekday}?|Are you free for lunch on {weekday}? New place near the office.|",
    "Meeting notes: {project} sync|Notes from the {project} sync; action items below.|projects",
    "Introduction: {other}, {company}|Meet {other} from {company}; talk about {project}?|",
)
_REPLIES = ("Thanks {first}, that works for me.", "Sounds good, I'll take a look today.",
            "Can we move this to next week?", "Attached the updated version.", "Great, thanks!")


@service.seeder
def seed(db: Db, pool: Pool) -> None:
    rng, fake = pool.rng("mail"), pool.faker("mail")
    me, others = pool.user, pool.people[:-1]
    db.insert(Account, name=me.name, email=me.email, signature=f"Best,\n{me.first_name}")
    for name in (*SYSTEM_FOLDERS, "projects", "receipts", "travel"):
        db.insert(Folder, name=name, system=name in SYSTEM_FOLDERS)
    morning = pool.now
    for _ in range(115):
        person, other = rng.sample(others, 2)
        subject, opener, category = rng.choice(_TOPICS).split("|")
        facts = {"q": rng.randint(1, 4), "weekday": calendar.day_name[rng.randrange(7)], "city": person.city,
                 "inv": fake.numerify("INV-#####"), "company": person.company.name,
                 "amount": f"{rng.randint(80, 9000)}.00", "order": fake.numerify("ORD-######"),
                 "date": pool.day(rng.randint(-10, 30)).isoformat(),
                 "project": rng.choice(_PROJECTS), "other": other.name}
        when = morning - timedelta(minutes=rng.randint(30, 60 * 24 * 60))
        folder = category if category and rng.random() < 0.5 else "inbox"
        if folder == "inbox" and when < morning - timedelta(days=14) and rng.random() < 0.4:
            folder = rng.choice(("archive", "archive", "trash"))
        cc = [other.email] if rng.random() < 0.25 else []
        mine, thread = rng.random() < 0.25, ""
        for turn in range(rng.choice((1, 1, 2, 2, 3, 4))):
            if when >= morning:
                break
            text = (rng.choice(_REPLIES) if turn else opener).format(**facts, first=person.first_name)
            sender, receiver = (me, person) if mine else (person, me)
            record = db.insert(
                Message, thread_id=thread or "new", folder="sent" if mine else folder,
                status="sent" if mine else "received", sender=sender.email,
                sender_name=sender.name, to=[receiver.email], cc=cc, sent_at=when.isoformat(),
                subject=("Re: " if turn else "") + subject.format(**facts),
                body=f"Hi {receiver.first_name},\n\n{text}\n\nBest,\n{sender.first_name}",
                is_read=mine or rng.random() < (0.4 if when > morning - timedelta(days=3) else 0.85),
                is_starred=not mine and rng.random() < 0.07)
            thread = thread or db.update(Message, record["id"], thread_id=record["id"])["id"]
            mine = not mine
            when += timedelta(minutes=rng.randint(20, 900))
    for _ in range(4):
        _start_thread(db, folder="spam", status="received", sender=fake.free_email(),
                      to=[me.email], subject=f"{fake.catch_phrase()}: 70% off today only",
                      body=fake.paragraph(), is_read=False,
                      sent_at=(morning - timedelta(hours=rng.randint(2, 400))).isoformat())
    for i, person in enumerate(rng.sample(others, 5)):  # two drafts have no recipient yet
        _start_thread(db, folder="drafts", status="draft", sender=me.email, sender_name=me.name,
                      to=[person.email] if i < 3 else [],
                      subject=f"Follow-up: {rng.choice(_PROJECTS)} next steps",
                      body=f"Hi {person.first_name},\n\n{fake.sentence()}" if i != 4 else "")
