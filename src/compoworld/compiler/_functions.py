"""Function-style tools (MCP ``tools/list``, OpenAI function definitions, the bfcl-eval dialect)
→ one :class:`ServiceSpec`.

There is no REST path here: the operation comes from the name's verb (``get_order``,
``cancelOrder``) checked against MCP annotations (``readOnlyHint``, ``destructiveHint``), and
the entity from the noun after the verb. The record identifying parameter is ``id`` or
``<entity>_id``; without one, get / update / delete stay simulated.
"""

from __future__ import annotations

from typing import Any

from compoworld.compiler._assemble import Assembler
from compoworld.compiler._result import CompileResult, SpecError
from compoworld.compiler._rules import (
    ARITHMETIC,
    COMPUTE_NOUNS,
    TRANSITIONS,
    classify_verb,
    core_noun,
    entity_name,
    identifier,
    key_like,
    natural_keys,
    plural,
    singular,
    split_verb,
)
from compoworld.compiler._schema import flatten
from compoworld.compiler._summary import summary_sentence
from compoworld.compiler._tooling import ToolPlan, emit_plan
from compoworld.service import Provenance

_TYPES = {"dict": "object", "float": "number", "tuple": "array", "int": "integer",
          "str": "string", "bool": "boolean", "list": "array", "double": "number",
          "long": "integer", "any": None}
_QUERY = {"query", "q", "keyword", "keywords", "search", "term", "text", "search_term",
          "pattern", "search_query"}
_WRITES = ("create", "update", "delete", "send", "transition")


def normalize_schema(schema: Any) -> dict[str, Any]:
    """A JSON schema with the bfcl / Python dialect types (``dict``, ``float``, ``tuple``,
    ``any``) made standard, recursively."""
    if not isinstance(schema, dict):
        return {}
    out = dict(schema)
    kind = out.get("type")
    if isinstance(kind, str) and kind in _TYPES:
        if _TYPES[kind] is None:
            out.pop("type")
        else:
            out["type"] = _TYPES[kind]
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: normalize_schema(v) for k, v in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = normalize_schema(out["items"])
    return out


def _plan(tool: dict[str, Any], inputs: dict[str, dict[str, Any]], required: list[str],
          output: dict[str, Any], dialect: str) -> tuple[ToolPlan | None, str]:
    name = str(tool["name"])
    verb, rest = split_verb(name)
    noun = core_noun(rest)
    annotations: dict[str, Any] = (tool["annotations"] if isinstance(tool.get("annotations"), dict)
                                   else {})
    read_only = annotations.get("readOnlyHint") is True
    family = classify_verb(verb)
    if not noun:
        return None, f"the name {name!r} names no resource after its verb"
    entity = entity_name("_".join(noun))
    words = set(rest) | {verb}
    hint = " (readOnlyHint)" if read_only else ""
    ids = [k for k in inputs if identifier(k) in ("id", f"{entity}_id", f"{noun[-1]}_id")]
    lookup = family is None or (family == "get" and not ids)
    if lookup or (read_only and family in _WRITES):
        if (words & COMPUTE_NOUNS and not words & ARITHMETIC and output.get("properties")
                and inputs):
            return ToolPlan(op="compute", entity=entity, noun="_".join(noun),
                            rule=f"compute:{'_'.join(noun)} → compute", source=name), ""
        if read_only and family in _WRITES:
            return None, f"verb {verb!r} writes but the tool is marked readOnlyHint"
    if family is None:
        return None, f"verb {verb!r} has no rule"
    if annotations.get("destructiveHint") is True and family not in ("delete", "transition",
                                                                      "update"):
        return None, f"marked destructiveHint but verb {verb!r} reads or creates"
    if any(v.get("type") == "array" and isinstance(v.get("items"), dict)
           and v["items"].get("type") == "object" for v in inputs.values()) and family in _WRITES:
        return None, "bulk operation over a list of records"
    plan = ToolPlan(op=family, entity=entity, noun="_".join(noun), source=name, verb=verb,
                    query_names=_QUERY, rule=f"{dialect}:verb {verb} → {family}{hint}")
    if family in ("get", "update", "delete", "transition") and not ids:
        keys = natural_keys(required, family)
        if not keys:
            return None, f"no parameter identifies the {entity} (id, {entity}_id or a key)"
        plan.keys = keys
        plan.rule = f"{dialect}:verb {verb} by key {', '.join(keys)} → {family}{hint}"
    elif family in ("get", "update", "delete", "transition"):
        plan.id_param = ids[0]
    last = noun[-1]
    if family == "list" and singular(last) == last and plural(last) != last and any(
            key_like(k) for k in required):
        return None, f"listing one {entity}'s contents (no collection named) has no rule"
    if family == "search" and not any(identifier(k) in _QUERY for k in inputs):
        plan.op, plan.rule = "list", f"{dialect}:verb {verb} (filters only) → list"
    if family == "transition":
        plan.target = TRANSITIONS[verb]
        by = f" by key {', '.join(plan.keys)}" if plan.keys else ""
        plan.rule = f"action:verb {verb}{by} → transition status={plan.target}"
    elif family in ("send", "count", "summary"):
        plan.rule = {"send": f"action:verb {verb} → send {entity}",
                     "count": "action:count → count"}.get(family, f"action:verb {verb} → summary")
    return plan, ""


