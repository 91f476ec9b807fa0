import random

from faker import Faker

from compoworld.graph import extract_facts
from compoworld.service import SEPARATOR
from compoworld.tasks import GenerationStats, Step, Task, generate_task, generate_tasks, score
from compoworld.tasks._context import LINK_TYPES, carries, context
from compoworld.tasks._fill import Known
from compoworld.tasks._generate import GenerationSettings, _attempt
from compoworld.tasks._instruction import _action
from compoworld.tasks._phrasing import superlative
from compoworld.tasks._rubric import state_criteria
from compoworld.tasks._walk import Walk, _try_step
from compoworld.world import choose_distractors, compose


def test_only_identifying_types_carry_a_value_across_services():
    assert carries(("type", "Email"), cross=True) and carries(("type", "PersonName"), cross=True)
    assert not carries(("type", "Domain"), cross=True)  # a mail domain is no event's domain
    assert carries(("type", "Domain"), cross=False)  # ... but links steps of one service
    assert not carries(("ref", "crm", "account"), cross=True)
    assert carries(("ref", "crm", "account"), cross=False)
    assert not carries(("type", "Date"), cross=False)
    for task in generate_tasks(8, seed=4):
        for step in task.plan:
            service = step.tool.split(SEPARATOR, 1)[0]
            for source in step.sources.values():
                if source.kind == "step" and source.step is not None:
                    origin = task.plan[source.step].tool.split(SEPARATOR, 1)[0]
                    if origin != service and source.semantic in ("FirstName", "LastName"):
                        # A name part rides along with an identifying value of its record.
                        record = (source.step, (source.path or "").rpartition(".")[0])
                        assert any(
                            o.semantic in LINK_TYPES and o.step is not None
                            and (o.step, (o.path or "").rpartition(".")[0]) == record
                            for o in step.sources.values()), (step.tool, source)
                    elif origin != service:
                        assert source.semantic in LINK_TYPES, (step.tool, source)


def _walk_with(ctx, tool: str, arguments: dict) -> Walk:
    """A walk whose one step is a write the test chose (as if an earlier step made it)."""
    ctx.mount(tool.split(SEPARATOR, 1)[0])  # the context mounts a service when first reached
    ctx.work.reset()
    mark = len(ctx.work.changes() or [])
    envelope = ctx.work.call(tool, arguments)
    assert envelope["success"], envelope
    walk = Walk()
    step = Step(tool=tool, arguments=arguments, sources={}, output=envelope["data"])
    changes = (ctx.work.changes() or [])[mark:]
    walk.steps.append(step)
    walk.services.append(tool.split(SEPARATOR, 1)[0])
    walk.changes.append(changes)
    return walk


def test_a_step_that_undoes_an_earlier_write_is_refused_and_leaves_no_trace():
    ctx = context(0)
    walk = _walk_with(ctx, "contacts__create_contact", {
        "first_name": "Walk", "last_name": "Tester", "email": "walk.tester@example.com"})
    contact = walk.steps[0].output["id"]
    before = ctx.work.db("contacts").digest()
    # Make the delete the only candidate the walk could take: its id comes from step 0.
    tool = ctx.work.tools["contacts__delete_contact"]
    for fact in extract_facts(ctx.work.tools["contacts__create_contact"].output_schema,
                              walk.steps[0].output, "contacts"):
        known = Known(fact, 0, "contacts")
        walk.known.append(known)
        walk.by_key.setdefault(fact.key, []).append(known)
    assert any(p.ref == "contact" for p in tool.params)
    taken = _try_step(ctx, walk, "contacts__delete_contact", random.Random(0), Faker(),
                      need_source=True)
    assert not taken and len(walk.steps) == 1 and not walk.broken
    assert ctx.work.db("contacts").find("contact", id=contact) is not None
    assert ctx.work.db("contacts").digest() == before  # rewound: same state, same version


def test_a_deleted_record_is_a_state_criterion_that_doing_nothing_fails():
    initial = compose(["contacts"], seed=0)
    contact = initial.call("contacts__list_contacts", {"limit": 1})["data"]["items"][0]["id"]
    env = initial.fork().env
    assert env.call("contacts__delete_contact", {"contact_id": contact})["success"]
    step = Step(tool="contacts__delete_contact", arguments={"contact_id": contact}, sources={},
                output=None)
    deleted = [c for c in state_criteria([step], [env.changes() or []], env)
               if c.change == "delete"]
    assert [c.record_id for c in deleted if c.table == "contacts__contact"] == [contact]
    assert all(r.passed for r in score(deleted, initial.env, env, "", []))
    assert not any(r.passed for r in score(deleted, initial.env, initial.fork().env, "", []))


def test_a_duplicate_is_caught_before_the_gates_and_counted_the_same_with_workers():
    settings = GenerationSettings()
    attempt, signature = next((a, sig) for a in range(20)
                              for outcome, sig in [_attempt(5, a, settings, None)]
                              if isinstance(outcome, Task))
    assert signature is not None  # the walk's plan, before any scenario is added to it
    assert generate_task(5, attempt, settings, {signature}) == "duplicate"
    one, two = GenerationStats(), GenerationStats()
    a = list(generate_tasks(10, seed=5, stats=one))
    b = list(generate_tasks(10, seed=5, stats=two, workers=2))
    assert [t.model_dump_json() for t in a] == [t.model_dump_json() for t in b]
    assert (one.attempts, dict(one.rejected)) == (two.attempts, dict(two.rejected))


def test_task_worlds_are_the_distractors_compose_would_draw():
    for task in generate_tasks(3, seed=6):  # drawn with the seed of the task's own world
        assert task.distractors == choose_distractors(task.involved, 2, seed=task.seed)
        world = compose(task.involved, distractors=2, seed=task.seed)
        assert list(world.distractors) == task.distractors


def test_tool_descriptions_read_as_imperatives():
    assert _action("Gets an array of `Group` object (e.g. all of them).", "list_groups") == \
        "get the Group records"
    assert _action("Inserts a new contact.", "insert_contact") == "insert a new contact"
    assert _action("Modifies a user", "patch_user") == "modify a user"
    assert _action("POST /generate/url", "post_generate_url") == "use post generate url"
    assert _action("SMS a number", "send_sms") == "SMS a number"
    assert _action("List deals sorted by close date, optionally filtered.", "list_deals") == \
        "list deals sorted by close date"


def test_an_answer_can_be_a_value_of_the_list_item_a_selection_singles_out():
    task = next(t for t in generate_tasks(500, seed=0)
                if any(c.kind == "answer" and c.selection for c in t.rubric)
                and not (t.scenario and t.scenario.rule and t.scenario.rule.selection))
    answer = next(c for c in task.rubric if c.kind == "answer")
    assert answer.selection is not None
    by, order = answer.selection.by, answer.selection.order
    output = task.plan[answer.step if answer.step is not None else -1].output
    items = next(v for v in output.values() if isinstance(v, list)) if isinstance(
        output, dict) else output
    best = (max if order == "max" else min)(items, key=lambda item: item[by])
    held = [x for v in best.values() for x in (v if isinstance(v, list) else [v])]
    assert answer.values[0] in held
    assert sum(item[by] == best[by] for item in items) == 1
    # The request asks for it by the selection, in words ("the newest account ...").
    words = superlative(by, order, "ENTITY").replace("ENTITY", "").split()
    assert "tell me the " in task.instruction and all(w in task.instruction for w in words)
