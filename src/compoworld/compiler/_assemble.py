"""``Assembler``: collects entities, fields and tools while a source is compiled, then checks
every tool on the engine and emits a :class:`ServiceSpec` that always builds.

A tool the engine refuses (a search over an entity without text, an action on a missing
field...) does not break the service: it becomes an *opaque* simulated tool — its inputs and
outputs kept as a result entity, answered by the world model — with the engine's reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from compoworld.compiler._rules import identifier
from compoworld.compiler._semantic import field_type
from compoworld.errors import UserError
from compoworld.service import Provenance, ServiceSpec
from compoworld.service._engine import _ToolBuilder
from compoworld.service._service import Service
from compoworld.service._spec import ActionSpec, EntitySpec, FieldSpec, ParamSpec, ToolSpec

MAX_FIELDS = 64
MAX_ENUM = 30
"""Longer enumerations are dropped (the field stays a plain string) and noted."""

_STATUS_STATES = ["active"]
_RESERVED = {"schema", "json", "dict", "copy", "construct", "validate", "fields", "parse_obj",
             "parse_raw", "parse_file", "from_orm", "update_forward_refs", "schema_json",
             "model_config", "model_fields", "model_computed_fields", "entity_name", "id_prefix",
             "unique_fields", "register", "entity", "record_id", "self"}


@dataclass
class Draft:
    """An entity being assembled."""

    name: str
    description: str = ""
    fields: dict[str, FieldSpec] = field(default_factory=dict)
    seed_count: int = 20
    singleton: bool = False


class Assembler:
    """Builds one service spec from compiled pieces (see module docstring)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.entities: dict[str, Draft] = {}
        self.tools: list[ToolSpec] = []
        self.warnings: list[str] = []
        self.invented: set[tuple[str, str]] = set()
        """(entity, field) of status fields added for a transition, which a later declaration
        of the field replaces."""

    def entity(self, name: str, description: str = "") -> Draft:
        draft = self.entities.setdefault(name, Draft(name, description))
        if description and not draft.description:
            draft.description = description
        return draft

    def add_field(self, entity: str, name: str, schema: dict[str, Any] | None = None, *,
                  description: str = "", required: bool = False, type_: str | None = None,
                  ref: str | None = None) -> str | None:
        """Add (or keep) a field; returns its identifier, or None when it cannot be stored."""
        draft = self.entity(entity)
        fname = identifier(name, "f")
        if fname == "id":
            return "id"
        if fname in _RESERVED:  # would shadow a pydantic model attribute
            fname = f"{fname}_value"
        if fname in draft.fields and (entity, fname) in self.invented and schema and (
                schema.get("type") == "string" and not schema.get("enum")):
            # close_ticket came first and added status for its transition; get_ticket declares
            # status free text: the declaration holds
            self.invented.discard((entity, fname))
            draft.fields[fname] = draft.fields[fname].model_copy(update={"enum": None})
        if fname in draft.fields:
            return fname
        if len(draft.fields) >= MAX_FIELDS:
            self.warnings.append(f"{entity}: field {name!r} dropped (more than {MAX_FIELDS})")
            return None
        schema = schema or {}
        text = description or str(schema.get("description") or "")
        if type_ is None:
            type_, items = field_type(name, schema, text, entity)
        else:
            items = None
        enum = None
        raw_enum = schema.get("enum")
        if type_ == "string" and isinstance(raw_enum, list) and raw_enum:
            values = [str(v) for v in raw_enum if v is not None and str(v)]
            if len(values) > MAX_ENUM:
                self.warnings.append(f"{entity}.{fname}: enum of {len(values)} values truncated "
                                     "(kept as a plain string)")
            elif values:
                enum = list(dict.fromkeys(values))
        draft.fields[fname] = FieldSpec(name=fname, type=type_, description=text[:300],
                                        required=required, ref=ref, items=items, enum=enum)
        return fname

    def status_field(self, entity: str, target: str) -> str:
        """The status-like field a transition sets (``status``, else ``state``), created or
        widened to hold ``target``. A status the spec declares as free text stays free text:
        bfcl's tickets are "Open", "unresolved", "In Progress", never only the states the
        transitions name."""
        draft = self.entity(entity)
        names = [n for n in ("status", "state", "lifecycle_status")
                 if n not in draft.fields or draft.fields[n].type == "string"]
        field_name = next((n for n in names if n in draft.fields), names[0])
        existing = draft.fields.get(field_name)
        if existing is None:
            self.warnings.append(f"{entity}: added field {field_name!r} for a status transition")
            draft.fields[field_name] = FieldSpec(
                name=field_name, type="string", enum=[*_STATUS_STATES, target], required=False,
                description=f"Where the {entity} is in its life cycle.")
            self.invented.add((entity, field_name))
        elif existing.enum:
            states = list(existing.enum)
            if target not in states:
                states.append(target)
            draft.fields[field_name] = existing.model_copy(update={"enum": states})
        return field_name

    def add_tool(self, tool: ToolSpec) -> None:
        self.tools.append(tool)

    def opaque(self, name: str, description: str, inputs: list[tuple[str, dict[str, Any], bool]],
               outputs: dict[str, Any], *, reason: str, source: str | None, writes: bool) -> None:
        """A simulated tool: its inputs and outputs as a result entity the world model fills."""
        entity = identifier(f"{name}_result")
        self.entity(entity, f"What {name} returns.").seed_count = 0
        params = []
        if len(inputs) > MAX_FIELDS - 5:
            self.warnings.append(f"tool {name!r}: {len(inputs) - MAX_FIELDS + 5} parameter(s) "
                                 "beyond the field limit left out")
        for pname, schema, required in inputs[: MAX_FIELDS - 5]:
            fname = self.add_field(entity, pname, schema, required=False)
            if fname and fname != "id":
                params.append(ParamSpec(name=fname, role="field", field=fname,
                                        required=required,
                                        description=str(schema.get("description") or "")[:300]))
        for oname, schema in outputs.items():
            self.add_field(entity, oname, schema if isinstance(schema, dict) else {})
        inputs_ = {p.field for p in params}
        if not [f for f in self.entities[entity].fields if f not in inputs_]:
            self.add_field(entity, "output_result" if "result" in inputs_ else "result",
                           {"type": "object"}, description="The result.")
        self.add_tool(ToolSpec(name=name, description=description, op="action", entity=entity,
                               params=params, action=ActionSpec(effect="compute", writes=writes),
                               simulated=True, simulated_reason=reason, source=source))

    def finish(self, *, name: str, domain: str, description: str,
               provenance: Provenance | None) -> ServiceSpec:
        """The service spec; tools the engine refuses become opaque simulated tools."""
        service = Service(name, domain=domain, description=description or name)
        for draft in self.entities.values():
            _name_people(draft)
        self._link_ids()
        entities = self._entity_specs()
        by_name = {e.name: e for e in entities}
        checked: list[ToolSpec] = []
        seen: set[str] = set()
        for tool in list(self.tools):
            if tool.name in seen:
                self.warnings.append(f"tool {tool.name!r}: duplicate name, dropped")
                continue
            seen.add(tool.name)
            try:
                _ToolBuilder(service, tool, by_name[tool.entity]).prepare()
                checked.append(tool)
            except UserError as error:
                reason = str(error).split(": ", 1)[-1]
                self.warnings.append(f"tool {tool.name!r}: {reason}; kept as simulated")
                fields = {f.name: f for f in by_name[tool.entity].fields}
                inputs = [(p.name, _schema_of(fields.get(p.field or p.name)), bool(p.required))
                          for p in tool.params]
                self.tools = []  # opaque() appends the replacement here
                self.opaque(tool.name, tool.description, inputs, {}, reason=f"engine: {reason}",
                            source=tool.source, writes=tool.op not in ("list", "get", "search"))
                checked.append(self.tools[0].model_copy(update={"rule": tool.rule}))
        self.tools = checked
        return ServiceSpec(name=name, domain=domain, description=description or name,
                           entities=self._entity_specs(), tools=checked, provenance=provenance)

    def _link_ids(self) -> None:
        """``<entity>_id`` fields name a record of that entity when a tool of this service
        reads or creates it (slack's ``channel_id`` on a message, notion's ``block_id``):
        a ``Ref``, so the graph links the tools and an unknown id is a 404."""
        resources = {t.entity for t in self.tools if not t.simulated
                     and t.op in ("list", "get", "search", "create")}
        resources = {e for e in resources if self.entities[e].seed_count > 0
                     and not self.entities[e].singleton}
        for draft in self.entities.values():
            for fname, spec in list(draft.fields.items()):
                target = fname[:-3] if fname.endswith("_id") else None
                if (target in resources and target != draft.name and spec.type == "string"
                        and not spec.enum and spec.ref is None):
                    draft.fields[fname] = spec.model_copy(update={"type": "Ref", "ref": target})
                    self.warnings.append(f"{draft.name}.{fname}: Ref[{target}] (a record another "
                                         "tool of the service reads or creates)")

    def _entity_specs(self) -> list[EntitySpec]:
        return [EntitySpec(name=d.name, description=d.description or f"A {d.name}.",
                           id_prefix=_prefix(d.name), fields=list(d.fields.values()),
                           seed_count=1 if d.singleton else d.seed_count,
                           singleton=d.singleton)
                for d in self.entities.values()]


_PERSON_NAME_FIELDS = ("name", "full_name", "display_name")
_OWN_NAMES = ("first_name", "last_name", "given_name", "family_name", "firstname", "lastname")


def _name_people(draft: Draft) -> None:
    """A record with a first or last name is a person's: its plain ``name`` / ``full_name`` /
    ``display_name`` is their PersonName (``{first_name, last_name, name, email}``)."""
    own = {draft.fields[n].type for n in _OWN_NAMES if n in draft.fields}  # not owner_first_name
    if not own & {"FirstName", "LastName"} or any(
            f.type == "PersonName" for f in draft.fields.values()):
        return
    for fname in _PERSON_NAME_FIELDS:
        f = draft.fields.get(fname)
        if f is not None and f.type == "string" and not f.enum:
            draft.fields[fname] = f.model_copy(update={"type": "PersonName"})
            return


def _schema_of(f: FieldSpec | None) -> dict[str, Any]:
    if f is None:
        return {"type": "string"}
    json_type = f.type if f.type in ("string", "integer", "number", "boolean") else "string"
    return {"type": json_type, "description": f.description}


def _prefix(name: str) -> str:
    parts = name.split("_")
    return "".join(p[0] for p in parts)[:3] if len(parts) > 1 else name[:3]
