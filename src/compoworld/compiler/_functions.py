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
from compoworld.compiler._relation import read_relation, relation_plan
from compoworld.compiler._result import CompileResult, SpecError
from compoworld.compiler._rules import (
    ARITHMETIC,
    COMPUTE_NOUNS,
    TRANSITIONS,
    classify_verb,
    core_noun,
    entity_name,
    has_verb,
    identifier,
    key_like,
    natural_keys,
    plural,
    scope_like,
    singular,
    split_verb,
)
from compoworld.compiler._schema import flatten
from compoworld.compiler._summary import summary_sentence, summary_text
from compoworld.compiler._tooling import ToolPlan, emit_plan
from compoworld.service import Provenance

_TYPES = {"dict": "object", "float": "number", "tuple": "array", "int": "integer",
          "str": "string", "bool": "boolean", "list": "array", "double": "number",
          "long": "integer", "any": None}
_QUERY = {"query", "q", "keyword", "keywords", "search", "term", "text", "search_term",
          "pattern", "search_query"}
_TEXT_QUERY = {"query", "q", "search", "keyword", "keywords", "search_term", "search_query",
               "search_text"}
"""Inputs of a list that are text to look for (not ``text`` or ``term``, often a record's own
field): the list is a search."""
_WRITES = ("create", "update", "delete", "send", "transition")
_SETS_BY_KEY = {"set", "put", "upsert", "save", "store", "write"}
"""Verbs that set a value under a key whether or not it exists (``set_config_value(key,
value)``)."""


