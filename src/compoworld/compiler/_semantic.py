"""Semantic type inference: which shared type (Email, Phone, Money, ...) a field or parameter
holds, from its JSON-schema ``format``, its name and its description.

Every rule is conservative: a semantic type is only given when the JSON type fits it (an
``amount`` that is a string stays a string), and enumerations stay enumerations.
"""

from __future__ import annotations

import re
from typing import Any

from compoworld.types import get_type

# Types whose equal values name the same real thing (a person, a company, a place, an
# order...) — a link through them is a cross-service link. Dates, money, countries, currencies,
# languages... are shared by everything and identify nothing.
IDENTIFYING_TYPES = frozenset({
    "Email", "Phone", "PersonName", "FirstName", "LastName", "Username", "CompanyName",
    "Domain", "URL", "Address", "City", "PostalCode", "IBAN", "AccountNumber", "SKU",
    "ProductName", "OrderNumber", "InvoiceNumber", "TrackingNumber", "GTIN", "ISBN",
})
_FORMATS = {
    "email": "Email", "idn-email": "Email", "uri": "URL", "url": "URL", "iri": "URL",
    "date": "Date", "date-time": "DateTime", "hostname": "Domain", "ipv4": "IPAddress",
    "time": "Time",
}

# Whole normalised names (snake case) → type. Checked before the word rules.
_NAMES = {
    "email": "Email", "email_address": "Email", "e_mail": "Email", "mail": "Email",
    "phone": "Phone", "phone_number": "Phone", "mobile": "Phone", "mobile_phone": "Phone",
    "telephone": "Phone", "fax": "Phone", "cell_phone": "Phone", "work_phone": "Phone",
    "first_name": "FirstName", "firstname": "FirstName", "given_name": "FirstName",
    "last_name": "LastName", "lastname": "LastName", "surname": "LastName",
    "family_name": "LastName", "full_name": "PersonName", "fullname": "PersonName",
    "contact_name": "PersonName", "customer_name": "PersonName",
    "person_name": "PersonName", "author_name": "PersonName", "owner_name": "PersonName",
    "company": "CompanyName", "company_name": "CompanyName", "organization": "CompanyName",
    "organisation": "CompanyName", "organization_name": "CompanyName",
    "business_name": "CompanyName", "employer": "CompanyName", "vendor_name": "CompanyName",
    "url": "URL", "website": "URL", "homepage": "URL", "web_url": "URL", "html_url": "URL",
    "href": "URL", "link": "URL", "website_url": "URL", "image_url": "URL", "avatar_url": "URL",
    "address": "Address", "street": "Address", "street_address": "Address",
    "address_line1": "Address", "address_line_1": "Address", "address1": "Address",
    "line1": "Address", "city": "City", "town": "City", "locality": "City",
    "province": "Region", "state_or_province": "Region",
    "country": "Country", "country_name": "Country", "country_code": "CountryCode",
    "zip": "PostalCode", "zip_code": "PostalCode", "zipcode": "PostalCode",
    "postal_code": "PostalCode", "postcode": "PostalCode",
    "lat": "Latitude", "latitude": "Latitude", "lng": "Longitude", "lon": "Longitude",
    "long": "Longitude", "longitude": "Longitude",
    "timezone": "Timezone", "time_zone": "Timezone", "tz": "Timezone",
    "language": "Language", "currency": "Currency", "currency_code": "Currency",
    "username": "Username", "user_name": "Username", "login": "Username", "handle": "Username",
    "screen_name": "Username", "job_title": "JobTitle", "position_title": "JobTitle",
    "domain": "Domain", "domain_name": "Domain", "iban": "IBAN", "sku": "SKU",
    "invoice_number": "InvoiceNumber", "order_number": "OrderNumber",
    "tracking_number": "TrackingNumber", "color": "Color", "colour": "Color",
    "ip": "IPAddress", "ip_address": "IPAddress", "filename": "FileName", "file_name": "FileName",
    "industry": "Industry", "duration_minutes": "DurationMinutes",
    "quantity": "Quantity", "qty": "Quantity", "account_number": "AccountNumber",
    "percent": "Percent", "percentage": "Percent",
    "uri": "URL", "webpage": "URL", "web_page": "URL", "permalink": "URL", "home_page": "URL",
    "hostname": "Domain", "host_name": "Domain", "fqdn": "Domain", "msisdn": "Phone",
    "org_name": "CompanyName", "merchant_name": "CompanyName", "supplier_name": "CompanyName",
    "employer_name": "CompanyName", "dba_name": "CompanyName", "legal_business_name": "CompanyName",
    "product_name": "ProductName", "order_no": "OrderNumber", "invoice_no": "InvoiceNumber",
    "tracking_code": "TrackingNumber", "address_line": "Address", "street1": "Address",
    "street_1": "Address",
    # a credit on a work names its maker (strings only: an ``author`` object is a record)
    "author": "PersonName", "artist": "PersonName", "illustrator": "PersonName",
    "composer": "PersonName", "narrator": "PersonName", "photographer": "PersonName",
    "publisher": "CompanyName", "manufacturer": "CompanyName", "operatorname": "CompanyName",
    "payee": "CompanyName",
    # product identifiers (GS1 numbers, ISBNs): not ``barcode``, which may be an image
    "gtin": "GTIN", "gtin8": "GTIN", "gtin12": "GTIN", "gtin13": "GTIN", "gtin14": "GTIN",
    "ean": "GTIN", "ean13": "GTIN", "ean8": "GTIN", "upc": "GTIN", "upc_a": "GTIN",
    "isbn": "ISBN", "isbn13": "ISBN", "isbn10": "ISBN", "isbn_13": "ISBN", "isbn_10": "ISBN",
}

