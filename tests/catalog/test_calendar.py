"""The calendar service: seeding, reads with filters and paging, and every write's rules."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import Any

from compoworld.catalog import load_service
from compoworld.service import Environment, check_service

SERVICE = "calendar"  # the conftest's world and env fixtures serve it


def rows(env: Environment, entity: str, **where: Any) -> list[dict[str, Any]]:
    return env.db("calendar").select(entity, where)


def at(env: Environment, days: int, clock: str) -> str:
    """An ISO date-time ``days`` from the world's today; +40 days is beyond every seeded event."""
    return f"{env.pool.day(days).isoformat()}T{clock}:00"


def calendars(ok: Callable[..., Any], env: Environment) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in ok(env, "calendar__list_calendars")}


def rooms(ok: Callable[..., Any], env: Environment) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in ok(env, "calendar__list_rooms")}


def user(env: Environment) -> str:
    return env.pool.user.email


def new_event(ok: Callable[..., Any], env: Environment, **args: Any) -> dict[str, Any]:
    return ok(env, "calendar__create_event", **{"title": "Planning", "start": at(env, 40, "10:00"),
                                                "end": at(env, 40, "11:00"), **args})


def upcoming(env: Environment, **where: Any) -> list[dict[str, Any]]:
    today = env.pool.today.isoformat()
    return [e for e in rows(env, "event", **where)
            if e["start"] >= today and e["status"] != "cancelled"]


# -- seeding ------------------------------------------------------------------------------


def test_service_passes_the_conformance_check() -> None:
    report = check_service(load_service("calendar"))
    assert report.ok, str(report)


def test_seeding_is_realistic_and_deterministic(world: Environment) -> None:
    tables = world.rows()
    assert 250 <= sum(len(r) for r in tables.values()) <= 400
    assert len(tables["calendar__event"]) > 60
    assert Environment([load_service("calendar")], seed=0).digest() == world.digest()
    assert Environment([load_service("calendar")], seed=1).digest() != world.digest()


def test_people_come_from_the_pool(env: Environment, ok) -> None:
    people = {p.email: p for p in env.pool.people}
    primary = ok(env, "calendar__list_calendars")[0]
    assert primary["is_primary"] and primary["owner_email"] == env.pool.user.email
    assert primary["owner_name"] == env.pool.user.name
    for calendar in ok(env, "calendar__list_calendars"):
        assert people[calendar["owner_email"]].timezone == calendar["timezone"]
    for event in rows(env, "event"):
        assert people[event["organizer"]].name == event["organizer_name"]
    for attendee in rows(env, "attendee"):
        assert people[attendee["email"]].name == attendee["name"]


def test_seeded_events_span_past_and_future_without_double_booking(env: Environment) -> None:
    events = rows(env, "event")
    today = env.pool.today.isoformat()
    assert any(e["start"] < today for e in events) and any(e["start"] > today for e in events)
    assert all(e["end"] > e["start"] for e in events)
    by_calendar: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        by_calendar.setdefault(event["calendar_id"], []).append(event)
    for event in [e for e in events if e["room_id"]]:
        by_calendar.setdefault(event["room_id"], []).append(event)
    for group in by_calendar.values():
        group.sort(key=lambda e: e["start"])
        assert all(a["end"] <= b["start"] for a, b in pairwise(group))


# -- reads --------------------------------------------------------------------------------


def test_list_events_pages_in_time_order(env: Environment, ok, refused) -> None:
    first = ok(env, "calendar__list_events", limit=7)
    second = ok(env, "calendar__list_events", limit=7, offset=7)
    both = ok(env, "calendar__list_events", limit=14)
    live = [e for e in rows(env, "event") if e["status"] != "cancelled"]
    assert first["total"] == second["total"] == len(live)
    assert [e["id"] for e in first["items"] + second["items"]] == [e["id"] for e in both["items"]]
    starts = [e["start"] for e in both["items"]]
    assert starts == sorted(starts)
    assert "limit must be between 1 and 100" in refused(env, "calendar__list_events", 400, limit=0)
    refused(env, "calendar__list_events", 400, limit=500)