def normalize_schema(schema: Any, defs: dict[str, Any] | None = None,
                     depth: int = 0) -> dict[str, Any]:
    """A JSON schema with the bfcl / Python dialect types (``dict``, ``float``, ``tuple``,
    ``any``) made standard, local ``$ref``s into ``$defs`` / ``definitions`` resolved and a
    nullable ``anyOf`` (pydantic's ``Optional[X]``) read as ``X``, recursively."""
    if not isinstance(schema, dict) or depth > 8:
        return {}
    if defs is None:
        defs = {**(schema.get("definitions") or {}), **(schema.get("$defs") or {})}
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/") and ref.rsplit("/", 1)[-1] in defs:
        target = defs[ref.rsplit("/", 1)[-1]]
        merged = {**(target if isinstance(target, dict) else {}),
                  **{k: v for k, v in schema.items() if k != "$ref"}}
        return normalize_schema(merged, defs, depth + 1)
    out = {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
    options = out.get("anyOf") or out.get("oneOf")
    if "type" not in out and isinstance(options, list):
        real = [o for o in options if isinstance(o, dict) and o.get("type") != "null"]
        if len(real) == 1:
            out.pop("anyOf", None)
            out.pop("oneOf", None)
            out = {**normalize_schema(real[0], defs, depth + 1), **out}
    kind = out.get("type")
    if isinstance(kind, list):  # ["string", "null"]
        kinds = [k for k in kind if k != "null"]
        out["type"] = kind = kinds[0] if len(kinds) == 1 else None
        if kind is None:
            out.pop("type")
    if isinstance(kind, str) and kind in _TYPES:
        if _TYPES[kind] is None:
            out.pop("type")
        else:
            out["type"] = _TYPES[kind]
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: normalize_schema(v, defs, depth + 1)
                             for k, v in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = normalize_schema(out["items"], defs, depth + 1)
    return out


_WRAPPERS = {"request", "params", "parameters", "input", "inputs", "args", "arguments", "body",
             "payload", "data", "options", "query", "req"}


def _wrapper(props: dict[str, dict[str, Any]]) -> str | None:
    """The one object parameter that holds every real input (``{"request": {...}}``), if any."""
    if len(props) != 1:
        return None
    (name, schema), = props.items()
    inner = schema.get("properties")
    return name if (schema.get("type", "object") == "object" and isinstance(inner, dict)
                    and inner and identifier(name) in _WRAPPERS) else None


def _marked(name: str) -> tuple[list[str], str] | None:
    """``mark_task_done`` / ``mark_message_as_read`` → (``["task"]``, ``"done"``): the noun
    and the state a ``mark`` name sets, or None."""
    parts = identifier(name).split("_")
    if "mark" not in parts[:3]:
        return None
    rest = parts[parts.index("mark") + 1:]
    if "as" in rest:
        at = rest.index("as")
        noun, state = rest[:at], "_".join(rest[at + 1:])
    else:
        noun, state = rest[:-1], rest[-1] if rest else ""
    return (noun, state) if noun and state else None


def _many(answer: dict[str, Any]) -> bool:
    """Whether an answer schema is an array, or an envelope around one."""
    for _ in range(3):
        if answer.get("type") == "array":
            return True
        props = answer.get("properties") or {}
        lists = [v for k, v in props.items() if isinstance(v, dict) and v.get("type") == "array"
                 and k != "content"]  # MCP's content blocks are the answer's form, not records
        if len(lists) != 1 or len(props) > 4:
            return False
        answer = lists[0]
    return False


def _listing(noun: list[str], description: str) -> bool:
    """Whether a get answers several records by its name or description: a plural noun
    (``get_issues``, ``get_block_children``), or "List ...", "Returns a list of ..."."""
    last = noun[-1]
    if singular(last) != last and last not in _NOT_PLURAL:
        return True
    head = description.strip().lower()
    return head.startswith(("list ", "lists ", "returns a list", "return a list", "get a list",
                            "gets a list", "retrieve a list", "retrieves a list"))


_VERDICT_VERBS = {"verify", "check", "validate"}
"""Verbs asking whether something holds: with a yes / no in the answer, a question about the
inputs (``compute``), not a lookup or a status change of a record they would name."""


def _verdict(output: dict[str, Any]) -> bool:
    """Whether an answer holds a yes / no (a boolean property: ``verification_status``)."""
    return any(isinstance(v, dict) and v.get("type") == "boolean"
               for v in (output.get("properties") or {}).values())


_READ_OR_WRITE = {"open"}
"""Verbs that create (``open_account``, ``open_ticket``) unless their object is a reading."""
_READ_TAILS = {"details", "detail", "info", "information", "contents", "content"}
"""Words naming a reading of a record: ``open_task_details`` opens the task's details."""

_ORDINALS = {"next", "previous", "prev", "latest", "last", "first", "newest", "oldest",
             "current", "random", "top"}
"""``get_next_task``: the record an order picks (the next pending task), not one named."""

_NOT_PLURAL = {"contents", "status", "address", "access", "analysis", "news", "data", "media", "business",
               "details", "settings", "metadata", "series", "species", "alias", "class", "canvas",
               "process", "progress", "stats", "statistics", "tos", "dns", "sms", "https", "bus"}


def _plan(tool: dict[str, Any], inputs: dict[str, dict[str, Any]], required: list[str],
          output: dict[str, Any], dialect: str, *, many: bool = False, namespace: str = ""
          ) -> tuple[ToolPlan | None, str]:
    name = str(tool["name"])
    verb, rest = split_verb(name)
    marked = _marked(name)
    if marked is not None:
        verb, rest = "mark", marked[0]
    if not has_verb(name) and marked is None and not set(identifier(name).split("_")) & (
            COMPUTE_NOUNS - {"score"}):
        return None, f"the name {name!r} holds no verb the rules know"
    if rest[:1] == ["or"] and len(rest) > 1 and classify_verb(rest[1]):
        return None, (f"{verb!r} or {rest[1]!r} in one call (an upsert or a choice of "
                      "operations) has no rule")
    noun = core_noun(rest)
    if noun and noun[0] in _ORDINALS and classify_verb(verb) == "get" and len(noun) > 1 and (
            singular(noun[-1]) == noun[-1]):
        return None, (f"{' '.join(noun[:1])!r} {noun[-1]} is chosen by an order the engine "
                      "does not know, not named")
    relation = read_relation(verb, rest)
    planned = relation_plan(name, verb, relation, inputs, required, dialect) if relation else None
    if planned is not None:
        return planned
    wrapped = _wrapper(inputs)
    if wrapped:
        return None, (f"every input is wrapped in the object {wrapped!r} (the engine takes "
                      "flat arguments)")
    annotations: dict[str, Any] = (tool["annotations"] if isinstance(tool.get("annotations"), dict)
                                   else {})
    read_only = annotations.get("readOnlyHint") is True
    family = "transition" if marked is not None else classify_verb(verb)
    if verb in _READ_OR_WRITE and rest and rest[-1] in _READ_TAILS:
        family = "get"  # open_task_details reads the task; open_account creates one
    if not noun or (namespace and "_".join(noun) == namespace
                    and identifier(name).startswith(f"{namespace}_")):
        # git's git_add(repo_path, files): `git` is the server, no resource of it
        return None, f"the name {name!r} names no resource after its verb"
    entity = entity_name("_".join(noun))
    words = set(identifier(name).split("_"))
    hint = " (readOnlyHint)" if read_only else ""
    ids = [k for k in inputs if identifier(k) in ("id", f"{entity}_id", f"{noun[-1]}_id")]
    lookup = family is None or (family == "get" and not ids)
    if verb in _VERDICT_VERBS and not ids and inputs and _verdict(output):
        # verify_traveler_information(first_name, ...) → {verification_status: false}: a
        # question about the inputs, answered yes or no, never a 404 for an unknown traveler
        return ToolPlan(op="compute", entity=entity, noun="_".join(noun), source=name,
                        rule=f"compute:verb {verb} answering a verdict → compute"), ""
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
    if words & {"batch", "bulk"}:  # hubspot-batch-read-objects(inputs=[{id}...]) too
        return None, "batch operation (one call over many records)"
    if family == "summary" and singular(noun[-1]) == noun[-1] and noun[-1] not in _NOT_PLURAL \
            and required:
        # mongodb's db-stats(database): the figures of the one database named, never an
        # aggregate over records
        return None, (f"statistics of one {entity} (its own figures, not an aggregate over "
                      "records) have no rule")
    if family == "get" and not ids and (many or _listing(noun, str(tool.get("description") or ""))):
        family, many = "list", True
    plural_ = f" + plural {'_'.join(noun)}" if family == "list" and verb != "list" else ""
    plan = ToolPlan(op=family, entity=entity, noun="_".join(noun), source=name, verb=verb,
                    query_names=_QUERY, rule=f"{dialect}:verb {verb}{plural_} → {family}{hint}")
    if family in ("get", "update", "delete", "transition") and not ids:
        keys = natural_keys(required, family)
        scalars = [k for k in required if inputs.get(k, {}).get("type", "string") in (
            "string", "integer", "number")]
        if keys is None and family in ("get", "delete") and len(scalars) == len(required) and any(
                key_like(k) for k in required):
            keys = list(required)  # owner + repo + issue_number name one issue together
        if not keys:
            return None, f"no parameter identifies the {entity} (id, {entity}_id or a key)"
        plan.keys = keys
        plan.rule = f"{dialect}:verb {verb} by key {', '.join(keys)} → {family}{hint}"
        if verb in _SETS_BY_KEY and family == "update":
            # set_config_value(key, value): sets the value under the key, new or not
            plan.upsert = True
            plan.rule = f"{dialect}:verb {verb} by key {', '.join(keys)} → upsert{hint}"
    elif family in ("get", "update", "delete", "transition"):
        plan.id_param = ids[0]
        plan.keys = scope_of(ids[0], inputs, required, family)
        if plan.keys:
            plan.rule = f"{dialect}:verb {verb} scoped by {', '.join(plan.keys)} → {family}{hint}"
    last = noun[-1]
    if family == "list" and singular(last) == last and plural(last) != last and any(
            key_like(k) for k in required):
        return None, f"listing one {entity}'s contents (no collection named) has no rule"
    if family == "search" and not any(identifier(k) in _QUERY for k in inputs):
        plan.op, plan.rule = "list", f"{dialect}:verb {verb} (filters only) → list"
    elif family == "list" and any(identifier(k) in _TEXT_QUERY for k in inputs):
        # gitlab's list_issues(search="bug"): text matched against the records, never an
        # equality filter on an invented `search` field
        plan.op, plan.rule = "search", f"{dialect}:verb {verb} + text query → search{hint}"
    if family == "transition":
        plan.target = marked[1] if marked is not None else TRANSITIONS[verb]
        by = f" by key {', '.join(plan.keys)}" if plan.keys else ""
        plan.rule = f"action:verb {verb}{by} → transition status={plan.target}"
    elif family in ("send", "count", "summary"):
        plan.rule = {"send": f"action:verb {verb} → send {entity}",
                     "count": "action:count → count"}.get(family, f"action:verb {verb} → summary")
    return plan, ""


def scope_of(id_param: str, inputs: dict[str, dict[str, Any]], required: list[str],
             family: str) -> list[str]:
    """The inputs beside a record's id that scope it: gitlab's
    ``get_merge_request_note(project_id, merge_request_iid, note_id)`` names note ``note_id``
    of merge request ``merge_request_iid`` of project ``project_id``; the note must be theirs.

    Scalar inputs named as ids of other records (``*_id``, ``*_iid``...) or as scopes
    (``owner``, ``repo``, ``workspace``...); a get or delete also takes required key-like
    names (``branch_name``); an update or transition only required ids and scopes, since an
    optional one is a value it writes (``milestone_id``).
    """
    out = []
    for name, schema in inputs.items():
        if name == id_param or schema.get("type", "string") not in ("string", "integer"):
            continue
        named = scope_like(name)
        if family in ("get", "delete"):
            if named or (name in required and key_like(name)):
                out.append(name)
        elif named and name in required:
            out.append(name)
    return out


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name_2``, ``name_3``... when another tool already has it."""
    out, n = name, 2
    while out in taken:
        out, n = f"{name}_{n}", n + 1
    return out


def _unwrapped(output: dict[str, Any]) -> dict[str, Any]:
    """The record inside an answer: the items of an array, or the one object or array of
    objects an envelope holds (``{"result": {...}}``, ``{"items": [...]}``)."""
    for _ in range(3):
        if output.get("type") == "array" and isinstance(output.get("items"), dict):
            output = output["items"]
            continue
        props = output.get("properties") or {}
        inner = [v for v in props.values() if isinstance(v, dict)
                 and (v.get("properties") or v.get("type") == "array")]
        if len(props) == 1 and len(inner) == 1:
            output = inner[0]
            continue
        break
    return output if output.get("type", "object") == "object" else {}


def _compile(tools: list[dict[str, Any]], *, name: str, domain: str, provenance: Provenance,
             dialect: str, input_key: str, output_key: str, about: str = "") -> CompileResult:
    source = provenance.source
    asm = Assembler(source)
    descriptions = []
    taken: set[str] = set()
    planned: list[tuple[dict[str, Any], str, str, list[tuple[str, dict[str, Any], bool]],
                        dict[str, Any], ToolPlan | None, str]] = []
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
        answer = normalize_schema(tool.get(output_key) or {})
        output = _unwrapped(answer)
        record = flatten({str(k): v for k, v in (output.get("properties") or {}).items()
                          if isinstance(v, dict)})
        description = str(tool.get("description") or tool["name"]).strip()
        descriptions.append(description)
        inputs = [(k, v, k in required) for k, v in props.items()]
        plan, reason = _plan(tool, props, required, output, dialect, many=_many(answer),
                             namespace=identifier(name, "service"))
        tool_name = unique_name(identifier(tool["name"], "tool", limit=None), taken)
        taken.add(tool_name)
        planned.append((tool, tool_name, description, inputs, record, plan, reason))
    replies = {p.entity for *_, p, _ in planned if p is not None}
    for tool, tool_name, description, inputs, record, plan, reason in planned:
        if plan is None:
            writes = not (isinstance(tool.get("annotations"), dict)
                          and tool["annotations"].get("readOnlyHint") is True)
            asm.opaque(tool_name, description, inputs, record, reason=reason,
                       source=tool["name"], writes=writes)
            continue
        if plan.verb == "reply" and f"{plan.entity}_reply" in replies:
            # slack's reply_to_thread writes a thread reply, which get_thread_replies lists
            plan.entity = f"{plan.entity}_reply"
            plan.rule = f"action:verb reply → send {plan.entity}"
        plan.name, plan.description = tool_name, description
        emit_plan(asm, plan, inputs, record if plan.op in ("get", "compute") else {})
    firsts = (summary_sentence(d) for d in descriptions)
    sentences = " ".join(dict.fromkeys(
        f if f.endswith((".", "!", "?", "…")) else f"{f}." for f in firsts if f))
    about = summary_text(about, limit=500) or f"{name}: {summary_text(sentences, limit=300)}"
    spec = asm.finish(name=identifier(name, "service"), domain=domain, description=about,
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
    about = ""
    if isinstance(tools, dict):
        if not isinstance(tools.get("tools"), list):
            raise SpecError("expected {'tools': [...]}", source=provenance.source, place="/tools")
        text = str(tools.get("description") or "")
        about = "" if text.startswith("Tools of the MCP server") else text  # harvest's default
        tools = tools["tools"]
    return _compile(list(tools) if isinstance(tools, list) else [], name=name, domain=domain,
                    provenance=provenance, dialect="mcp", input_key="inputSchema",
                    output_key="outputSchema", about=about)


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