# Last word of the name → type (for names like ``billing_email``, ``total_price``).
_LAST_WORDS = {
    "email": "Email", "phone": "Phone", "url": "URL", "website": "URL", "city": "City",
    "country": "Country", "currency": "Currency", "zip": "PostalCode", "postcode": "PostalCode",
    "amount": "Money", "price": "Money", "cost": "Money", "total": "Money", "balance": "Money",
    "fee": "Money", "subtotal": "Money", "tax": "Money", "salary": "Money", "revenue": "Money",
    "budget": "Money", "date": "Date", "at": "DateTime", "timestamp": "DateTime",
    "datetime": "DateTime", "time": "DateTime", "on": "Date", "birthday": "Date",
    "dob": "Date", "percent": "Percent", "percentage": "Percent", "quantity": "Quantity",
    "latitude": "Latitude", "longitude": "Longitude", "timezone": "Timezone",
    "username": "Username", "address": "Address", "firstname": "FirstName", "link": "URL",
    "lastname": "LastName", "iban": "IBAN", "sku": "SKU", "uri": "URL", "href": "URL",
    "telephone": "Phone", "fax": "Phone", "street": "Address", "line1": "Address",
    "address1": "Address", "town": "City", "locality": "City", "zipcode": "PostalCode",
    "postalcode": "PostalCode", "homepage": "URL", "suburb": "City", "mobile": "Phone",
    "gtin": "GTIN", "ean": "GTIN", "upc": "GTIN", "isbn": "ISBN", "isbn13": "ISBN",
}
_LAST_TWO = {
    "first_name": "FirstName", "last_name": "LastName", "full_name": "PersonName",
    "company_name": "CompanyName", "postal_code": "PostalCode", "zip_code": "PostalCode",
    "country_code": "CountryCode", "currency_code": "Currency", "phone_number": "Phone",
    "email_address": "Email", "job_title": "JobTitle", "street_address": "Address",
    "ip_address": "IPAddress", "file_name": "FileName", "time_zone": "Timezone",
    "given_name": "FirstName", "family_name": "LastName", "mobile_number": "Phone",
    "telephone_number": "Phone", "fax_number": "Phone", "cell_number": "Phone",
    "post_code": "PostalCode", "city_name": "City", "product_name": "ProductName",
    "account_number": "AccountNumber", "order_number": "OrderNumber",
    "invoice_number": "InvoiceNumber", "tracking_number": "TrackingNumber",
    "screen_name": "Username", "user_name": "Username", "web_site": "URL", "home_page": "URL",
    "town_name": "City", "isbn_13": "ISBN", "isbn_10": "ISBN",
}
_NOT_ALONE = {"at", "on", "time", "total", "text", "link"}
"""Last words that say nothing when they are the whole name."""
_PEOPLE = {"user", "customer", "contact", "person", "people", "member", "employee", "owner",
           "author", "lead", "patient", "student", "guest", "traveler", "traveller", "passenger",
           "driver", "candidate", "subscriber", "recipient", "sender", "attendee", "participant",
           "teacher", "doctor", "client", "applicant", "speaker", "staff", "worker", "profile"}
