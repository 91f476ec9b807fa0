"""Services from other packages arrive through the entry-point group ``compoworld.services``."""

from importlib import metadata

import pytest

import compoworld.catalog as catalog
from compoworld.errors import UserError
from compoworld.service import ServiceSpec

PLUGIN_SPEC = ServiceSpec.model_validate({
    "name": "plugin_notes", "domain": "test", "description": "Notes from a plugin package.",
    "entities": [{"name": "note", "fields": [{"name": "title", "type": "string"}],
                  "seed_count": 3}],
    "tools": [{"name": "get_note", "description": "Get a note.", "op": "get", "entity": "note",
               "params": [{"name": "note_id", "role": "id", "description": "The note."}]}],
})


def make_spec() -> ServiceSpec:
    return PLUGIN_SPEC


@pytest.fixture
def plugins(monkeypatch):
    def install(*values: str):
        points = [metadata.EntryPoint(name=f"p{i}", value=v, group=catalog.ENTRY_POINT_GROUP)
                  for i, v in enumerate(values)]
        monkeypatch.setattr(catalog.metadata, "entry_points",
                            lambda group: points if group == catalog.ENTRY_POINT_GROUP else [])
        catalog._discover.cache_clear()

    yield install
    catalog._discover.cache_clear()


def test_a_plugin_factory_returning_a_spec_joins_the_catalog(plugins):
    plugins(f"{__name__}:make_spec")
    assert "plugin_notes" in catalog.service_names()
    assert catalog.load_service("plugin_notes").origin == "spec"


def test_a_plugin_that_is_not_a_service_is_a_clear_error(plugins):
    plugins("os.path:sep")
    with pytest.raises(UserError, match="is not a Service or ServiceSpec"):
        catalog.service_names()


def test_a_plugin_may_not_take_a_builtin_name(plugins):
    plugins("compoworld.catalog.people.contacts:service", f"{__name__}:make_spec")
    assert "contacts" in catalog.service_names()  # the same object twice is fine
    other = PLUGIN_SPEC.model_copy(update={"name": "contacts"})
    globals()["clash"] = lambda: other
    plugins(f"{__name__}:clash")
    with pytest.raises(UserError, match="two services are named 'contacts'"):
        catalog.service_names()
