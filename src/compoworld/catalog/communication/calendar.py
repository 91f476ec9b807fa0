"""Calendar: calendars, events, invitations and meeting rooms, with double-booking checks."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any, Literal, get_args

from compoworld.errors import Conflict, RecordNotFound, Refused
from compoworld.service import Db, Entity, Page, Result, Service
from compoworld.types import Date, DateTime, DurationMinutes, Email, PersonName, Pool, Ref, Timezone

service = Service("calendar", domain="communication",
                  description="Calendars: events, invitations, meeting rooms, free-time search.")

Response = Literal["needs_action", "accepted", "declined", "tentative"]


@service.entity
class Calendar(Entity):
    """A calendar. The primary one belongs to the user the agent acts for."""

    id_prefix = "ca"

    name: str
    owner_email: Email
    owner_name: PersonName
    timezone: Timezone
    is_primary: bool = False


@service.entity
class Room(Entity):
    """A meeting room events can book."""

    id_prefix = "ro"
    unique_fields = ("name",)

    name: str
    capacity: int


@service.entity
class Event(Entity):
    """An event on a calendar; times are local wall-clock times."""

    id_prefix = "ev"

    calendar_id: Ref[Calendar]
    title: str
    start: DateTime
    end: DateTime
    organizer: Email
    organizer_name: PersonName | None = None
    location: str | None = None
    room_id: Ref[Room] | None = None
    description: str = ""
    status: Literal["confirmed", "tentative", "cancelled"] = "confirmed"


@service.entity
class Attendee(Entity):
    """A person invited to an event, with their answer."""

    id_prefix = "at"

    event_id: Ref[Event]
    email: Email
    name: PersonName | None = None
    response: Response = "needs_action"


class EventDetails(Event):
    """An event with its attendees and their answers (the organizer is not an attendee)."""

    attendees: list[Attendee]


class Invitation(Event):
    """An event someone is invited to, with their answer."""

    response: Response


class Slot(Result):
    """A free time span."""

    start: DateTime
    end: DateTime


class FreeSlots(Result):
    """Start times on a day when everyone is free (at most five)."""

    date: Date
    duration_minutes: DurationMinutes
    slots: list[Slot]


def _today(db: Db) -> str:
    return datetime.combine(db.today, time()).isoformat()


def _primary(db: Db) -> dict[str, Any]:
    return db.select(Calendar, {"is_primary": True}, limit=1)[0]


def _with_attendees(db: Db, event: dict[str, Any]) -> dict[str, Any]:
    return {**event, "attendees": db.select(Attendee, {"event_id": event["id"]})}


def _editable(db: Db, event: dict[str, Any]) -> None:
    """Only upcoming, not cancelled events can change, and only by their organizer."""
    if event["status"] == "cancelled":
        raise Refused(f"event {event['id']!r} is cancelled")
    if event["start"] < _today(db):
        raise Refused(f"event {event['id']!r} already happened ({event['start']})")
    if event["organizer"] != db.get(Calendar, event["calendar_id"])["owner_email"]:
        raise Refused(f"event {event['id']!r} is organized by {event['organizer']}; only the "
                      "organizer can change it (answer the invitation instead)")


def _check_room(db: Db, room_id: str | None, people: int) -> None:
    if room_id is not None and people > (room := db.get(Room, room_id))["capacity"]:
        raise Refused(f"room {room['name']!r} holds {room['capacity']} people, not {people}")


def _check_slot(db: Db, calendar: dict[str, Any], start: str, end: str, room_id: str | None,
                exclude: str | None = None) -> tuple[str, str]:
    """Validated (start, end); refuses past or inverted times and double bookings."""
    first, last = (datetime.fromisoformat(t).replace(tzinfo=None, second=0, microsecond=0)
                   for t in (start, end))  # local wall-clock time: a UTC offset is dropped
    if last <= first:
        raise Refused("an event must end after it starts")
    if last - first > timedelta(hours=12):
        raise Refused("an event lasts at most 12 hours")
    if first.isoformat() < _today(db):
        raise Refused(f"cannot schedule an event in the past (today is {db.today})")
    span = {"status__ne": "cancelled", "start__lt": last.isoformat(),
            "end__gt": first.isoformat(), "id__ne": exclude}
    own = [c["id"] for c in db.select(Calendar, {"owner_email": calendar["owner_email"]})]
    if clash := db.find(Event, calendar_id__in=own, **span):
        raise Conflict(f"{calendar['owner_name']} is busy then: {clash['title']!r} "
                       f"from {clash['start']} to {clash['end']} (id {clash['id']})")
    if room_id is not None and (clash := db.find(Event, room_id=room_id, **span)):
        raise Conflict(f"the room is booked then by {clash['title']!r} (id {clash['id']})")
    return first.isoformat(), last.isoformat()


@service.read(returns=list[Calendar])
def list_calendars(db: Db) -> list[dict[str, Any]]:
    """List the calendars: the user's own (the primary one first) and colleagues' shared ones."""
    return db.select(Calendar, order_by="is_primary", descending=True)


@service.read(returns=list[Room])
def list_rooms(db: Db) -> list[dict[str, Any]]:
    """List the meeting rooms with their capacity, smallest first."""
    return db.select(Room, order_by="capacity")


@service.read(returns=Page[Event])
def list_events(db: Db, calendar_id: Ref[Calendar] | None = None, start_date: Date | None = None,
                end_date: Date | None = None, query: str | None = None,
                include_cancelled: bool = False, limit: int = 20, offset: int = 0) -> dict[str, Any]:
    """List or search events in time order, as {"items", "total", "next_offset"}: one page,
    the number that match and the offset of the next page (null on the last page).

    Args:
        calendar_id: Only events of this calendar (default: every calendar).
        start_date: Only events starting on or after this date.
        end_date: Only events starting on or before this date.
        query: Text the title, description, location or organizer contains (case-insensitive).
        include_cancelled: Also list cancelled events.
        limit: Maximum number of events to return (1-100).
        offset: Number of events to skip, for paging.
    """
    if calendar_id is not None:
        db.get(Calendar, calendar_id)
    filters = {"calendar_id": calendar_id, "start__gte": start_date and f"{start_date}T00:00:00",
               "start__lte": end_date and f"{end_date}T23:59:59",
               "title|description|location|organizer__contains": (query or "").strip() or None,
               "status__ne": None if include_cancelled else "cancelled"}
    where = {k: v for k, v in filters.items() if v is not None}
    return db.page(Event, where, order_by="start", limit=limit, offset=offset)


@service.read(returns=EventDetails)
def get_event(db: Db, event_id: Ref[Event]) -> dict[str, Any]:
    """Get an event with its attendees and their answers.

    Args:
        event_id: The event's id.
    """
    return _with_attendees(db, db.get(Event, event_id))


@service.read(returns=list[Invitation])
def list_invitations(db: Db, email: Email | None = None,
                     response: Literal["needs_action", "accepted", "declined", "tentative",
                                       "any"] = "needs_action") -> list[dict[str, Any]]:
    """List upcoming events someone is invited to, with their answer, in time order.

    Args:
        email: Whose invitations (default: the user, owner of the primary calendar).
        response: Only this answer (default "needs_action": not answered yet), or "any".
    """
    email = (email or _primary(db)["owner_email"]).strip().lower()
    where = {"email": email} if response == "any" else {"email": email, "response": response}
    answers = {a["event_id"]: a["response"] for a in db.select(Attendee, where)}
    events = db.select(Event, {"id__in": list(answers), "start__gte": _today(db),
                               "status__ne": "cancelled"}, order_by="start")
    return [{**e, "response": answers[e["id"]]} for e in events]


@service.read(returns=FreeSlots)
def find_free_slot(db: Db, date: Date, duration_minutes: DurationMinutes,
                   attendees: list[Email] | None = None,
                   room_id: Ref[Room] | None = None) -> dict[str, Any]:
    """Find start times on a day (09:00-18:00, every 30 minutes) when the user and others are free.

    Args:
        date: The day to look at.
        duration_minutes: How long the meeting lasts (5-540 minutes).
        attendees: Email addresses of the other people who must be free.
        room_id: A room that must be free too.
    """
    if room_id is not None:
        db.get(Room, room_id)
    day = datetime.fromisoformat(date).date()
    if day < db.today:
        raise Refused(f"{day} is in the past (today is {db.today})")
    if not 5 <= duration_minutes <= 540:
        raise Refused("duration_minutes must be between 5 and 540")
    people = list(dict.fromkeys([_primary(db)["owner_email"], *(e.lower() for e in attendees or [])]))
    marks = ", ".join("?" * len(people))  # busy: their calendars, invitations, room bookings
    busy = db.sql(
        "SELECT start, \"end\" FROM {event} WHERE status != 'cancelled' AND (room_id = ? OR "
        f"organizer IN ({marks}) OR calendar_id IN (SELECT id FROM {{calendar}} WHERE owner_email "
        f"IN ({marks})) OR id IN (SELECT event_id FROM {{attendee}} WHERE response != 'declined' "
        f"AND email IN ({marks})))", [room_id, *people * 3])
    length, opening = timedelta(minutes=duration_minutes), datetime.combine(day, time(9))
    starts = [opening + timedelta(minutes=30 * i) for i in range(18)]
    slots = [{"start": s.isoformat(), "end": (s + length).isoformat()} for s in starts
             if s + length <= opening + timedelta(hours=9)]
    slots = [s for s in slots if not any(e["start"] < s["end"] and e["end"] > s["start"]
                                         for e in busy)][:5]
    return {"date": day.isoformat(), "duration_minutes": duration_minutes, "slots": slots}


@service.write(returns=EventDetails)
def create_event(db: Db, title: str, start: DateTime, end: DateTime,
                 calendar_id: Ref[Calendar] | None = None, attendees: list[Email] | None = None,
                 room_id: Ref[Room] | None = None, location: str | None = None,
                 description: str = "") -> dict[str, Any]:
    """Schedule an event and invite people. Its owner and its room must be free at that time.

    Args:
        title: What the event is, e.g. "Budget review".
        start: When it starts, local time, e.g. "2026-03-05T14:00".
        end: When it ends (after the start, at most 12 hours later).
        calendar_id: The calendar to put it on (default: the user's primary calendar).
        attendees: Email addresses of the people to invite.
        room_id: A meeting room to book (must hold everyone, organizer included).
        location: Where it takes place (default: the room's name, if one is booked).
        description: Agenda or notes.
    """
    calendar = db.get(Calendar, calendar_id) if calendar_id else _primary(db)
    room = db.get(Room, room_id) if room_id else None
    if not title.strip():
        raise Refused("title must not be empty")
    guests = list(dict.fromkeys(e.strip().lower() for e in attendees or []
                                if e.strip().lower() != calendar["owner_email"]))
    first, last = _check_slot(db, calendar, start, end, room_id)
    _check_room(db, room_id, len(guests) + 1)
    event = db.insert(Event, calendar_id=calendar["id"], title=title.strip(), start=first,
                      end=last, organizer=calendar["owner_email"],
                      organizer_name=calendar["owner_name"], room_id=room_id,
                      location=location or (room and room["name"]), description=description)
    for email in guests:
        known = db.find(Attendee, email=email, name__isnull=False)
        db.insert(Attendee, event_id=event["id"], email=email, name=known and known["name"])
    return _with_attendees(db, event)


@service.write(returns=Event)
def book_room(db: Db, event_id: Ref[Event], room_id: Ref[Room]) -> dict[str, Any]:
    """Book a meeting room for an upcoming event; it must be free then and hold everyone.

    Args:
        event_id: The event's id.
        room_id: The room's id.
    """
    event, room = db.get(Event, event_id), db.get(Room, room_id)
    _editable(db, event)
    if event["room_id"] == room_id:
        raise Conflict(f"event {event_id!r} already has room {room['name']!r}")
    _check_slot(db, db.get(Calendar, event["calendar_id"]), event["start"], event["end"],
                room_id, exclude=event_id)
    _check_room(db, room_id, db.count(Attendee, {"event_id": event_id}) + 1)
    return db.update(Event, event_id, room_id=room_id, location=room["name"])


@service.write(returns=EventDetails)
def reschedule_event(db: Db, event_id: Ref[Event], start: DateTime,
                     end: DateTime) -> dict[str, Any]:
    """Move an upcoming event to a new time; every attendee's answer is reset to needs_action.

    Args:
        event_id: The event's id.
        start: New start, local time, e.g. "2026-03-05T14:00".
        end: New end (after the start, at most 12 hours later).
    """
    _editable(db, event := db.get(Event, event_id))
    calendar = db.get(Calendar, event["calendar_id"])
    first, last = _check_slot(db, calendar, start, end, event["room_id"], exclude=event_id)
    for attendee in db.select(Attendee, {"event_id": event_id}):
        db.update(Attendee, attendee["id"], response="needs_action")
    return _with_attendees(db, db.update(Event, event_id, start=first, end=last))


@service.write(returns=Event)
def cancel_event(db: Db, event_id: Ref[Event]) -> dict[str, Any]:
    """Cancel an upcoming event you organize; events that already happened cannot be cancelled.

    Args:
        event_id: The event's id.
    """
    _editable(db, db.get(Event, event_id))
    return db.update(Event, event_id, status="cancelled")


@service.write(returns=Attendee)
def invite_attendee(db: Db, event_id: Ref[Event], email: Email,
                    name: PersonName | None = None) -> dict[str, Any]:
    """Invite one more person to an upcoming event (the booked room must still hold everyone).

    Args:
        event_id: The event's id.
        email: The person's email address.
        name: The person's full name.
    """
    _editable(db, event := db.get(Event, event_id))
    email = email.strip().lower()
    if email == event["organizer"] or db.find(Attendee, event_id=event_id, email=email):
        raise Conflict(f"{email} is already on event {event_id!r}")
    _check_room(db, event["room_id"], db.count(Attendee, {"event_id": event_id}) + 2)
    return db.insert(Attendee, event_id=event_id, email=email, name=name)


@service.write(returns=EventDetails)
def update_event(db: Db, event_id: Ref[Event], title: str | None = None,
                 description: str | None = None, location: str | None = None) -> dict[str, Any]:
    """Change an upcoming event's title, description or location; fields left out stay.

    Only the organizer can change an event; use reschedule_event to change its time.

    Args:
        event_id: The event's id.
        title: New title (not empty).
        description: New agenda or notes (replaces the old text).
        location: New place, e.g. "Video call"; an empty text clears it.
    """
    _editable(db, db.get(Event, event_id))
    if title is not None and not title.strip():
        raise Refused("title must not be empty")
    given = {"title": title and title.strip(), "description": description}
    changes: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    if location is not None:
        changes["location"] = location.strip() or None
    return _with_attendees(db, db.update(Event, event_id, **changes))


@service.write(returns=EventDetails)
def remove_attendee(db: Db, event_id: Ref[Event], email: Email) -> dict[str, Any]:
    """Take a person off the guest list of an upcoming event you organize.

    The organizer cannot be removed (cancel the event instead).

    Args:
        event_id: The event's id.
        email: The attendee's email address.
    """
    _editable(db, event := db.get(Event, event_id))
    email = email.strip().lower()
    if email == event["organizer"]:
        raise Refused(f"{email} organizes event {event_id!r} and cannot be removed; "
                      "cancel the event instead")
    if (attendee := db.find(Attendee, event_id=event_id, email=email)) is None:
        raise RecordNotFound(f"{email} is not invited to event {event_id!r}")
    db.delete(Attendee, attendee["id"])
    return _with_attendees(db, event)


@service.write(returns=Attendee)
def respond_to_invitation(db: Db, event_id: Ref[Event],
                          response: Literal["accepted", "declined", "tentative"],
                          email: Email | None = None) -> dict[str, Any]:
    """Answer an invitation to an upcoming event. Only invited attendees can answer.

    Args:
        event_id: The event's id.
        response: The answer.
        email: Who answers (default: the user, owner of the primary calendar).
    """
    event = db.get(Event, event_id)
    email = (email or _primary(db)["owner_email"]).strip().lower()
    if (attendee := db.find(Attendee, event_id=event_id, email=email)) is None:
        raise Refused(f"{email} is not invited to event {event_id!r}, so cannot answer")
    if event["status"] == "cancelled" or event["start"] < _today(db):
        raise Refused(f"event {event_id!r} is cancelled or already happened")
    return db.update(Attendee, attendee["id"], response=response)


_ROOMS = {"Aurora": 4, "Birch": 6, "Cobalt": 8, "Dune": 10, "Ember": 12, "Fjord": 20}
_PROJECTS = ("Apollo", "Borealis", "Cedar", "Delta", "Everest", "Falcon")
_WORK = ("1:1 with {first}", "{project} sync", "{project} design review", "Budget review",
         "Call: {company}", "Demo for {company}", "Interview: {job}", "Lunch with {first}")
_PERSONAL = ("Dentist appointment", "Gym", "Dinner with {first}", "Yoga class", "Car service")


@service.seeder
def seed(db: Db, pool: Pool) -> None:
    rng, fake = pool.rng("calendar"), pool.faker("calendar")
    me, others = pool.user, pool.people[:-1]
    team = [p for p in others if p.company == me.company][:3]
    work, personal = (db.insert(Calendar, name=n, owner_email=me.email, owner_name=me.name,
                                timezone=me.timezone, is_primary=n == "Work")
                      for n in ("Work", "Personal"))
    plans = [(work, me, (1, 2, 2, 3))] + [(db.insert(
        Calendar, name=f"{p.name} (work)", owner_email=p.email, owner_name=p.name,
        timezone=p.timezone), p, (0, 1, 1, 2)) for p in team]
    rooms = [db.insert(Room, name=n, capacity=c) for n, c in _ROOMS.items()]
    booked: set[tuple[str, date, int]] = set()
    for offset in range(-13, 14):
        weekday = (day := pool.day(offset)).weekday() < 5
        evening = [rng.randint(18, 20)] if rng.random() < (0.5 - 0.4 * weekday) else []
        today = [(personal, me, evening)] + [(cal, p, rng.sample(range(9, 17), rng.choice(n)))
                                             for cal, p, n in plans if weekday]
        for calendar, owner, hours in today:
            for hour in sorted(hours):
                outside = calendar is work and rng.random() < 0.2  # an invitation to the user
                host = rng.choice([p for p in others if p not in team]) if outside else owner
                size = rng.randint(0 if calendar is personal else 1, 3)
                guests = [p for p in rng.sample(others, size) if p is not host]
                if host is not me and (calendar is work or rng.random() < 0.4):
                    guests.append(me)
                free = [r for r in rooms if (r["id"], day, hour) not in booked
                        and r["capacity"] > len(guests) and calendar is not personal]
                room = rng.choice(free) if free and rng.random() < 0.5 else None
                booked.add((room["id"] if room else "", day, hour))
                minute = rng.choice((0, 30))
                start = datetime.combine(day, time(hour, minute))
                end = start + timedelta(minutes=30 if minute else rng.choice((30, 60)))
                guest = rng.choice(guests or others)
                title = rng.choice(_PERSONAL if calendar is personal else _WORK).format(
                    first=guest.first_name, company=guest.company.name,
                    project=rng.choice(_PROJECTS), job=fake.job())
                event = db.insert(
                    Event, calendar_id=calendar["id"], title=title, start=start.isoformat(),
                    end=end.isoformat(), organizer=host.email, organizer_name=host.name,
                    room_id=room and room["id"],
                    status=rng.choices(("confirmed", "tentative", "cancelled"), (18, 1, 1))[0],
                    location=room["name"] if room else me.city if calendar is personal
                    else rng.choice(("Video call", "Phone", f"{host.company.name} office")),
                    description=fake.sentence() if rng.random() < 0.4 else "")
                for person in guests:  # answers: needs_action, accepted, declined, tentative
                    odds = (0, 8, 1, 1) if offset < 0 else (6 if person is me else 3, 4, 1, 1)
                    db.insert(Attendee, event_id=event["id"], email=person.email, name=person.name,
                              response=rng.choices(get_args(Response), odds)[0])