def test_list_events_filters(env: Environment, ok, refused) -> None:
    day = env.pool.day(1).isoformat()
    on_day = ok(env, "calendar__list_events", start_date=day, end_date=day, limit=100)["items"]
    assert on_day and all(e["start"].startswith(day) for e in on_day)

    work = calendars(ok, env)["Work"]["id"]
    mine = ok(env, "calendar__list_events", calendar_id=work, limit=100)
    assert mine["items"] and all(e["calendar_id"] == work for e in mine["items"])

    found = ok(env, "calendar__list_events", query="SYNC", limit=100)["items"]
    assert found and all("sync" in e["title"].lower() for e in found)

    cancelled = [e for e in rows(env, "event") if e["status"] == "cancelled"]
    assert cancelled
    everything = ok(env, "calendar__list_events", include_cancelled=True, limit=100)
    assert everything["total"] == len(rows(env, "event"))
    default = ok(env, "calendar__list_events", limit=100)
    assert default["total"] == everything["total"] - len(cancelled)
    refused(env, "calendar__list_events", 404, calendar_id="ca_nope")


def test_get_event_lists_attendees(env: Environment, ok, refused) -> None:
    event = rows(env, "event")[0]
    detail = ok(env, "calendar__get_event", event_id=event["id"])
    assert {k: detail[k] for k in event} == event
    assert detail["attendees"] == rows(env, "attendee", event_id=event["id"])
    refused(env, "calendar__get_event", 404, event_id="ev_nope")


def test_list_invitations_shows_unanswered_upcoming_ones(env: Environment, ok) -> None:
    pending = ok(env, "calendar__list_invitations")
    assert pending
    today = env.pool.today.isoformat()
    for event in pending:
        assert event["response"] == "needs_action" and event["start"] >= today
        answer = rows(env, "attendee", event_id=event["id"], email=user(env))
        assert answer[0]["response"] == "needs_action"
    every = ok(env, "calendar__list_invitations", response="any")
    assert len(every) > len(pending)


def test_rooms_are_listed_smallest_first(env: Environment, ok) -> None:
    capacities = [r["capacity"] for r in ok(env, "calendar__list_rooms")]
    assert capacities == sorted(capacities) and len(capacities) == 6


# -- creating -----------------------------------------------------------------------------


def test_create_event_invites_people_once(env: Environment, ok) -> None:
    guest = env.pool.people[5].email
    event = new_event(ok, env, attendees=[guest, guest.upper(), user(env)],
                      description="Agenda: budget")
    assert event["organizer"] == user(env) and event["status"] == "confirmed"
    assert event["calendar_id"] == calendars(ok, env)["Work"]["id"]
    assert [a["email"] for a in event["attendees"]] == [guest]
    assert event["attendees"][0]["response"] == "needs_action"
    assert ok(env, "calendar__get_event", event_id=event["id"]) == event
    day = env.pool.day(40).isoformat()
    listed = ok(env, "calendar__list_events", start_date=day, end_date=day)["items"]
    assert [e["id"] for e in listed] == [event["id"]]


def test_create_event_knows_names_of_people_seen_before(env: Environment, ok) -> None:
    seen = rows(env, "attendee")[0]
    event = new_event(ok, env, attendees=[seen["email"]])
    assert event["attendees"][0]["name"] == seen["name"]


def test_create_event_time_rules(env: Environment, refused) -> None:
    start = at(env, 40, "10:00")
    args = {"title": "x", "start": start}
    assert "end after it starts" in refused(env, "calendar__create_event", 422, **args,
                                            end=at(env, 40, "09:00"))
    refused(env, "calendar__create_event", 422, **args, end=start)
    refused(env, "calendar__create_event", 422, **args, end=at(env, 41, "10:00"))  # over 12 hours
    refused(env, "calendar__create_event", 422, title="x", start=at(env, -1, "10:00"),
            end=at(env, -1, "11:00"))
    refused(env, "calendar__create_event", 422, **{**args, "title": "  ", "end": at(env, 40, "11:00")})
    refused(env, "calendar__create_event", 400, **args, end="tomorrow")


def test_create_event_refuses_double_booking_the_owner(env: Environment, ok, refused) -> None:
    taken = upcoming(env, calendar_id=calendars(ok, env)["Work"]["id"])[0]
    message = refused(env, "calendar__create_event", 409, title="Clash", start=taken["start"],
                      end=taken["end"])
    assert taken["id"] in message
    # Personal and Work calendars share their owner: one blocks the other.
    personal = calendars(ok, env)["Personal"]["id"]
    new_event(ok, env, calendar_id=personal, title="Dentist")
    refused(env, "calendar__create_event", 409, title="Work", start=at(env, 40, "10:30"),
            end=at(env, 40, "11:30"))
    # Back to back is fine.
    new_event(ok, env, start=at(env, 40, "11:00"), end=at(env, 40, "11:30"))


