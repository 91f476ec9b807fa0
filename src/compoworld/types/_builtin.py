"""The built-in shared semantic types: schema, seeded generator and normalizer for each."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Any

from faker import Faker

from compoworld.types._semantic import SemanticType, register_type

# Fixed bounds keep generators independent of the clock: same seed, same values, any day.
_EPOCH_START = date(2024, 1, 1)
_EPOCH_END = date(2027, 12, 31)

_DATE_FORMATS = ("%Y-%m-%d", "%m/%d/%Y", "%d.%m.%Y", "%B %d, %Y", "%b %d, %Y", "%d %B %Y",
                 "%d %b %Y", "%Y/%m/%d")


def _text(value: Any) -> str:
    """Case-folded text with runs of whitespace collapsed."""
    return " ".join(str(value).casefold().split())


def _code(value: Any) -> str:
    """An identifier-like code: upper case, no spaces or hyphens."""
    return re.sub(r"[\s\-]", "", str(value)).upper()


def _phone(value: Any) -> str:
    """Digits only; the last ten digits when a country code precedes them."""
    digits = re.sub(r"\D", "", str(value).split("x")[0])
    return digits[-10:] if len(digits) > 10 else digits


def _date(value: Any) -> str:
    """ISO ``YYYY-MM-DD`` from the common written forms of a date."""
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    text = " ".join(str(value).split())
    try:
        return datetime.fromisoformat(text).date().isoformat()
    except ValueError:
        pass
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            continue
    return _text(value)


def _datetime(value: Any) -> str:
    """ISO date-time to the second; aware values converted to UTC."""
    try:
        parsed = value if isinstance(value, datetime) else datetime.fromisoformat(str(value).strip())
    except ValueError:
        return _text(value)
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return parsed.replace(microsecond=0).isoformat()


def _number(value: Any) -> float | str:
    """A float from numbers or text such as ``"$1,234.50"`` or ``"12 %"``."""
    if isinstance(value, bool):
        return _text(value)
    if isinstance(value, int | float):
        return round(float(value), 2)
    cleaned = re.sub(r"[^\d.\-]", "", str(value))
    try:
        return round(float(cleaned), 2)
    except ValueError:
        return _text(value)


def _integer(value: Any) -> int | float | str:
    number = _number(value)
    return int(number) if isinstance(number, float) and number.is_integer() else number


def _url(value: Any) -> str:
    text = str(value).strip()
    match = re.match(r"^([a-zA-Z][a-zA-Z0-9+.\-]*://)?([^/?#]*)(.*)$", text)
    assert match is not None  # the pattern matches any string
    scheme, host, rest = match.groups()
    return f"{(scheme or 'https://').lower()}{host.lower()}{rest}".rstrip("/")


def _domain(value: Any) -> str:
    text = str(value).strip().lower().rstrip(".")
    text = re.sub(r"^[a-z]+://", "", text).split("/")[0]
    return text.removeprefix("www.")


def _real_date(value: str) -> str:
    date.fromisoformat(value)
    return value


def _real_datetime(value: str) -> str:
    datetime.fromisoformat(value)
    return value


_PRODUCT_ADJECTIVES = ("Ergonomic", "Compact", "Wireless", "Premium", "Recycled", "Smart",
                       "Portable", "Heavy-Duty", "Classic", "Ultra-Light")
_PRODUCT_NOUNS = ("Desk Lamp", "Office Chair", "Headset", "Backpack", "Water Bottle", "Keyboard",
                  "Monitor Stand", "Notebook", "Coffee Grinder", "Standing Desk", "Webcam",
                  "Label Printer")
INDUSTRIES = ("Software", "Logistics", "Retail", "Healthcare", "Manufacturing", "Finance",
              "Education", "Hospitality", "Construction", "Energy", "Media", "Legal Services")


def _product(f: Faker) -> str:
    return f"{f.random_element(_PRODUCT_ADJECTIVES)} {f.random_element(_PRODUCT_NOUNS)}"


def _datetime_value(f: Faker) -> str:
    moment = f.date_time_between_dates(datetime(2024, 1, 1), datetime(2027, 12, 31))
    return moment.replace(second=0, microsecond=0).isoformat()


def _gs1_check(digits: str) -> int:
    """The GS1 check digit of a GTIN's other digits (weights 3, 1, 3... from the right)."""
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(digits)))
    return (10 - total % 10) % 10