_COMPANIES = {"company", "organization", "organisation", "business", "vendor", "supplier",
              "merchant", "employer", "brand", "manufacturer", "partner", "agency", "firm",
              "publisher", "payee", "carrier", "airline", "bank", "operator"}
_NAME_FIELDS = {"name", "display_name", "full_name"}
"""On a person-like entity these name the person; on a company-like one, the company."""
_PLACES = {"city": "City", "town": "City"}
"""On a place entity its name names the place."""
_PRODUCTS = {"product"}
_PRODUCT_FIELDS = {"name", "title", "display_name"}
"""On a product these name the product."""
_PERSON_ROLES = (_PEOPLE - {"user", "profile", "client"}) | {
    "committer", "editor", "caller", "creator", "assignee", "reviewer", "approver", "requester",
    "reporter", "signer", "by", "shopper", "donor", "volunteer", "instructor", "artist",
    "illustrator", "composer", "narrator", "photographer", "holder", "cardholder"}
"""``<role>_name`` is a person's name (``customer_name``, ``changed_by_name``); ``user_name``
is a user handle and ``client_name`` an OAuth application's."""
_COMPANY_ROLES = _COMPANIES - {"brand", "partner", "agency", "firm"}
"""``<role>_name`` is a company's name (``vendor_name``, ``merchant_name``)."""

_PERSON_TYPES = {"PersonName", "FirstName", "LastName"}
_NOT_PEOPLE = {"brand", "font", "repository", "repo", "fork", "organization", "organisation",
               "org", "project", "product", "team", "group", "company", "app", "application",
               "device", "model", "place", "type", "series", "league", "season", "line", "score",
               "protein", "dataset", "category", "provider"}
"""``<thing>_full_name`` / ``<thing>_family_name`` (or a ``full_name`` on such an entity) name
a thing, not a person: a repository's ``full_name`` is ``owner/name``."""
_NOT_POSTAL = {"mac", "ip", "pv6", "ipv6", "ipv4", "v4", "v6", "server", "host", "web",
               "webhook", "email", "mail", "wallet", "contract", "network", "sip", "remote",
               "local", "bind", "listen", "callback", "notification", "public", "private",
               "memory", "bitcoin", "btc", "eth", "node", "peer", "endpoint", "proxy", "gateway"}
"""``<word>_address`` that is no street address: ``mac_address``, ``server_address``."""

_DATE_NAMES = {"created", "updated", "modified", "deleted", "expires", "due", "birthdate"}
_AGENT_WORDS = {"by", "user", "author", "who", "creator", "owner", "email", "name"}
"""Last words naming who did it (``created_by``, ``modified_user``): never a date."""
_COUNT_WORDS = {"count", "counts", "num", "number", "shares", "share", "views", "likes",
                "followers", "clicks", "impressions", "votes", "quantity", "qty", "units",
                "items", "times", "hits", "downloads", "subscribers", "members", "points",
                "tokens", "pages", "records", "rows", "results", "seconds", "minutes", "hours",
                "days", "percent", "percentage", "ratio", "score"}
"""Words of a count or a measure: a field holding one is no Money (``total_shares``)."""
_COUNTED = re.compile(r"^(?:the |total )?(?:number|count|amount) of (?!money)"
                      r"(?:\w+ ){0,2}(?:shares|views|likes|items|times|followers|clicks|"
                      r"records|results|users|members|units|tokens|pages)\b", re.I)
"""A description saying the value counts things ("Total number of shares")."""

# Phrases in a description → type (only for strings without a format).
_RESOURCE_NAME = re.compile(
    r"^(?:(?:Required|Output only|Immutable|Optional|Identifier)\. )*(?:The )?resource name\b",
    re.I)