def test_create_event_refuses_double_booking_a_room(env: Environment, ok, refused) -> None:
    room = rooms(ok, env)["Dune"]["id"]
    new_event(ok, env, room_id=room)
    colleague = calendars(ok, env)["Brett Grant (work)"]["id"]  # another owner, same room
    assert "room" in refused(env, "calendar__create_event", 409, title="Clash",
                             start=at(env, 40, "10:30"), end=at(env, 40, "11:30"),
                             calendar_id=colleague, room_id=room)
    other = new_event(ok, env, calendar_id=colleague, room_id=rooms(ok, env)["Ember"]["id"])
    assert other["location"] == "Ember" and other["organizer"] == "brett.grant0@le.com"


def test_create_event_room_must_hold_everyone(env: Environment, ok, refused) -> None:
    aurora = rooms(ok, env)["Aurora"]  # holds 4: the organizer and 3 guests
    guests = [p.email for p in env.pool.people[:4]]
    refused(env, "calendar__create_event", 422, title="Big", start=at(env, 40, "10:00"),
            end=at(env, 40, "11:00"), attendees=guests, room_id=aurora["id"])
    event = new_event(ok, env, attendees=guests[:3], room_id=aurora["id"])
    assert event["room_id"] == aurora["id"]
    refused(env, "calendar__invite_attendee", 422, event_id=event["id"], email=guests[3])


# -- changing -----------------------------------------------------------------------------


def test_reschedule_moves_the_event_and_resets_answers(env: Environment, ok) -> None:
    guest = env.pool.people[5].email
    event = new_event(ok, env, attendees=[guest])
    ok(env, "calendar__respond_to_invitation", event_id=event["id"], response="accepted", email=guest)
    moved = ok(env, "calendar__reschedule_event", event_id=event["id"], start=at(env, 41, "14:00"),
               end=at(env, 41, "14:45"))
    stored = ok(env, "calendar__get_event", event_id=event["id"])
    assert (stored["start"], stored["end"]) == (at(env, 41, "14:00"), at(env, 41, "14:45"))
    assert stored == moved
    assert [a["response"] for a in stored["attendees"]] == ["needs_action"]


def test_reschedule_rules(env: Environment, ok, refused) -> None:
    event = new_event(ok, env)
    blocker = new_event(ok, env, start=at(env, 42, "09:00"), end=at(env, 42, "10:00"))
    refused(env, "calendar__reschedule_event", 409, event_id=event["id"],
            start=at(env, 42, "09:30"), end=at(env, 42, "10:30"))
    refused(env, "calendar__reschedule_event", 422, event_id=event["id"],
            start=at(env, 42, "12:00"), end=at(env, 42, "11:00"))
    # Moving an event onto its own slot is not a clash with itself.
    ok(env, "calendar__reschedule_event", event_id=blocker["id"], start=at(env, 42, "09:15"),
       end=at(env, 42, "10:00"))
    past = next(e for e in rows(env, "event", organizer=user(env))
                if e["start"] < env.pool.today.isoformat())
    assert "already happened" in refused(env, "calendar__reschedule_event", 422, event_id=past["id"],
                                         start=at(env, 43, "09:00"), end=at(env, 43, "10:00"))


def test_cancel_event_frees_its_slot(env: Environment, ok, refused) -> None:
    event = new_event(ok, env)
    cancelled = ok(env, "calendar__cancel_event", event_id=event["id"])
    assert cancelled["status"] == "cancelled"
    assert ok(env, "calendar__get_event", event_id=event["id"])["status"] == "cancelled"
    day = env.pool.day(40).isoformat()
    assert ok(env, "calendar__list_events", start_date=day, end_date=day)["total"] == 0
    assert "cancelled" in refused(env, "calendar__cancel_event", 422, event_id=event["id"])
    new_event(ok, env, title="Replacement")  # the same slot is free again


