"""Shared semantic types: the vocabulary that lets information flow between services.

Every field and parameter that holds a person's name, an email, a date, an amount of money...
is typed with one of these, so the same fact means the same thing in every service. Each type
has a JSON schema, a seeded generator and a normalizer for comparisons.

Example:
    >>> from compoworld.types import Email, get_type
    >>> get_type("Phone").normalize("(415) 555-0134") == get_type("Phone").normalize("+1 415 555 0134")
    True
"""

from typing import Annotated

from compoworld.types import _builtin
from compoworld.types._naming import TextRole, code_prefix, make_code, make_title, text_role
from compoworld.types._pool import (
    DEFAULT_TODAY,
    USER_JOBS,
    Company,
    Person,
    PersonRole,
    Pool,
    derive_seed,
    person_fact,
    shared_pool,
)
from compoworld.types._semantic import (
    Ref,
    SemanticTag,
    SemanticType,
    get_type,
    ref_type,
    register_type,
    semantic_type_of,
    semantic_types,
)

__all__ = [
    "BUILTIN_TYPES",
    "DEFAULT_TODAY",
    "GTIN",
    "IBAN",
    "ISBN",
    "SKU",
    "URL",
    "USER_JOBS",
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
    "PersonRole",
    "Phone",
    "Pool",
    "PostalCode",
    "ProductName",
    "Quantity",
    "Ref",
    "Region",
    "SemanticTag",
    "SemanticType",
    "TextRole",
    "Time",
    "Timezone",
    "TrackingNumber",
    "Username",
    "code_prefix",
    "derive_seed",
    "get_type",
    "make_code",
    "make_title",
    "person_fact",
    "ref_type",
    "register_type",
    "semantic_type_of",
    "semantic_types",
    "shared_pool",
    "text_role",
]

BUILTIN_TYPES = _builtin.BUILTIN_TYPES

# Annotated aliases for signatures and entity fields: ``def f(email: Email)``. Spelled out so
# type checkers and readers see every name; a test checks they match the registry.
PersonName = Annotated[str, SemanticTag("PersonName")]
FirstName = Annotated[str, SemanticTag("FirstName")]
LastName = Annotated[str, SemanticTag("LastName")]
Email = Annotated[str, SemanticTag("Email")]
Phone = Annotated[str, SemanticTag("Phone")]
Username = Annotated[str, SemanticTag("Username")]
JobTitle = Annotated[str, SemanticTag("JobTitle")]
CompanyName = Annotated[str, SemanticTag("CompanyName")]
Industry = Annotated[str, SemanticTag("Industry")]
Domain = Annotated[str, SemanticTag("Domain")]
URL = Annotated[str, SemanticTag("URL")]
Address = Annotated[str, SemanticTag("Address")]
City = Annotated[str, SemanticTag("City")]
Region = Annotated[str, SemanticTag("Region")]
Country = Annotated[str, SemanticTag("Country")]
CountryCode = Annotated[str, SemanticTag("CountryCode")]
PostalCode = Annotated[str, SemanticTag("PostalCode")]
Latitude = Annotated[float, SemanticTag("Latitude")]
Longitude = Annotated[float, SemanticTag("Longitude")]
Timezone = Annotated[str, SemanticTag("Timezone")]
Language = Annotated[str, SemanticTag("Language")]
Date = Annotated[str, SemanticTag("Date")]
DateTime = Annotated[str, SemanticTag("DateTime")]
Time = Annotated[str, SemanticTag("Time")]
DurationMinutes = Annotated[int, SemanticTag("DurationMinutes")]
Money = Annotated[float, SemanticTag("Money")]
Currency = Annotated[str, SemanticTag("Currency")]
Percent = Annotated[float, SemanticTag("Percent")]
Quantity = Annotated[int, SemanticTag("Quantity")]
IBAN = Annotated[str, SemanticTag("IBAN")]
AccountNumber = Annotated[str, SemanticTag("AccountNumber")]
ProductName = Annotated[str, SemanticTag("ProductName")]
SKU = Annotated[str, SemanticTag("SKU")]
GTIN = Annotated[str, SemanticTag("GTIN")]
ISBN = Annotated[str, SemanticTag("ISBN")]
OrderNumber = Annotated[str, SemanticTag("OrderNumber")]
InvoiceNumber = Annotated[str, SemanticTag("InvoiceNumber")]
TrackingNumber = Annotated[str, SemanticTag("TrackingNumber")]
Color = Annotated[str, SemanticTag("Color")]
IPAddress = Annotated[str, SemanticTag("IPAddress")]
FileName = Annotated[str, SemanticTag("FileName")]