"""A description saying the value is a resource name: an id path like ``users/{user}``."""
_SAID_FIRST = r"^(?:the |an? |your )?(?:(?!of |for |to |with )[\w'-]+ ){0,3}"
"""At most three words before it, none relating it to something else."""
_DESCRIPTIONS = (
    # what the value is, said first: "The customer's email address", "Mobile phone number"
    # (not "The name shown instead of the email address", "Country of the phone number")
    (re.compile(_SAID_FIRST + r"e-?mail address(?:es)?\b", re.I), "Email"),
    (re.compile(_SAID_FIRST + r"(?:tele)?phone numbers?\b", re.I), "Phone"),
    # "EAN/UPC barcode" (chompthis), "The GTIN of the product" (not "UPC prefix", "EAN count")
    (re.compile(_SAID_FIRST + r"(?:EAN|UPC|GTIN)(?:-?\d+)?(?:\s*/\s*(?:EAN|UPC|GTIN)(?:-?\d+)?)*"
                r"(?: (?:bar ?)?codes?| numbers?)?(?:$|[ ,.;(](?!prefix|count))", re.I), "GTIN"),
    # "Username of the creator", "GitHub username to assign" (not "the user's name")
    (re.compile(_SAID_FIRST + r"(?:user ?names?|logins?|handles?)\b(?! or | and )", re.I),
     "Username"),
    (re.compile(r"\bISO[ -]?4217\b|\bcurrency code\b", re.I), "Currency"),
    (re.compile(r"\bISO[ -]?3166\b.*alpha-?2|\btwo-letter country code\b", re.I), "CountryCode"),
    (re.compile(r"\bYYYY-MM-DD\b(?!T| ?hh)", re.I), "Date"),
    (re.compile(r"\bISO[ -]?8601\b.*\b(date[- ]?time|timestamp)\b", re.I), "DateTime"),
    (re.compile(r"\bRFC[ -]?3339 timestamp\b", re.I), "DateTime"),
    # a description that starts by saying what the value is: "URL of the app in Google Play",
    # "Websocket URL", "The URI of the image" (not "URL-safe base64 ...")
    (re.compile(_SAID_FIRST + r"(?:URL|URI|\w+(?-i:URL|URI))\b(?![- ](?:safe|encoded|friendly|path))", re.I),
     "URL"),
)

_JSON_OF = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean"}


def words(name: str) -> str:
    """``"billingEmail"`` / ``"Billing-Email"`` → ``"billing_email"`` (lower snake case)."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    name = re.sub(r"[^0-9A-Za-z]+", "_", name).strip("_").lower()
    return re.sub(r"_+", "_", name)


_IRREGULAR = {"people": "person", "children": "child", "men": "man", "women": "woman",
              "data": "data", "media": "media", "news": "news", "series": "series",
              "species": "species", "status": "status", "analysis": "analysis", "address": "address",
              "business": "business", "access": "access", "canvas": "canvas", "alias": "alias",
              "class": "class", "settings": "settings", "details": "details", "metadata": "metadata"}


def singular(word: str) -> str:
    """``"companies"`` → ``"company"``, ``"addresses"`` → ``"address"``, ``"people"`` → ``"person"``."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("shes", "sh"), ("ches", "ch"),
                         ("xes", "x"), ("uses", "us"), ("statuses", "status")):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            return word[: -len(suffix)] + repl
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def _fits(semantic: str, json_type: str | None) -> bool:
    base = get_type(semantic).json_type
    if json_type is None:
        return base == "string"
    if base == "number":
        return json_type in ("number", "integer")
    return base == json_type