def test_events_that_already_happened_cannot_be_cancelled(env: Environment, refused) -> None:
    today = env.pool.today.isoformat()
    past = [e for e in rows(env, "event", organizer=user(env), status="confirmed")
            if e["start"] < today]
    assert past
    assert "already happened" in refused(env, "calendar__cancel_event", 422, event_id=past[0]["id"])


def test_only_the_organizer_can_change_an_event(env: Environment, ok, refused) -> None:
    theirs = [e for e in upcoming(env, calendar_id=calendars(ok, env)["Work"]["id"])
              if e["organizer"] != user(env)]
    assert theirs
    event = theirs[0]["id"]
    assert "organizer" in refused(env, "calendar__cancel_event", 422, event_id=event)
    refused(env, "calendar__invite_attendee", 422, event_id=event, email="new.person@example.com")
    refused(env, "calendar__reschedule_event", 422, event_id=event, start=at(env, 40, "09:00"),
            end=at(env, 40, "10:00"))


def test_invite_attendee_and_its_rules(env: Environment, ok, refused) -> None:
    event = new_event(ok, env)
    added = ok(env, "calendar__invite_attendee", event_id=event["id"], email="Ana.Diaz@Example.com",
               name="Ana Diaz")
    assert added["email"] == "ana.diaz@example.com" and added["response"] == "needs_action"
    detail = ok(env, "calendar__get_event", event_id=event["id"])
    assert [(a["email"], a["name"]) for a in detail["attendees"]] == [
        ("ana.diaz@example.com", "Ana Diaz")]
    refused(env, "calendar__invite_attendee", 409, event_id=event["id"], email="ana.diaz@example.com")
    refused(env, "calendar__invite_attendee", 409, event_id=event["id"], email=user(env))
    ok(env, "calendar__cancel_event", event_id=event["id"])
    refused(env, "calendar__invite_attendee", 422, event_id=event["id"], email="bo@example.com")
    refused(env, "calendar__invite_attendee", 404, event_id="ev_nope", email="bo@example.com")


def test_respond_to_invitation(env: Environment, ok) -> None:
    pending = ok(env, "calendar__list_invitations")[0]
    answer = ok(env, "calendar__respond_to_invitation", event_id=pending["id"], response="accepted")
    assert answer["email"] == user(env) and answer["response"] == "accepted"
    assert pending["id"] not in {e["id"] for e in ok(env, "calendar__list_invitations")}
    accepted = ok(env, "calendar__list_invitations", response="accepted")
    assert pending["id"] in {e["id"] for e in accepted}


def test_only_invited_people_can_respond(env: Environment, ok, refused) -> None:
    event = new_event(ok, env, attendees=["guest@example.com"])
    assert "not invited" in refused(env, "calendar__respond_to_invitation", 422, event_id=event["id"],
                                    response="accepted", email="stranger@example.com")
    # The organizer is not an attendee of their own event.
    refused(env, "calendar__respond_to_invitation", 422, event_id=event["id"], response="declined")
    ok(env, "calendar__respond_to_invitation", event_id=event["id"], response="tentative",
       email="GUEST@example.com")
    past = next(a for a in rows(env, "attendee", email=user(env))
                if ok(env, "calendar__get_event", event_id=a["event_id"])["start"]
                < env.pool.today.isoformat())
    refused(env, "calendar__respond_to_invitation", 422, event_id=past["event_id"], response="declined")


def test_book_room(env: Environment, ok, refused) -> None:
    event = new_event(ok, env, attendees=["a@example.com", "b@example.com"])
    birch = rooms(ok, env)["Birch"]["id"]
    booked = ok(env, "calendar__book_room", event_id=event["id"], room_id=birch)
    assert booked["room_id"] == birch and booked["location"] == "Birch"
    assert ok(env, "calendar__get_event", event_id=event["id"])["room_id"] == birch
    refused(env, "calendar__book_room", 409, event_id=event["id"], room_id=birch)

    colleague = calendars(ok, env)["Isaac Hoover (work)"]["id"]
    other = new_event(ok, env, calendar_id=colleague, attendees=[f"p{i}@example.com" for i in range(4)])
    assert "room" in refused(env, "calendar__book_room", 409, event_id=other["id"], room_id=birch)
    aurora = rooms(ok, env)["Aurora"]["id"]
    refused(env, "calendar__book_room", 422, event_id=other["id"], room_id=aurora)  # 5 people
    refused(env, "calendar__book_room", 404, event_id=other["id"], room_id="ro_nope")


