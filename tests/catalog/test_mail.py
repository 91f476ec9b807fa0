"""The mail service: seeding, reads with filters and paging, and every write's rules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from compoworld.catalog import load_service
from compoworld.service import Environment, check_service

SERVICE = "mail"  # the conftest's world and env fixtures serve it


def messages(env: Environment, **where: Any) -> list[dict[str, Any]]:
    return env.db("mail").select("message", where)


def me(ok: Callable[..., Any], env: Environment) -> dict[str, Any]:
    return ok(env, "mail__get_mailbox")["owner"]


# -- seeding ------------------------------------------------------------------------------


def test_service_passes_the_conformance_check() -> None:
    report = check_service(load_service("mail"))
    assert report.ok, str(report)


def test_seeding_is_realistic_and_deterministic(world: Environment) -> None:
    rows = world.rows()
    total = sum(len(r) for r in rows.values())
    assert 250 <= total <= 400
    assert len(rows["mail__message"]) > 200
    assert Environment([load_service("mail")], seed=0).digest() == world.digest()
    assert Environment([load_service("mail")], seed=1).digest() != world.digest()


def test_owner_and_correspondents_are_pool_people(env: Environment, ok) -> None:
    people = {p.email: p for p in env.pool.people}
    owner = me(ok, env)
    assert (owner["email"], owner["name"]) == (env.pool.user.email, env.pool.user.name)
    received = [m for m in messages(env, status="received") if m["folder"] != "spam"]
    assert len(received) > 50
    for message in received:
        assert message["sender"] in people
        assert message["sender_name"] == people[message["sender"]].name
        assert message["to"] == [owner["email"]]
    for message in messages(env, status="sent"):
        assert message["sender"] == owner["email"]
        assert all(address in people for address in message["to"] + message["cc"])


def test_seeded_dates_are_in_the_past(env: Environment) -> None:
    today = env.pool.today.isoformat()
    dated = [m for m in messages(env) if m["sent_at"] is not None]
    assert dated and all(m["sent_at"] < f"{today}T09:00:00" for m in dated)
    assert any(m["sent_at"] < env.pool.day(-30).isoformat() for m in dated)


def test_mailbox_counts_match_the_messages(env: Environment, ok) -> None:
    folders = {f["name"]: f for f in ok(env, "mail__get_mailbox")["folders"]}
    assert {"inbox", "sent", "drafts", "archive", "spam", "trash"} <= set(folders)
    for name, folder in folders.items():
        held = messages(env, folder=name)
        assert folder["total"] == len(held)
        assert folder["unread"] == sum(not m["is_read"] for m in held)


# -- reads --------------------------------------------------------------------------------


def test_list_messages_pages_newest_first(env: Environment, ok) -> None:
    first = ok(env, "mail__list_messages", folder="inbox", limit=5)
    second = ok(env, "mail__list_messages", folder="inbox", limit=5, offset=5)
    both = ok(env, "mail__list_messages", folder="inbox", limit=10)
    assert first["total"] == second["total"] == len(messages(env, folder="inbox"))
    assert [m["id"] for m in first["items"] + second["items"]] == [m["id"] for m in both["items"]]
    dates = [m["sent_at"] for m in both["items"]]
    assert dates == sorted(dates, reverse=True)
    last = ok(env, "mail__list_messages", folder="inbox", limit=5, offset=first["total"])
    assert last["items"] == []


def test_list_messages_filters(env: Environment, ok) -> None:
    unread = ok(env, "mail__list_messages", folder="inbox", unread_only=True, limit=100)
    assert unread["items"] and all(not m["is_read"] for m in unread["items"])
    assert unread["total"] == len(messages(env, folder="inbox", is_read=False))

    sender = messages(env, folder="inbox")[0]["sender"]
    found = ok(env, "mail__list_messages", sender=sender.upper(), limit=100)["items"]
    assert found and all(m["sender"] == sender for m in found)

    window = {"sent_after": env.pool.day(-10).isoformat(),
              "sent_before": env.pool.day(-5).isoformat(), "limit": 100}
    dated = ok(env, "mail__list_messages", **window)["items"]
    assert dated
    assert all(window["sent_after"] <= m["sent_at"][:10] <= window["sent_before"] for m in dated)

    everywhere = ok(env, "mail__list_messages", limit=100)
    assert {m["folder"] for m in everywhere["items"]}.isdisjoint({"spam", "trash"})
    assert ok(env, "mail__list_messages", folder="spam")["total"] > 0


def test_list_messages_searches_text(env: Environment, ok) -> None:
    hits = ok(env, "mail__list_messages", query="INVOICE", limit=100)["items"]
    assert hits
    assert all("invoice" in (m["subject"] + m["body"]).lower() for m in hits)
    none = ok(env, "mail__list_messages", query="zzz-no-such-text")
    assert none == {"items": [], "total": 0, "next_offset": None}


def test_list_messages_refuses_bad_paging_and_unknown_folders(env: Environment, refused) -> None:
    assert "limit must be between 1 and 100" in refused(env, "mail__list_messages", 400, limit=0)
    refused(env, "mail__list_messages", 400, limit=101)
    assert "inbox" in refused(env, "mail__list_messages", 404, folder="nope")


def test_thread_filter_returns_the_whole_conversation(env: Environment, ok) -> None:
    reply = next(m for m in messages(env) if m["subject"].startswith("Re: "))
    thread = ok(env, "mail__list_messages", thread_id=reply["thread_id"], limit=100)["items"]
    assert len(thread) >= 2
    assert {m["thread_id"] for m in thread} == {reply["thread_id"]}
    assert reply["thread_id"] in {m["id"] for m in thread}


def test_get_message_and_unknown_ids(env: Environment, ok, refused) -> None:
    message = messages(env)[0]
    assert ok(env, "mail__get_message", message_id=message["id"]) == message
    refused(env, "mail__get_message", 404, message_id="ms_nope")
    refused(env, "mail__mark_read", 404, message_id="ms_nope")


# -- sending ------------------------------------------------------------------------------


def test_send_message_files_it_in_sent_with_the_world_clock(env: Environment, ok) -> None:
    to = env.pool.people[3].email
    sent = ok(env, "mail__send_message", to=[to.upper(), to], subject=" Hello ",
              body="Are we still on for Friday?")
    assert sent["status"] == "sent" and sent["folder"] == "sent"
    assert sent["to"] == [to] and sent["subject"] == "Hello"
    assert sent["sender"] == me(ok, env)["email"]
    assert sent["thread_id"] == sent["id"]
    assert sent["sent_at"] == f"{env.pool.today.isoformat()}T09:00:00"
    assert ok(env, "mail__get_message", message_id=sent["id"]) == sent
    newest = ok(env, "mail__list_messages", folder="sent", limit=1)["items"][0]
    assert newest["id"] == sent["id"]
    again = ok(env, "mail__send_message", to=[to], subject="Again", body="x")
    assert again["sent_at"] == f"{env.pool.today.isoformat()}T09:01:00"


def test_send_message_rules(env: Environment, refused) -> None:
    to = [env.pool.people[3].email]
    assert "recipient" in refused(env, "mail__send_message", 422, to=[], subject="s", body="b")
    refused(env, "mail__send_message", 422, to=to, subject=" ", body="")
    crowd = [f"person{i}@example.com" for i in range(51)]
    refused(env, "mail__send_message", 422, to=crowd, subject="s", body="b")
    refused(env, "mail__send_message", 400, to=["not-an-email"], subject="s", body="b")


def test_draft_lifecycle(env: Environment, ok, refused) -> None:
    drafts_before = ok(env, "mail__list_messages", folder="drafts")["total"]
    draft = ok(env, "mail__create_draft", subject="Plan", body="First idea")
    assert draft["status"] == "draft" and draft["folder"] == "drafts" and draft["to"] == []
    assert draft["sent_at"] is None
    assert "recipient" in refused(env, "mail__send_draft", 422, message_id=draft["id"])

    to = env.pool.people[7].email
    updated = ok(env, "mail__update_draft", message_id=draft["id"], to=[to], body="Final")
    assert updated["to"] == [to] and updated["body"] == "Final" and updated["subject"] == "Plan"
    assert ok(env, "mail__list_messages", folder="drafts")["total"] == drafts_before + 1

    sent = ok(env, "mail__send_draft", message_id=draft["id"])
    assert sent["id"] == draft["id"] and sent["status"] == "sent" and sent["sent_at"]
    assert ok(env, "mail__get_message", message_id=draft["id"])["folder"] == "sent"
    assert ok(env, "mail__list_messages", folder="drafts")["total"] == drafts_before
    refused(env, "mail__send_draft", 422, message_id=draft["id"])
    refused(env, "mail__update_draft", 422, message_id=draft["id"], body="too late")


def test_seeded_drafts_without_recipients_cannot_be_sent(env: Environment, refused) -> None:
    empty = [m for m in messages(env, status="draft") if not m["to"]]
    assert empty
    for draft in empty:
        refused(env, "mail__send_draft", 422, message_id=draft["id"])


def test_sent_and_received_mail_cannot_be_edited(env: Environment, refused) -> None:
    for status in ("sent", "received"):
        message = messages(env, status=status)[0]
        assert "draft" in refused(env, "mail__update_draft", 422, message_id=message["id"], subject="changed")


def test_reply_goes_to_the_sender_in_the_same_thread(env: Environment, ok) -> None:
    original = next(m for m in messages(env, status="received", folder="inbox")
                    if m["cc"] and not m["is_read"] and not m["subject"].startswith("Re:"))
    reply = ok(env, "mail__reply_to_message", message_id=original["id"], body="Thanks!")
    assert reply["to"] == [original["sender"]] and reply["cc"] == []
    assert reply["subject"] == f"Re: {original['subject']}"
    assert reply["thread_id"] == original["thread_id"] and reply["status"] == "sent"
    assert ok(env, "mail__get_message", message_id=original["id"])["is_read"] is True
    thread = ok(env, "mail__list_messages", thread_id=original["thread_id"], limit=100)
    assert reply["id"] in {m["id"] for m in thread["items"]}

    again = ok(env, "mail__reply_to_message", message_id=reply["id"], body="PS", reply_all=True)
    assert again["subject"] == reply["subject"]  # no "Re: Re:"
    assert again["to"] == [original["sender"]]


def test_reply_all_copies_everyone_but_the_owner(env: Environment, ok) -> None:
    original = next(m for m in messages(env, status="received") if m["cc"])
    reply = ok(env, "mail__reply_to_message", message_id=original["id"], body="Noted", reply_all=True)
    assert reply["to"] == [original["sender"]]
    assert reply["cc"] == original["cc"]
    assert me(ok, env)["email"] not in reply["to"] + reply["cc"]

    mine = next(m for m in messages(env, status="sent") if m["cc"])  # answering my own mail
    follow_up = ok(env, "mail__reply_to_message", message_id=mine["id"], body="Any news?", reply_all=True)
    assert follow_up["to"] == mine["to"]
    assert follow_up["cc"] == mine["cc"]  # the "to" people are not copied a second time


def test_drafts_cannot_be_replied_to(env: Environment, refused) -> None:
    draft = messages(env, status="draft")[0]
    refused(env, "mail__reply_to_message", 422, message_id=draft["id"], body="hi")


# -- filing -------------------------------------------------------------------------------


def test_move_message_and_its_rules(env: Environment, ok, refused) -> None:
    message = messages(env, folder="inbox")[0]
    moved = ok(env, "mail__move_message", message_id=message["id"], folder="Archive")
    assert moved["folder"] == "archive"
    assert ok(env, "mail__get_message", message_id=message["id"])["folder"] == "archive"
    refused(env, "mail__move_message", 409, message_id=message["id"], folder="archive")
    refused(env, "mail__move_message", 404, message_id=message["id"], folder="nowhere")
    refused(env, "mail__move_message", 422, message_id=message["id"], folder="sent")
    refused(env, "mail__move_message", 422, message_id=message["id"], folder="drafts")
    draft = messages(env, status="draft")[0]
    refused(env, "mail__move_message", 422, message_id=draft["id"], folder="archive")


def test_mark_read_and_star(env: Environment, ok) -> None:
    message = messages(env, folder="inbox", is_read=False, is_starred=False)[0]
    unread = {f["name"]: f["unread"] for f in ok(env, "mail__get_mailbox")["folders"]}["inbox"]
    ok(env, "mail__mark_read", message_id=message["id"], starred=True)
    stored = ok(env, "mail__get_message", message_id=message["id"])
    assert stored["is_read"] is True and stored["is_starred"] is True
    assert {f["name"]: f["unread"] for f in ok(env, "mail__get_mailbox")["folders"]}["inbox"] == unread - 1
    starred = ok(env, "mail__list_messages", starred_only=True, limit=100)["items"]
    assert message["id"] in {m["id"] for m in starred}
    ok(env, "mail__mark_read", message_id=message["id"], is_read=False)
    stored = ok(env, "mail__get_message", message_id=message["id"])
    assert stored["is_read"] is False and stored["is_starred"] is True


def test_delete_moves_to_trash_then_deletes_for_good(env: Environment, ok, refused) -> None:
    message = messages(env, folder="inbox")[0]
    first = ok(env, "mail__delete_message", message_id=message["id"])
    assert first == {"id": message["id"], "deleted": False, "folder": "trash"}
    assert ok(env, "mail__get_message", message_id=message["id"])["folder"] == "trash"
    assert ok(env, "mail__delete_message", message_id=message["id"])["deleted"] is True
    refused(env, "mail__get_message", 404, message_id=message["id"])


def test_deleting_a_draft_is_permanent(env: Environment, ok, refused) -> None:
    draft = messages(env, status="draft")[0]
    assert ok(env, "mail__delete_message", message_id=draft["id"])["deleted"] is True
    refused(env, "mail__get_message", 404, message_id=draft["id"])


def test_folders_lifecycle_and_rules(env: Environment, ok, refused) -> None:
    created = ok(env, "mail__create_folder", name=" Invoices ")
    assert created["name"] == "invoices" and created["system"] is False
    refused(env, "mail__create_folder", 409, name="INVOICES")
    refused(env, "mail__create_folder", 409, name="inbox")
    refused(env, "mail__create_folder", 422, name="  ")
    refused(env, "mail__create_folder", 422, name="a/b")
    refused(env, "mail__create_folder", 422, name="x" * 41)

    message = messages(env, folder="inbox")[0]
    ok(env, "mail__move_message", message_id=message["id"], folder="invoices")
    assert ok(env, "mail__list_messages", folder="invoices")["total"] == 1
    assert "1 message" in refused(env, "mail__delete_folder", 422, name="invoices")
    refused(env, "mail__delete_folder", 422, name="inbox")
    refused(env, "mail__delete_folder", 404, name="nope")

    ok(env, "mail__move_message", message_id=message["id"], folder="inbox")
    assert ok(env, "mail__delete_folder", name="invoices") == {"name": "invoices", "deleted": True}
    assert "invoices" not in {f["name"] for f in ok(env, "mail__get_mailbox")["folders"]}


def test_system_folders_cannot_be_deleted_even_when_empty(env: Environment, ok, refused) -> None:
    for draft in messages(env, status="draft"):
        ok(env, "mail__delete_message", message_id=draft["id"])
    assert ok(env, "mail__list_messages", folder="drafts")["total"] == 0
    assert "system folder" in refused(env, "mail__delete_folder", 422, name="drafts")


# -- forwarding ---------------------------------------------------------------------------


def test_forward_message_quotes_the_original_in_a_new_thread(env: Environment, ok) -> None:
    original = next(m for m in messages(env, status="received", folder="inbox")
                    if m["cc"] and not m["is_read"] and not m["subject"].startswith("Re:"))
    to, copy = env.pool.people[3].email, env.pool.people[4].email
    forward = ok(env, "mail__forward_message", message_id=original["id"], to=[to.upper(), to],
                 cc=[copy, to], note=" FYI, see below. ")
    assert forward["status"] == "sent" and forward["folder"] == "sent"
    assert forward["to"] == [to] and forward["cc"] == [copy]  # no one gets it twice
    assert forward["subject"] == f"Fwd: {original['subject']}"
    assert forward["sender"] == me(ok, env)["email"]
    assert forward["thread_id"] == forward["id"] != original["thread_id"]
    assert forward["sent_at"] == f"{env.pool.today.isoformat()}T09:00:00"
    body = forward["body"]
    assert body.startswith("FYI, see below.\n\n---------- Forwarded message ----------\n")
    assert f"From: {original['sender_name']} <{original['sender']}>" in body
    assert f"Date: {original['sent_at']}" in body and f"Subject: {original['subject']}" in body
    assert f"Cc: {', '.join(original['cc'])}" in body
    quoted = [line for line in body.splitlines() if line.startswith(">")]
    assert [line.removeprefix(">").strip() for line in quoted] == [
        line.strip() for line in original["body"].splitlines()]
    assert ok(env, "mail__get_message", message_id=forward["id"]) == forward
    newest = ok(env, "mail__list_messages", folder="sent", limit=1)["items"][0]
    assert newest["id"] == forward["id"]
    found = ok(env, "mail__list_messages", query=to, folder="sent", limit=100)["items"]
    assert forward["id"] in {m["id"] for m in found}
    assert ok(env, "mail__get_message", message_id=original["id"])["is_read"] is True


def test_forward_adds_the_prefix_once(env: Environment, ok) -> None:
    to = [env.pool.people[3].email]
    reply = next(m for m in messages(env, status="received") if m["subject"].startswith("Re: "))
    first = ok(env, "mail__forward_message", message_id=reply["id"], to=to)
    assert first["subject"] == f"Fwd: {reply['subject']}"
    assert first["body"].startswith("---------- Forwarded message ----------\n")  # no note
    again = ok(env, "mail__forward_message", message_id=first["id"], to=to, note="Again")
    assert again["subject"] == first["subject"]  # no "Fwd: Fwd:"
    mine = next(m for m in messages(env, status="sent"))  # my own sent mail can be forwarded
    assert ok(env, "mail__forward_message", message_id=mine["id"], to=to)["status"] == "sent"


def test_forward_message_rules(env: Environment, refused) -> None:
    message = messages(env, folder="inbox")[0]
    to = [env.pool.people[3].email]
    assert "recipient" in refused(env, "mail__forward_message", 422, message_id=message["id"], to=[])
    crowd = [f"person{i}@example.com" for i in range(51)]
    refused(env, "mail__forward_message", 422, message_id=message["id"], to=crowd)
    draft = messages(env, status="draft")[0]
    assert "draft" in refused(env, "mail__forward_message", 422, message_id=draft["id"], to=to)
    refused(env, "mail__forward_message", 404, message_id="ms_nope", to=to)
    refused(env, "mail__forward_message", 400, message_id=message["id"], to=["not-an-email"])
    refused(env, "mail__forward_message", 400, message_id=message["id"])  # "to" is required