def _gtin(value: Any) -> str:
    """GTIN-14: digits only, left-padded, so a UPC-A and its EAN-13 compare equal."""
    digits = re.sub(r"\D", "", str(value))
    return digits.zfill(14) if len(digits) in (8, 12, 13, 14) else _code(value)


def _real_gtin(value: str) -> str:
    digits = re.sub(r"[\s\-]", "", value)
    if _gs1_check(digits[:-1]) != int(digits[-1]):
        raise ValueError(f"{value!r} has a wrong GTIN check digit")
    return value


def _isbn(value: Any) -> str:
    """ISBN-13 without hyphens; an ISBN-10 becomes its 978 ISBN-13."""
    text = _code(value)
    if re.fullmatch(r"\d{9}[\dX]", text):
        body = "978" + text[:9]
        return body + str(_gs1_check(body))
    return text


def _real_isbn(value: str) -> str:
    text = _code(value)
    if len(text) == 10:
        total = sum((10 - i) * (10 if c == "X" else int(c)) for i, c in enumerate(text))
        ok = total % 11 == 0
    else:
        ok = _gs1_check(text[:-1]) == int(text[-1])
    if not ok:
        raise ValueError(f"{value!r} has a wrong ISBN check digit")
    return value


def _gtin_value(f: Faker) -> str:
    body = f.numerify("#" * 12)
    return body + str(_gs1_check(body))


def _isbn_value(f: Faker) -> str:
    body = "978" + f.numerify("#########")
    return body + str(_gs1_check(body))


_ISO_DATE = r"^\d{4}-\d{2}-\d{2}$"
_ISO_DATETIME = r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+\-]\d{2}:?\d{2})?$"