# -- free time ----------------------------------------------------------------------------


def test_find_free_slot_avoids_everyone_busy(env: Environment, ok) -> None:
    day = env.pool.day(1).isoformat()
    colleague = calendars(ok, env)["Brett Grant (work)"]["owner_email"]
    found = ok(env, "calendar__find_free_slot", date=day, duration_minutes=45, attendees=[colleague])
    assert found["date"] == day and 1 <= len(found["slots"]) <= 5
    invited = {a["event_id"] for a in rows(env, "attendee") if a["response"] != "declined"
               and a["email"] in (user(env), colleague)}
    busy = [e for e in rows(env, "event") if e["status"] != "cancelled"
            and e["start"].startswith(day)
            and (e["organizer"] in (user(env), colleague) or e["id"] in invited)]
    assert busy
    for slot in found["slots"]:
        assert f"{day}T09:00:00" <= slot["start"] and slot["end"] <= f"{day}T18:00:00"
        assert all(not (e["start"] < slot["end"] and e["end"] > slot["start"]) for e in busy)


def test_find_free_slot_sees_new_events_and_refuses_bad_input(env: Environment, ok, refused) -> None:
    day = env.pool.day(40).isoformat()
    first = ok(env, "calendar__find_free_slot", date=day, duration_minutes=60)["slots"][0]
    assert first == {"start": f"{day}T09:00:00", "end": f"{day}T10:00:00"}
    new_event(ok, env, start=first["start"], end=first["end"])
    slots = ok(env, "calendar__find_free_slot", date=day, duration_minutes=60)["slots"]
    assert slots[0]["start"] == f"{day}T10:00:00"
    refused(env, "calendar__find_free_slot", 422, date=env.pool.day(-1).isoformat(), duration_minutes=30)
    refused(env, "calendar__find_free_slot", 422, date=day, duration_minutes=600)
    refused(env, "calendar__find_free_slot", 404, date=day, duration_minutes=30, room_id="ro_x")


def test_find_free_slot_counts_invitations_and_rooms(env: Environment, ok) -> None:
    day = env.pool.day(40).isoformat()
    teammate = calendars(ok, env)["Jonathan Miller (work)"]["id"]
    invite = new_event(ok, env, calendar_id=teammate, attendees=[user(env)])  # 10:00-11:00
    starts = [s["start"][11:16] for s in
              ok(env, "calendar__find_free_slot", date=day, duration_minutes=60)["slots"]]
    assert starts == ["09:00", "11:00", "11:30", "12:00", "12:30"]
    ok(env, "calendar__respond_to_invitation", event_id=invite["id"], response="declined")
    starts = [s["start"][11:16] for s in
              ok(env, "calendar__find_free_slot", date=day, duration_minutes=60)["slots"]]
    assert starts[:3] == ["09:00", "09:30", "10:00"]  # a declined invitation does not block

    birch = rooms(ok, env)["Birch"]["id"]
    other = calendars(ok, env)["Isaac Hoover (work)"]["id"]
    new_event(ok, env, calendar_id=other, room_id=birch, start=at(env, 40, "09:00"),
              end=at(env, 40, "12:00"))
    with_room = ok(env, "calendar__find_free_slot", date=day, duration_minutes=60, room_id=birch)["slots"]
    assert with_room[0]["start"] == f"{day}T12:00:00"


# -- editing details and guest lists ------------------------------------------------------


def test_update_event_changes_only_the_given_fields(env: Environment, ok) -> None:
    guest = env.pool.people[5].email
    event = new_event(ok, env, attendees=[guest], description="Agenda: budget",
                      location="Video call")
    ok(env, "calendar__respond_to_invitation", event_id=event["id"], response="accepted", email=guest)
    updated = ok(env, "calendar__update_event", event_id=event["id"], title=" Budget planning ",
                 location="Room 4.02")
    stored = ok(env, "calendar__get_event", event_id=event["id"])
    assert updated == stored
    assert stored["title"] == "Budget planning" and stored["location"] == "Room 4.02"
    assert stored["description"] == "Agenda: budget"  # left out: unchanged
    assert (stored["start"], stored["end"]) == (event["start"], event["end"])
    assert [a["response"] for a in stored["attendees"]] == ["accepted"]  # answers stay
    found = ok(env, "calendar__list_events", query="budget planning", limit=100)["items"]
    assert [e["id"] for e in found] == [event["id"]]

    cleared = ok(env, "calendar__update_event", event_id=event["id"], description="", location="  ")
    assert cleared["description"] == "" and cleared["location"] is None
    assert cleared["title"] == "Budget planning"
    assert ok(env, "calendar__get_event", event_id=event["id"]) == cleared