def infer_semantic(name: str, schema: dict[str, Any] | None = None,
                   description: str = "", entity: str = "") -> str | None:
    """The semantic type a field or parameter holds, or None when nothing says so.

    Args:
        name: The field or parameter name as the source spells it (any case).
        schema: Its JSON schema (``type``, ``format``, ``enum``...).
        description: Its description.
        entity: The entity it belongs to, if any (``name`` on a ``customer`` is a PersonName,
            on a ``company`` a CompanyName).

    Example:
        >>> infer_semantic("billingEmail", {"type": "string"})
        'Email'
        >>> infer_semantic("total_price", {"type": "number"})
        'Money'
        >>> infer_semantic("total_price", {"type": "string"}) is None
        True
    """
    schema = schema or {}
    json_type = schema.get("type") if isinstance(schema.get("type"), str) else None
    if schema.get("enum") or json_type in ("array", "object", "boolean"):
        return None
    candidates: list[str] = []
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt.lower() in _FORMATS:
        candidates.append(_FORMATS[fmt.lower()])
    snake = words(name)
    parts = snake.split("_")
    if snake.endswith("_id") or snake == "id" or snake.endswith("_ids"):
        return None  # identifiers are Refs or plain strings, never the thing they name
    text = description or str(schema.get("description") or "")
    if _RESOURCE_NAME.search(text):
        return None  # Google's resource names ("users/{user}") are identifiers too
    kind = entity.split("_")[-1] if entity else ""
    if snake in _NAME_FIELDS and kind in _PEOPLE:
        candidates.append("PersonName")
    if snake in _NAME_FIELDS and kind in _COMPANIES:
        candidates.append("CompanyName")
    if snake in _PRODUCT_FIELDS and kind in _PRODUCTS:
        candidates.append("ProductName")
    if snake in _NAME_FIELDS and kind in _PLACES:
        candidates.append(_PLACES[kind])
    candidates += _role_name(parts)
    if snake in _NAMES:
        candidates.append(_NAMES[snake])
    two = "_".join(parts[-2:])
    if len(parts) >= 2 and two in _LAST_TWO and not (
            _LAST_TWO[two] in _PERSON_TYPES and len(parts) >= 3 and parts[-3] in _NOT_PEOPLE):
        candidates.append(_LAST_TWO[two])  # not repository_full_name, brand_family_name
    if parts[-1] in _LAST_WORDS and (len(parts) >= 2 or parts[-1] not in _NOT_ALONE) and not (
            parts[-1] == "address" and len(parts) >= 2 and parts[-2] in _NOT_POSTAL):
        candidates.append(_LAST_WORDS[parts[-1]])
    if len(parts[-1]) > 3 and parts[-1].endswith("url") and parts[-1] != "curl":
        candidates.append("URL")  # siteurl, appurl, wsurl: lower-case compounds
    if parts[0] in _DATE_NAMES and len(parts) <= 2 and json_type in (None, "string") and (
            parts[-1] not in _AGENT_WORDS):
        candidates.append("DateTime")  # not created_by ("username of the creator")
    if json_type in (None, "string") and not fmt:
        candidates += [t for pattern, t in _DESCRIPTIONS if pattern.search(text)]
    example = _example(schema, text)
    stated = _stated_format(text) if json_type in (None, "string") else None
    for candidate in candidates:
        if candidate in _PERSON_TYPES and kind in _NOT_PEOPLE:
            continue
        if stated is not None and not _accepts(candidate, stated):
            continue  # expiration_date "in the format MM/YYYY" is no Date (YYYY-MM-DD)
        if not _example_fits(candidate, example):
            continue  # "domain: the site the groups belong to, example: netherlands"
        if candidate == "Money" and json_type == "integer" and parts[-1] in ("total", "balance"):
            continue  # an integer total is usually a count, not an amount
        if candidate == "Money" and (set(parts) & _COUNT_WORDS or _COUNTED.search(text)):
            continue  # total_shares, share_count, "number of views": counts, not amounts
        if candidate in ("Date", "DateTime") and parts[-1] in _AGENT_WORDS:
            continue  # created_by, updated_by name who, not when
        if candidate in ("Date", "DateTime") and fmt in ("date", "date-time"):
            candidate = _FORMATS[fmt]
        if _fits(candidate, json_type):
            return candidate
    return None


_ACCOUNT_PARTIES = {"debtor", "creditor", "beneficiary", "payer", "payee", "holder"}
"""``debtor_account_name``: in open banking, the name of the account's owner."""


def _role_name(parts: list[str]) -> list[str]:
    """``customer_name`` / ``author_display_name`` / ``debtor_account_name`` → PersonName,
    ``vendor_name`` → CompanyName."""
    if len(parts) >= 3 and parts[-2:] == ["account", "name"] and parts[-3] in _ACCOUNT_PARTIES:
        return ["PersonName"]
    if len(parts) >= 2 and parts[-1] == "name":
        role = parts[-3] if parts[-2] in ("display", "full") and len(parts) >= 3 else parts[-2]
        if role in _PERSON_ROLES or (role == "user" and parts[-2] in ("display", "full")):
            return ["PersonName"]
        if role in _COMPANY_ROLES and parts[-2] == role:
            return ["CompanyName"]
    return []


_EXAMPLE_TEXT = re.compile(r"\b(?:examples?\s*:|e\.g\.,?\s*(?=[\"'`]))\s*[\"'`]?"
                           r"([^\s\"'`,;()]+)", re.I)
"""A value the description gives as an example: ``example: netherlands``, ``e.g. "a@b.c"``."""
_NAMEY = {"PersonName", "FirstName", "LastName", "CompanyName", "City", "ProductName"}


