"""A worked example of information flowing across services, told through real tool calls.

"Chase the most overdue invoice": payments gives the customer, contacts confirms the phone,
the CRM gives the account and its open deals, the calendar finds a free slot, mail sends the
reminder. Every step's arguments come from an earlier step's output — the shape of task the
task generator will produce at scale.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from compoworld.service import Envelope, Environment

STORY_SERVICES = ("payments", "contacts", "crm", "calendar", "mail")


class StoryError(RuntimeError):
    """A step of the story did not go as scripted (a catalog change broke it)."""


def _data(envelope: Envelope) -> Any:
    if not envelope["success"]:
        raise StoryError(envelope["error"]["message"])
    return envelope["data"]


def chase_overdue_invoice(env: Environment) -> list[tuple[str, dict[str, Any], Any]]:
    """Run the story on ``env`` (which mounts :data:`STORY_SERVICES`); returns its steps."""
    steps: list[tuple[str, dict[str, Any], Any]] = []

    def call(name: str, args: dict[str, Any]) -> Any:
        data = _data(env.call(name, args))
        steps.append((name, args, data))
        return data

    overdue = call("payments__list_invoices", {"overdue": True, "limit": 20})["items"]
    for invoice in sorted(overdue, key=lambda i: (i["due_date"], i["id"])):
        customer = _data(env.call("payments__get_customer", {"customer_id": invoice["customer_id"]}))
        crm = _data(env.call("crm__list_contacts", {"query": customer["email"]}))["items"]
        if crm:
            break
    else:
        raise StoryError("no overdue invoice belongs to a CRM contact")
    steps.append(("payments__get_customer", {"customer_id": invoice["customer_id"]}, customer))
    person = call("contacts__find_contact_by_email", {"email": customer["email"]})
    contact = call("crm__list_contacts", {"query": customer["email"]})["items"][0]
    account = call("crm__get_account", {"account_id": contact["account_id"]})
    tomorrow = (env.today + timedelta(days=1)).isoformat()
    slot = call("calendar__find_free_slot", {"date": tomorrow, "duration_minutes": 30,
                                             "attendees": [customer["email"]]})["slots"][0]
    call("calendar__create_event", {
        "title": f"Invoice {invoice['number']} with {person['name']}", "start": slot["start"],
        "end": slot["end"], "attendees": [customer["email"]]})
    call("mail__send_message", {
        "to": [customer["email"]],
        "subject": f"Invoice {invoice['number']} is overdue",
        "body": (f"Dear {person['first_name']},\n\ninvoice {invoice['number']} of "
                 f"{invoice['amount']:.2f} {invoice['currency']} was due on {invoice['due_date']}. "
                 f"I booked {slot['start']} to talk it through ({account['name']}).\n"),
    })
    return steps
