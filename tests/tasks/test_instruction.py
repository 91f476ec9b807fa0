import random
import re
import statistics
from datetime import date

import pytest

from compoworld.catalog import load_service, service_names
from compoworld.tasks import Task, build_world, generate_tasks
from compoworld.tasks._context import context
from compoworld.tasks._generate import GenerationSettings
from compoworld.tasks._instruction import instruction, leaked
from compoworld.tasks._phrasing import compare, field_words, relative_day, superlative
from compoworld.tasks._purpose import purpose_for
from compoworld.tasks._rewrite import stated_values
from compoworld.tasks._service_names import display_name


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    direct = list(generate_tasks(70, seed=3))
    gateway = list(generate_tasks(30, 4, GenerationSettings(interface="gateway")))
    return direct + gateway


def _steps(task: Task):
    condition = task.condition
    return [*task.plan, condition.then] if condition and not condition.holds else task.plan


def _identifiers(task: Task) -> set[str]:
    """Every tool and service identifier the text must not hold: qualified tool names, bare
    tool names and service names with an underscore, of the task's world."""
    env = build_world(task).env
    names = set()
    for service in [*task.involved, *task.distractors]:
        qualified = {n for n in env.tools if n.startswith(service + "__")}
        names |= qualified | {n.split("__", 1)[1] for n in qualified
                              if "_" in n.split("__", 1)[1]}
        if "_" in service:
            names.add(service)
    return names


def test_no_instruction_names_a_tool_or_a_service_by_its_identifier(tasks):
    assert {t.interface for t in tasks} == {"direct", "gateway"}
    for task in tasks:
        for name in _identifiers(task):
            assert not re.search(rf"(?<![\w.@/-]){re.escape(name)}(?![\w])", task.instruction), \
                (name, task.instruction)
        assert "__" not in task.instruction
        # Single-word services (mail, crm...) are named as a person names them, not "in mail:".
        for service in task.involved:
            assert f"in {service}:" not in task.instruction


def test_every_value_the_user_knows_is_stated_and_none_to_find_leaks(tasks):
    for task in tasks:
        text = task.instruction.casefold()
        for value in stated_values(_steps(task)):
            assert value.casefold() in text, (value, task.instruction)
        limited = bool(task.scenario and task.scenario.rule
                       and task.scenario.rule.kind == "threshold")
        if task.condition is not None and not limited:  # a threshold rule: in the email only
            assert str(task.condition.threshold) in task.instruction
        assert not leaked(task.instruction, _steps(task)), task.instruction


def test_instructions_are_requests_in_the_users_voice_in_two_styles(tasks):
    checklists = [t for t in tasks if re.search(r"^1\. ", t.instruction, re.MULTILINE)]
    assert 0.35 < len(checklists) / len(tasks) < 0.9  # about 2 in 3 (of tasks with 2+ items)
    assert len(checklists) < len(tasks)  # prose too
    voiced = 0
    for task in tasks:
        assert "Today is " in task.instruction
        # The user says who they are, unless their own name is something a step looks up.
        voiced += context(task.seed).initial.pool.user.name in task.instruction
        assert not re.search(r"\b(First|Then|Next), in \w+:", task.instruction)  # the old script
    assert voiced >= 0.8 * len(tasks)
    median = statistics.median(len(t.instruction.split()) for t in tasks)
    assert 100 <= median <= 400, median


def test_answers_are_asked_for_at_the_end(tasks):
    asking = [t for t in tasks if any(c.kind == "answer" for c in t.rubric)]
    assert asking
    for task in asking:
        assert "tell me the " in task.instruction.casefold()


def test_the_same_task_gives_the_same_text_and_notes_are_placed(tasks):
    task = next(t for t in tasks if t.provenance["run_seed"] == 3 and len(t.plan) >= 3)
    env = build_world(task).env  # the task's own world (worlds vary within a run)
    answer = next((c for c in task.rubric if c.kind == "answer"), None)
    scenario = task.scenario
    extra = {} if scenario is None else {"notes": scenario.notes, "rule": scenario.rule,
                                          "traps": scenario.traps}
    extra["purpose"] = purpose_for(task.provenance["motif"], task.plan, env)  # walks motif
    text = instruction(task.plan, env, answer, task.condition, **extra)
    assert text == task.instruction == instruction(task.plan, env, answer, task.condition,
                                                   **extra)
    notes = ["Follow the refund policy in the team wiki.", "Some of these are already done."]
    for seed in range(6):
        noted = instruction(task.plan, env, answer, task.condition, notes=notes,
                            rng=random.Random(seed))
        assert all(note in noted for note in notes)
        assert noted.rfind(notes[1]) > noted.find("1.") if "1." in noted else True


def test_services_are_named_as_a_person_names_them():
    named = {n: display_name(load_service(n)) for n in service_names()}
    assert named["mail"] == "my mailbox" and named["crm"] == "the CRM"
    assert named["apideck_ats"] == "the Apideck ATS"
    assert named["google_tasks"] == "Google Tasks"
    assert named["twilio_fax_v1"] == "Twilio Fax"
    for name, shown in named.items():
        assert "_" not in shown and shown.strip(), (name, shown)
    assert len(set(named.values())) == len(named)  # no two services share a name


def test_words_for_fields_selections_dates_and_conditions():
    assert field_words("assignee_email", "Email") == "assignee's email address"
    assert field_words("display_name", "PersonName") == "display name"
    assert field_words("to", "Email") == "recipient's email address"
    assert superlative("sent_at", "max", "message") == "the most recent message"
    assert superlative("birthday", "max", "contact") == "the youngest contact"
    assert superlative("close_date", "min", "deal") == "the deal with the earliest close date"
    monday = date(2026, 3, 2)
    assert relative_day("2026-03-06", monday) == "this Friday"
    assert relative_day("2026-03-10", monday) == "next Tuesday"
    assert relative_day("2026-05-10", monday) is None
    assert compare("issue_date", "lt", "2025-09-07", "that invoice") == \
        "that invoice was issued before 2025-09-07"
    assert compare("amount", "gt", 3600, "that invoice") == \
        "the amount of that invoice is more than 3600"