def _example(schema: dict[str, Any], text: str) -> str | None:
    example = schema.get("example")
    if example is None and isinstance(schema.get("examples"), list) and schema["examples"]:
        example = schema["examples"][0]
    if isinstance(example, str) and example.strip():
        return example.strip()
    match = _EXAMPLE_TEXT.search(text)
    return match.group(1).rstrip(".") if match else None


def _example_fits(semantic: str, example: str | None) -> bool:
    """Whether the spec's own example could be a value of ``semantic`` (no example: yes)."""
    if example is None:
        return True
    if semantic == "Email":
        return bool(re.fullmatch(r"[^@\s]+@[^@\s]+", example))
    if semantic == "URL":
        return bool(re.match(r"[a-z][a-z0-9+.-]*://|www\.", example, re.I))
    if semantic == "Domain":
        return bool(re.fullmatch(r"(\*\.)?([a-z0-9-]+\.)+[a-z]{2,}\.?", example, re.I))
    if semantic == "Phone":
        return sum(c.isdigit() for c in example) >= 5 and not re.search(r"[a-z]{3}", example, re.I)
    if semantic in ("Address", "City", "PostalCode") and re.search(r"://|@", example):
        return False
    if semantic == "GTIN":
        return bool(re.fullmatch(r"\d{8}|\d{12,14}", example))
    if semantic == "ISBN":
        return bool(re.fullmatch(r"[\d-]{9,16}[\dXx]", example))
    if semantic in _NAMEY:  # digits alone are a sloppy example more often than an id
        return not re.search(r"@|://|_|^[a-f0-9]{8}-[a-f0-9-]{8,}$", example, re.I)
    return True


_FORMAT_PARTS = {"YYYY": "2024", "YY": "24", "MM": "01", "DD": "28", "HH": "13", "hh": "01",
                 "mm": "30", "ss": "00"}
_STATED = re.compile(r"(?<![A-Za-z])((?:YYYY|YY|MM|DD|HH|hh|mm|ss)(?:[-/.: T]?(?:YYYY|YY|MM|DD|HH|"
                     r"hh|mm|ss))+)(?![A-Za-z])")
"""A format the description states (``MM/YYYY``, ``DD.MM.YYYY``, ``YYYY-MM-DD HH:mm``)."""


def _stated_format(text: str) -> str | None:
    """A value written in the format the description states (``MM/YYYY`` → ``01/2024``), or
    None when it states none."""
    match = _STATED.search(text)
    if match is None:
        return None
    return re.sub("|".join(_FORMAT_PARTS), lambda m: _FORMAT_PARTS[m.group(0)], match.group(1))


def _accepts(semantic: str, value: str) -> bool:
    """Whether ``semantic`` takes a value written as the description says (a Date is
    ``YYYY-MM-DD``: a card's ``MM/YYYY`` expiry is no Date)."""
    kind = get_type(semantic)
    if kind.pattern and not re.fullmatch(kind.pattern, value):
        return False
    try:
        if kind.check is not None:
            kind.check(value)
    except ValueError:
        return False
    return True


def field_type(name: str, schema: dict[str, Any] | None, description: str = "",
               entity: str = "") -> tuple[str, str | None]:
    """(spec type, array item type) of a field: a semantic type or a JSON primitive."""
    schema = schema or {}
    semantic = infer_semantic(name, schema, description, entity)
    if semantic:
        return semantic, None
    json_type = schema.get("type")
    if isinstance(json_type, list):  # ["string", "null"]
        json_type = next((t for t in json_type if t != "null"), "string")
    if json_type == "array":
        items: dict[str, Any] = schema["items"] if isinstance(schema.get("items"), dict) else {}
        item_type = items.get("type") if isinstance(items.get("type"), str) else None
        if item_type in (None, "string"):  # ``emails``, ``authors``: a list of typed values
            parts = words(name).split("_")
            one = "_".join([*parts[:-1], singular(parts[-1])])
            item_semantic = infer_semantic(one, items, str(items.get("description") or
                                                            description), entity)
            if item_semantic:
                return "array", item_semantic
        return "array", _JSON_OF.get(item_type or "")
    if json_type in _JSON_OF or json_type == "object":
        return str(json_type), None
    if schema.get("properties"):
        return "object", None
    return "string", None
