import json
import sys

import pytest
from typer.testing import CliRunner

from compoworld.catalog import service_names
from compoworld.cli import app, main

runner = CliRunner()


def test_services_list_json():
    result = runner.invoke(app, ["services", "list", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["name"] for r in rows] == service_names()
    contacts = next(r for r in rows if r["name"] == "contacts")
    assert contacts["domain"] == "people" and contacts["tools"] >= 8


def test_services_show_json_and_table():
    result = runner.invoke(app, ["services", "show", "contacts", "--json"])
    shown = json.loads(result.stdout)
    assert {t["name"] for t in shown["tools"]} >= {"get_contact", "create_contact"}
    assert any(e["name"] == "contact" for e in shown["entities"])
    table = runner.invoke(app, ["services", "show", "contacts"])
    assert table.exit_code == 0 and "get_contact" in table.stdout


def test_call_prints_the_envelope_and_exit_code_follows_success():
    ok = runner.invoke(app, ["call", "contacts", "list_contacts", "--args", '{"limit": 2}'])
    assert ok.exit_code == 0
    envelope = json.loads(ok.stdout)
    assert envelope["success"] and len(envelope["data"]["items"]) == 2
    missing = runner.invoke(app, ["call", "contacts", "get_contact", "--args",
                                  '{"contact_id": "nope"}'])
    assert missing.exit_code == 1
    assert json.loads(missing.stdout)["error"]["code"] == 404


def test_same_seed_same_output():
    args = ["call", "contacts", "list_contacts", "--args", '{"limit": 3}', "--seed", "9"]
    assert runner.invoke(app, args).stdout == runner.invoke(app, args).stdout


def test_user_errors_are_one_clear_line(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["compoworld", "call", "contact", "get_contact"])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "unknown service 'contact'" in err and "did you mean 'contacts'" in err
    assert "Traceback" not in err


def test_bad_json_arguments_are_a_user_error():
    result = runner.invoke(app, ["call", "contacts", "list_contacts", "--args", "{nope"])
    assert result.exit_code != 0
    assert "not valid JSON" in str(result.exception)


def test_types_json():
    result = runner.invoke(app, ["types", "--json"])
    rows = json.loads(result.stdout)
    assert len(rows) >= 25 and {"Email", "Phone", "Date"} <= {r["name"] for r in rows}


@pytest.mark.slow
def test_demo_runs_on_the_embedded_defaults_and_writes_its_artifacts(tmp_path):
    result = runner.invoke(app, ["demo", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "services pass" in result.stdout
    story = json.loads((tmp_path / "story.json").read_text())
    tools = [step["tool"] for step in story]
    assert {t.split("__")[0] for t in tools} == {"payments", "contacts", "crm", "calendar", "mail"}
    # Information flows: the email found in payments is the one mail sends to.
    customer = next(s["data"] for s in story if s["tool"] == "payments__get_customer")
    sent = next(s for s in story if s["tool"] == "mail__send_message")
    assert sent["arguments"]["to"] == [customer["email"]]
    assert sent["data"]["to"] == [customer["email"]]
    openai = json.loads((tmp_path / "openai_tools.json").read_text())
    assert len(openai) == sum(r["tools"] for r in json.loads((tmp_path / "services.json").read_text()))
    tasks = [json.loads(line) for line in (tmp_path / "tasks.jsonl").read_text().splitlines()]
    assert tasks and all(all(t["verification"].values()) for t in tasks)
    image = (tmp_path / "world.sqlite").read_bytes()
    assert image.startswith(b"SQLite format 3\x00")