BUILTIN_TYPES: tuple[SemanticType, ...] = (
    # People
    SemanticType("PersonName", "string", "A person's full name.", lambda f: f.name(), _text),
    SemanticType("FirstName", "string", "A person's given name.", lambda f: f.first_name(), _text),
    SemanticType("LastName", "string", "A person's family name.", lambda f: f.last_name(), _text),
    SemanticType("Email", "string", "An email address.", lambda f: f.email(),
                 lambda v: str(v).strip().lower(), format="email",
                 pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$"),
    SemanticType("Phone", "string", "A phone number.",
                 lambda f: f.numerify("+1-%##-%##-####"), _phone,
                 pattern=r"^\+?[0-9][0-9 ().\-]{5,24}$"),
    SemanticType("Username", "string", "A user handle.", lambda f: f.user_name(),
                 lambda v: str(v).strip().lower().lstrip("@")),
    SemanticType("JobTitle", "string", "A job title.", lambda f: f.job(), _text),
    # Organisations
    SemanticType("CompanyName", "string", "A company's name.", lambda f: f.company(), _text),
    SemanticType("Industry", "string", "An industry sector.",
                 lambda f: f.random_element(INDUSTRIES), _text),
    SemanticType("Domain", "string", "An internet domain name.", lambda f: f.domain_name(),
                 _domain, format="hostname"),
    SemanticType("URL", "string", "A web address.", lambda f: f.url(), _url, format="uri",
                 pattern=r"^[a-zA-Z][a-zA-Z0-9+.\-]*://\S+$"),
    # Places
    SemanticType("Address", "string", "A street address.", lambda f: f.street_address(), _text),
    SemanticType("City", "string", "A city.", lambda f: f.city(), _text),
    SemanticType("Region", "string", "A state, province or region.", lambda f: f.state(), _text),
    SemanticType("Country", "string", "A country name.", lambda f: f.country(), _text),
    SemanticType("CountryCode", "string", "An ISO 3166-1 alpha-2 country code.",
                 lambda f: f.country_code(), lambda v: str(v).strip().upper(),
                 pattern=r"^[A-Za-z]{2}$"),
    SemanticType("PostalCode", "string", "A postal or ZIP code.", lambda f: f.postcode(), _code),
    SemanticType("Latitude", "number", "A latitude in degrees.",
                 lambda f: float(f.latitude()), _number),
    SemanticType("Longitude", "number", "A longitude in degrees.",
                 lambda f: float(f.longitude()), _number),
    SemanticType("Timezone", "string", "An IANA time zone name.", lambda f: f.timezone(), _text),
    SemanticType("Language", "string", "A language name.", lambda f: f.language_name(), _text),
    # Time
    SemanticType("Date", "string", "A calendar date (YYYY-MM-DD).",
                 lambda f: f.date_between_dates(_EPOCH_START, _EPOCH_END).isoformat(), _date,
                 format="date", pattern=_ISO_DATE, check=_real_date),
    SemanticType("DateTime", "string", "A date and time (ISO 8601).", _datetime_value, _datetime,
                 format="date-time", pattern=_ISO_DATETIME, check=_real_datetime),
    SemanticType("Time", "string", "A time of day (HH:MM).",
                 lambda f: f"{f.random_int(7, 19):02d}:{f.random_element((0, 15, 30, 45)):02d}",
                 lambda v: str(v).strip()[:5].zfill(5), format="time",
                 pattern=r"^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$"),
    SemanticType("DurationMinutes", "integer", "A duration in minutes.",
                 lambda f: f.random_element((15, 30, 45, 60, 90, 120)), _integer),
    # Money and quantities
    SemanticType("Money", "number", "An amount of money in its currency's major unit.",
                 lambda f: round(f.random.uniform(5, 5000), 2), _number),
    SemanticType("Currency", "string", "An ISO 4217 currency code.",
                 lambda f: f.random_element(("USD", "EUR", "GBP", "CAD", "JPY", "CHF")),
                 lambda v: str(v).strip().upper(), pattern=r"^[A-Za-z]{3}$"),
    SemanticType("Percent", "number", "A percentage (0-100).",
                 lambda f: round(f.random.uniform(0, 100), 1), _number),
    SemanticType("Quantity", "integer", "A count of items.", lambda f: f.random_int(1, 50),
                 _integer),
    SemanticType("IBAN", "string", "An international bank account number.", lambda f: f.iban(),
                 _code, pattern=r"^[A-Za-z]{2}\d{2}[A-Za-z0-9 ]{8,34}$"),
    SemanticType("AccountNumber", "string", "A bank or customer account number.",
                 lambda f: f.numerify("##########"), _code),
    # Commerce
    SemanticType("ProductName", "string", "A product's name.", _product, _text),
    SemanticType("SKU", "string", "A stock keeping unit code.",
                 lambda f: f.bothify("???-#####").upper(), _code, knowable=False),
    SemanticType("OrderNumber", "string", "An order number.",
                 lambda f: f.numerify("ORD-######"), _code),
    SemanticType("InvoiceNumber", "string", "An invoice number.",
                 lambda f: f.numerify("INV-#####"), _code),
    SemanticType("GTIN", "string",
                 "A GS1 trade item number on a product's barcode (EAN-13, UPC-A, GTIN-8/14).",
                 _gtin_value, _gtin, pattern=r"^(\d{8}|\d{12,14})$", check=_real_gtin,
                 knowable=False),
    SemanticType("ISBN", "string", "A book's ISBN (ISBN-13, or ISBN-10).", _isbn_value, _isbn,
                 pattern=r"^(97[89]-?(\d-?){9}\d|(\d-?){9}[\dXx])$", check=_real_isbn,
                 knowable=False),
    SemanticType("TrackingNumber", "string", "A parcel tracking number.",
                 lambda f: f.bothify("1Z##########??").upper(), _code, knowable=False),
    SemanticType("Color", "string", "A colour name.", lambda f: f.color_name(), _text),
    # Computing
    SemanticType("IPAddress", "string", "An IPv4 address.", lambda f: f.ipv4_public(),
                 lambda v: str(v).strip(), format="ipv4"),
    SemanticType("FileName", "string", "A file name with extension.", lambda f: f.file_name(),
                 lambda v: str(v).strip()),
)

for _type in BUILTIN_TYPES:
    register_type(_type)
