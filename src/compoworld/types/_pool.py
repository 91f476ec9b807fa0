"""One shared, seeded population of people and companies that every service seeds from.

The pool is what makes composition work: the same person has the same name, email and phone
in the CRM, the mail service and the calendar, so information found in one service is the key
to another.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import lru_cache
from typing import Literal

from faker import Faker

from compoworld.types._builtin import INDUSTRIES

DEFAULT_TODAY = date(2026, 3, 2)
PersonRole = Literal["user", "colleague", "outside"]
"""Who a person of the pool is to the user: the user themself, a colleague (someone at the
user's company), or someone outside it (a customer, a lead, a vendor, an applicant...)."""
WORKDAY_START = time(9, 0)


@dataclass(frozen=True)
class Company:
    """A company of the shared pool."""

    name: str
    domain: str
    industry: str
    email: str
    phone: str
    address: str
    city: str
    region: str
    postal_code: str
    country: str
    url: str


@dataclass(frozen=True)
class Person:
    """A person of the shared pool; ``company`` is one of the pool's companies."""

    first_name: str
    last_name: str
    name: str
    email: str
    phone: str
    username: str
    job_title: str
    company: Company
    address: str
    city: str
    region: str
    postal_code: str
    country: str
    timezone: str
    birthday: date


# What the user does: they work across the mailbox, calendar and business systems (sales,
# support, billing, hiring, projects), so their job is one that spans them, not Faker's any
# job ("surgeon", "economist": odd voices for tidying a sales pipeline).
USER_JOBS = ("operations manager", "office manager", "business operations lead",
             "chief of staff", "operations coordinator", "general manager",
             "executive assistant", "team lead", "managing director", "business manager")

# Semantic types a person (or their company) determines: records about one person agree.
_PERSON_FACTS = {
    "PersonName": lambda p: p.name, "FirstName": lambda p: p.first_name,
    "LastName": lambda p: p.last_name, "Email": lambda p: p.email, "Phone": lambda p: p.phone,
    "Username": lambda p: p.username, "JobTitle": lambda p: p.job_title,
    "CompanyName": lambda p: p.company.name, "Domain": lambda p: p.company.domain,
    "Industry": lambda p: p.company.industry, "URL": lambda p: p.company.url,
    "Address": lambda p: p.address, "City": lambda p: p.city, "Region": lambda p: p.region,
    "PostalCode": lambda p: p.postal_code, "Country": lambda p: p.country,
    "Timezone": lambda p: p.timezone,
}


def person_fact(person: Person, semantic_type: str) -> str | None:
    """The value of ``semantic_type`` that ``person`` determines (their email, their company's
    name...), or None when the type is not about a person."""
    fact = _PERSON_FACTS.get(semantic_type)
    return fact(person) if fact else None


def derive_seed(seed: int, *names: object) -> int:
    """A stable 63-bit seed derived from ``seed`` and names (independent of ``PYTHONHASHSEED``)."""
    text = ":".join(str(part) for part in (seed, *names))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


class Pool:
    """The seeded population a world is built from.

    Args:
        seed: World seed; the same seed gives the same people and companies, byte for byte.
        people: How many people.
        companies: How many companies (people work at them).
        today: The world's fixed "today"; seeders date records relative to it.

    Example:
        >>> pool = Pool(seed=7, people=3, companies=2)
        >>> pool.people[0].email == Pool(seed=7, people=3, companies=2).people[0].email
        True
    """

    def __init__(
        self, seed: int = 0, *, people: int = 120, companies: int = 30,
        today: date = DEFAULT_TODAY,
    ) -> None:
        self.seed = seed
        self.today = today
        self._faker = Faker("en_US")
        fake = self.faker("pool")
        built: list[Company] = []
        for _ in range(companies):
            built.append(self._company(fake, {c.domain for c in built}))
        self.companies: tuple[Company, ...] = tuple(built)
        employers = self._employers(people, companies)
        built_people = [self._person(fake, i, employers[i]) for i in range(people)]
        if built_people:  # the user (the last person): a job that spans the services
            user = built_people[-1]
            built_people[-1] = dataclasses.replace(
                user, job_title=USER_JOBS[derive_seed(seed, "user job") % len(USER_JOBS)])
        self.people: tuple[Person, ...] = tuple(built_people)
        self._by_value: dict[str, Person | None] | None = None

    @property
    def user(self) -> Person:
        """The person the agent works for: owner of the mailbox, the calendar, ...

        Services that have an owner use this person, so "my" means the same in all of them.
        """
        return self.people[-1]

    def role(self, person: Person) -> PersonRole:
        """Who ``person`` is to :attr:`user`: "user", "colleague" (same company) or "outside".

        Example:
            >>> pool = Pool(seed=7)
            >>> pool.role(pool.user), pool.role(pool.people[0])
            ('user', 'outside')
        """
        if person == self.user:
            return "user"
        return "colleague" if person.company == self.user.company else "outside"

    def person_with(self, value: object) -> Person | None:
        """The pool person whose email, phone or full name ``value`` is (case-insensitive), or
        None (also for a name two people share: it names neither)."""
        if not isinstance(value, str):
            return None
        if self._by_value is None:
            by_value: dict[str, Person | None] = {}
            for person in self.people:
                for key in (person.email.casefold(), person.phone.casefold(),
                            person.name.casefold()):
                    # A value two people share (a name) names neither of them.
                    by_value[key] = person if key not in by_value else None
            self._by_value = by_value
        return self._by_value.get(value.casefold())

    @property
    def now(self) -> datetime:
        """The world's fixed "now": 09:00 on :attr:`today` (nothing reads the real clock)."""
        return datetime.combine(self.today, WORKDAY_START)

    def faker(self, purpose: str) -> Faker:
        """The pool's Faker, reseeded for ``purpose`` (e.g. a service name).

        Each purpose gets its own stream, so a service seeds the same records whichever other
        services share the world. Use one purpose at a time: the instance is shared.
        """
        self._faker.seed_instance(derive_seed(self.seed, purpose))
        return self._faker

    def rng(self, purpose: str) -> random.Random:
        """A ``random.Random`` seeded for ``purpose``."""
        return random.Random(derive_seed(self.seed, "rng", purpose))

    def day(self, offset: int) -> date:
        """The date ``offset`` days from today (negative: in the past)."""
        return self.today + timedelta(days=offset)

    def _company(self, fake: Faker, taken: set[str]) -> Company:
        name = fake.company()
        base = _slug(name.split(",")[0].split(" and ")[0]) or "company"
        domain = f"{base}.{fake.random_element(('com', 'io', 'co', 'net'))}"
        while domain in taken:
            domain = f"{base}{fake.random_int(2, 99)}.com"
        return Company(
            name=name,
            domain=domain,
            industry=fake.random_element(INDUSTRIES),
            email=f"info@{domain}",
            phone=fake.numerify("+1-%##-%##-####"),
            address=fake.street_address(),
            city=fake.city(),
            region=fake.state(),
            postal_code=fake.postcode(),
            country="United States",
            url=f"https://www.{domain}",
        )

    def _employers(self, people: int, companies: int) -> list[int]:
        """Per person, the index of their company. Head-counts are drawn from the seed, not
        fixed: the user's company has from 1/15 to 1/6 of the pool (8 to 20 of 120 people:
        colleagues to sign a world's rules, ask and be asked, who vary from world to world),
        the others share the rest at random, each weighted by a size of its own."""
        if not people or not companies:
            return [0] * people
        rng = random.Random(derive_seed(self.seed, "head counts"))
        home = (people - 1) % companies  # the user's company
        others = [c for c in range(companies) if c != home]
        staff = min(people - 1, rng.randint(max(2, people // 15), max(2, people // 6)))
        weights = [rng.uniform(0.2, 2.0) for _ in others]
        colleagues = set(rng.sample(range(people - 1), staff))
        return [home if i == people - 1 or i in colleagues or not others
                else rng.choices(others, weights)[0] for i in range(people)]

    def _person(self, fake: Faker, index: int, employer: int) -> Person:
        first, last = fake.first_name(), fake.last_name()
        company = self.companies[employer]
        return Person(
            first_name=first,
            last_name=last,
            name=f"{first} {last}",
            # The index keeps emails unique even when two people share a name.
            email=f"{_slug(first)}.{_slug(last)}{index}@{company.domain}",
            phone=fake.numerify("+1-%##-%##-####"),
            username=f"{_slug(first)[:1]}{_slug(last)}{index}",
            job_title=fake.job(),
            company=company,
            address=fake.street_address(),
            city=fake.city(),
            region=fake.state(),
            postal_code=fake.postcode(),
            country="United States",
            timezone=fake.random_element(
                ("America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles")
            ),
            birthday=fake.date_between_dates(date(1960, 1, 1), date(2003, 12, 31)),
        )


@lru_cache(maxsize=16)
def shared_pool(seed: int, today: date = DEFAULT_TODAY) -> Pool:
    """One :class:`Pool` per (seed, today), shared: worlds of the same seed share their people
    (building a pool costs ~60 ms). A pool is not changed once built, so sharing is safe."""
    return Pool(seed, today=today)
