"""The compiler: real tool specifications (OpenAPI, MCP, OpenAI functions) → verified services.

Each importer turns a source into a :class:`~compoworld.service.ServiceSpec` whose tools record
the rule that mapped them; :func:`verify_spec` runs conformance generated from the spec and
switches every tool that fails to simulated, with the failure as the reason.

Example:
    >>> from compoworld.compiler import compile_openai_functions, verify_spec
    >>> from compoworld.service import Provenance
    >>> fns = [{"name": "list_notes", "description": "List notes.", "parameters": {
    ...     "type": "object", "properties": {"title": {"type": "string"}}}}]
    >>> result = compile_openai_functions(fns, name="notes", domain="productivity",
    ...                                   provenance=Provenance(source="example"))
    >>> verify_spec(result.spec).implemented
    ['list_notes']
"""

from compoworld.compiler._functions import compile_mcp, compile_openai_functions
from compoworld.compiler._openapi import compile_openapi
from compoworld.compiler._result import CompileResult, SpecError, ToolCheck, VerifyResult
from compoworld.compiler._rules import RULES
from compoworld.compiler._semantic import infer_semantic
from compoworld.compiler._verify import verify_spec
from compoworld.service import Provenance

__all__ = [
    "RULES",
    "CompileResult",
    "Provenance",
    "SpecError",
    "ToolCheck",
    "VerifyResult",
    "compile_mcp",
    "compile_openai_functions",
    "compile_openapi",
    "infer_semantic",
    "verify_spec",
]
