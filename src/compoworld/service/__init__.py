"""The service runtime: typed state on SQLite, tools, the result envelope, conformance.

Two ways to declare a service, one runtime:

* hand-written — a small module with a :class:`Service`, :class:`Entity` classes and typed,
  documented tool functions (``@service.read`` / ``@service.write``);
* declarative — a :class:`ServiceSpec` (JSON on disk) run by the generic engine
  (:func:`build_service`); this is what the compiler emits.

Services are mounted in an :class:`Environment` (one in-memory SQLite database) and called by
qualified name; every call returns an envelope and a failed call leaves no trace.
"""

from compoworld.service._check import CheckReport, check_service, sample_arguments
from compoworld.service._db import Change, Db, Table
from compoworld.service._engine import build_service
from compoworld.service._entity import Column, Entity, Page, Result
from compoworld.service._envelope import Envelope, fail, ok
from compoworld.service._environment import SEPARATOR, Environment, ToolFailure, qualified_name
from compoworld.service._image import seeding_version
from compoworld.service._openai import openai_tools
from compoworld.service._service import Service
from compoworld.service._simulation import SimulatedCall, Simulator, SimulatorStats
from compoworld.service._spec import (
    ActionSpec,
    EntitySpec,
    FieldSpec,
    ParamSpec,
    Provenance,
    ServiceSpec,
    ToolSpec,
    load_spec,
    save_spec,
)
from compoworld.service._tool import Param, Tool, ToolKind
from compoworld.service._trial import Trial, trial

__all__ = [
    "SEPARATOR",
    "ActionSpec",
    "Change",
    "CheckReport",
    "Column",
    "Db",
    "Entity",
    "EntitySpec",
    "Envelope",
    "Environment",
    "FieldSpec",
    "Page",
    "Param",
    "ParamSpec",
    "Provenance",
    "Result",
    "Service",
    "ServiceSpec",
    "SimulatedCall",
    "Simulator",
    "SimulatorStats",
    "Table",
    "Tool",
    "ToolFailure",
    "ToolKind",
    "ToolSpec",
    "Trial",
    "build_service",
    "check_service",
    "fail",
    "load_spec",
    "ok",
    "openai_tools",
    "qualified_name",
    "sample_arguments",
    "save_spec",
    "seeding_version",
    "trial",
]