def test_update_event_rules(env: Environment, ok, refused) -> None:
    event = new_event(ok, env)
    assert "title" in refused(env, "calendar__update_event", 422, event_id=event["id"], title="  ")
    refused(env, "calendar__update_event", 404, event_id="ev_nope", title="x")
    theirs = next(e for e in upcoming(env, calendar_id=calendars(ok, env)["Work"]["id"])
                  if e["organizer"] != user(env))
    assert "organizer" in refused(env, "calendar__update_event", 422, event_id=theirs["id"], title="Mine now")
    past = next(e for e in rows(env, "event", organizer=user(env), status="confirmed")
                if e["start"] < env.pool.today.isoformat())
    assert "already happened" in refused(env, "calendar__update_event", 422, event_id=past["id"],
                                         location="Moon")
    ok(env, "calendar__cancel_event", event_id=event["id"])
    assert "cancelled" in refused(env, "calendar__update_event", 422, event_id=event["id"], title="Revived")


def test_remove_attendee_takes_them_off_the_guest_list(env: Environment, ok) -> None:
    stay, leave = env.pool.people[5].email, env.pool.people[6].email
    event = new_event(ok, env, attendees=[stay, leave])
    result = ok(env, "calendar__remove_attendee", event_id=event["id"], email=leave.upper())
    stored = ok(env, "calendar__get_event", event_id=event["id"])
    assert result == stored
    assert [a["email"] for a in stored["attendees"]] == [stay]
    assert not rows(env, "attendee", event_id=event["id"], email=leave)
    invited = ok(env, "calendar__list_invitations", email=leave, response="any")
    assert event["id"] not in {e["id"] for e in invited}
    # Removed, they can be invited again.
    ok(env, "calendar__invite_attendee", event_id=event["id"], email=leave)


def test_remove_attendee_frees_a_seat_in_the_room(env: Environment, ok, refused) -> None:
    guests = [p.email for p in env.pool.people[:4]]
    event = new_event(ok, env, attendees=guests[:3], room_id=rooms(ok, env)["Aurora"]["id"])  # holds 4
    refused(env, "calendar__invite_attendee", 422, event_id=event["id"], email=guests[3])
    ok(env, "calendar__remove_attendee", event_id=event["id"], email=guests[0])
    ok(env, "calendar__invite_attendee", event_id=event["id"], email=guests[3])


def test_remove_attendee_rules(env: Environment, ok, refused) -> None:
    event = new_event(ok, env, attendees=["guest@example.com"])
    assert "not invited" in refused(env, "calendar__remove_attendee", 404, event_id=event["id"],
                                    email="stranger@example.com")
    assert "organizes" in refused(env, "calendar__remove_attendee", 422, event_id=event["id"],
                                  email=user(env))
    refused(env, "calendar__remove_attendee", 404, event_id="ev_nope", email="guest@example.com")
    refused(env, "calendar__remove_attendee", 400, event_id=event["id"], email="nope")

    theirs = next(e for e in upcoming(env, calendar_id=calendars(ok, env)["Work"]["id"])
                  if e["organizer"] != user(env) and rows(env, "attendee", event_id=e["id"]))
    guest = rows(env, "attendee", event_id=theirs["id"])[0]["email"]
    assert "organizer" in refused(env, "calendar__remove_attendee", 422, event_id=theirs["id"], email=guest)
    today = env.pool.today.isoformat()
    past = next(e for e in rows(env, "event", organizer=user(env), status="confirmed")
                if e["start"] < today and rows(env, "attendee", event_id=e["id"]))
    guest = rows(env, "attendee", event_id=past["id"])[0]["email"]
    assert "already happened" in refused(env, "calendar__remove_attendee", 422, event_id=past["id"],
                                         email=guest)
    ok(env, "calendar__cancel_event", event_id=event["id"])
    assert "cancelled" in refused(env, "calendar__remove_attendee", 422, event_id=event["id"],
                                  email="guest@example.com")
