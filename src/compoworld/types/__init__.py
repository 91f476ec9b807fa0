"""Shared semantic types: the vocabulary that lets information flow between services.

Every field and parameter that holds a person's name, an email, a date, an amount of money...
is typed with one of these, so the same fact means the same thing in every service. Each type
has a JSON schema, a seeded generator and a normalizer for comparisons.

Example:
    >>> from compoworld.types import Email, get_type
    >>> get_type("Phone").normalize("(415) 555-0134") == get_type("Phone").normalize("+1 415 555 0134")
    True
"""

from typing import Any

from compoworld.types import _builtin
from compoworld.types._pool import DEFAULT_TODAY, Company, Person, Pool, derive_seed
from compoworld.types._semantic import (
    Ref,
    SemanticTag,
    SemanticType,
    get_type,
    register_type,
    semantic_type_of,
    semantic_types,
)

__all__ = [
    "BUILTIN_TYPES",
    "DEFAULT_TODAY",
    "URL",
    "AccountNumber",
    "Address",
    "City",
    "Color",
    "Company",
    "CompanyName",
    "Country",
    "CountryCode",
    "Currency",
    "Date",
    "DateTime",
    "Domain",
    "DurationMinutes",
    "Email",
    "FileName",
    "FirstName",
    "IBAN",
    "IPAddress",
    "Industry",
    "InvoiceNumber",
    "JobTitle",
    "Language",
    "LastName",
    "Latitude",
    "Longitude",
    "Money",
    "OrderNumber",
    "Percent",
    "Person",
    "PersonName",
    "Phone",
    "Pool",
    "PostalCode",
    "ProductName",
    "Quantity",
    "Ref",
    "Region",
    "SKU",
    "SemanticTag",
    "SemanticType",
    "Time",
    "Timezone",
    "TrackingNumber",
    "Username",
    "derive_seed",
    "get_type",
    "register_type",
    "semantic_type_of",
    "semantic_types",
]

BUILTIN_TYPES = _builtin.BUILTIN_TYPES

# Annotated aliases for signatures and entity fields: ``def f(email: Email)``.
# Spelled out (not generated) so type checkers and readers see every name.
_a: dict[str, Any] = {t.name: t.annotation for t in BUILTIN_TYPES}
PersonName = _a["PersonName"]
FirstName = _a["FirstName"]
LastName = _a["LastName"]
Email = _a["Email"]
Phone = _a["Phone"]
Username = _a["Username"]
JobTitle = _a["JobTitle"]
CompanyName = _a["CompanyName"]
Industry = _a["Industry"]
Domain = _a["Domain"]
URL = _a["URL"]
Address = _a["Address"]
City = _a["City"]
Region = _a["Region"]
Country = _a["Country"]
CountryCode = _a["CountryCode"]
PostalCode = _a["PostalCode"]
Latitude = _a["Latitude"]
Longitude = _a["Longitude"]
Timezone = _a["Timezone"]
Language = _a["Language"]
Date = _a["Date"]
DateTime = _a["DateTime"]
Time = _a["Time"]
DurationMinutes = _a["DurationMinutes"]
Money = _a["Money"]
Currency = _a["Currency"]
Percent = _a["Percent"]
Quantity = _a["Quantity"]
IBAN = _a["IBAN"]
AccountNumber = _a["AccountNumber"]
ProductName = _a["ProductName"]
SKU = _a["SKU"]
OrderNumber = _a["OrderNumber"]
InvoiceNumber = _a["InvoiceNumber"]
TrackingNumber = _a["TrackingNumber"]
Color = _a["Color"]
IPAddress = _a["IPAddress"]
FileName = _a["FileName"]
del _a