def _compile(tools: list[dict[str, Any]], *, name: str, domain: str, provenance: Provenance,
             dialect: str, input_key: str, output_key: str) -> CompileResult:
    source = provenance.source
    asm = Assembler(source)
    descriptions = []
    for i, raw in enumerate(tools):
        tool = raw.get("function") if isinstance(raw, dict) and "function" in raw else raw
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            raise SpecError("a tool must be an object with a 'name'", source=source, place=f"/{i}")
        schema = normalize_schema(tool.get(input_key) or tool.get("parameters") or {})
        if schema.get("type", "object") != "object":
            raise SpecError(f"'{input_key}' must be an object schema", source=source,
                            place=f"/{i}/{input_key}")
        props = {str(k): v for k, v in (schema.get("properties") or {}).items()
                 if isinstance(v, dict)}
        required = [str(r) for r in schema.get("required") or []]
        output = normalize_schema(tool.get(output_key) or {})
        record = flatten({str(k): v for k, v in (output.get("properties") or {}).items()
                          if isinstance(v, dict)})
        description = str(tool.get("description") or tool["name"]).strip()
        descriptions.append(description)
        inputs = [(k, v, k in required) for k, v in props.items()]
        plan, reason = _plan(tool, props, required, output, dialect)
        tool_name = identifier(tool["name"], "tool")
        if plan is None:
            writes = not (isinstance(tool.get("annotations"), dict)
                          and tool["annotations"].get("readOnlyHint") is True)
            asm.opaque(tool_name, description, inputs, record, reason=reason,
                       source=tool["name"], writes=writes)
            continue
        plan.name, plan.description = tool_name, description
        emit_plan(asm, plan, inputs, record if plan.op in ("get", "compute") else {})
    spec = asm.finish(name=identifier(name, "service"), domain=domain,
                      description=f"{name}: " + "; ".join(
                          summary_sentence(d).rstrip(".") for d in descriptions[:3]),
                      provenance=provenance)
    return CompileResult(spec, asm.warnings)


def compile_mcp(tools: list[dict[str, Any]] | dict[str, Any], *, name: str, domain: str,
                provenance: Provenance) -> CompileResult:
    """Compile an MCP server's ``tools/list`` result (``{"tools": [...]}`` or the list).

    Uses each tool's ``inputSchema``, ``outputSchema`` (record fields of get / compute tools)
    and ``annotations`` (``readOnlyHint`` forbids mapping to a write).

    Raises:
        SpecError: A tool has no name or a non-object input schema (names the source and place).
    """
    if isinstance(tools, dict):
        if not isinstance(tools.get("tools"), list):
            raise SpecError("expected {'tools': [...]}", source=provenance.source, place="/tools")
        tools = tools["tools"]
    return _compile(list(tools) if isinstance(tools, list) else [], name=name, domain=domain,
                    provenance=provenance, dialect="mcp", input_key="inputSchema",
                    output_key="outputSchema")


def compile_openai_functions(functions: list[dict[str, Any]], *, name: str, domain: str,
                             provenance: Provenance) -> CompileResult:
    """Compile OpenAI function definitions (plain or ``{"type": "function", "function": ...}``),
    including the bfcl-eval dialect (types ``dict``, ``float``, ``tuple``, ``any`` and a
    ``response`` schema).

    Raises:
        SpecError: A function has no name or non-object parameters (names the source and place).
    """
    if not isinstance(functions, list):
        raise SpecError("expected a list of function definitions", source=provenance.source)
    return _compile(functions, name=name, domain=domain, provenance=provenance, dialect="fn",
                    input_key="parameters", output_key="response")
