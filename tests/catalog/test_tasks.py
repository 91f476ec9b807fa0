"""The `tasks` service: seeding, tools and the business rules they enforce."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest

from compoworld.catalog import load_service
from compoworld.service import Environment, check_service
from compoworld.types import Pool

SERVICE = "tasks"  # the conftest's world and env fixtures serve it
TASKS = load_service(SERVICE)
TODAY = Pool(0).today.isoformat()


def rows(env: Environment, entity: str, **where: Any) -> list[dict[str, Any]]:
    return env.db("tasks").select(entity, where)


def project(env: Environment, status: str = "active") -> dict[str, Any]:
    return rows(env, "project", status=status)[0]


def members(env: Environment, project_id: str) -> list[str]:
    return [m["email"] for m in rows(env, "member", project_id=project_id)]


def outsider(env: Environment, project_id: str) -> str:
    """A pool person's email who is not a member of the project."""
    inside = set(members(env, project_id))
    return next(p.email for p in env.pool.people if p.email not in inside)


# -- contract and seeding ------------------------------------------------------------------


def test_service_passes_the_conformance_check() -> None:
    report = check_service(TASKS)
    assert report.ok, str(report)


def test_tools_are_named_verb_noun_and_fully_documented() -> None:
    assert 8 <= len(TASKS.tools) <= 20
    for tool in TASKS.tools.values():
        assert re.fullmatch(r"[a-z]+(_[a-z]+)+", tool.name), tool.name
        assert tool.description.strip(), tool.name
        for param in tool.params:
            assert param.description.strip(), f"{tool.name}.{param.name} is undocumented"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_seeding_is_deterministic_and_sized(seed: int) -> None:
    env, again = Environment([TASKS], seed=seed), Environment([TASKS], seed=seed)
    assert env.digest() == again.digest()
    assert 250 <= sum(len(r) for r in env.rows().values()) <= 400
    assert env.digest() != Environment([TASKS], seed=seed + 10).digest()


def test_seeded_people_come_from_the_pool(world: Environment) -> None:
    pool_emails = {p.email for p in world.pool.people}
    emails = {m["email"] for m in rows(world, "member")}
    emails |= {p["owner_email"] for p in rows(world, "project")}
    emails |= {c["author_email"] for c in rows(world, "comment")}
    emails |= {t["assignee_email"] for t in rows(world, "task") if t["assignee_email"]}
    assert emails and emails <= pool_emails


def test_seeded_state_obeys_the_business_rules(world: Environment) -> None:
    projects = {p["id"]: p for p in rows(world, "project")}
    tasks = {t["id"]: t for t in rows(world, "task")}
    assert {p["status"] for p in projects.values()} == {"active", "archived"}
    for p in projects.values():
        assert p["owner_email"] in members(world, p["id"])
    for t in tasks.values():
        p = projects[t["project_id"]]
        assert p["start_date"] <= t["created"] <= TODAY
        assert t["due"] is None or t["due"] >= p["start_date"]
        assert t["assignee_email"] is None or t["assignee_email"] in members(world, p["id"])
        if p["status"] == "archived":
            assert t["status"] == "done"
        if t["status"] == "done":
            assert t["created"] <= t["completed"] <= TODAY
        else:
            assert t["completed"] is None
        for blocker in t["blocked_by"]:
            assert tasks[blocker]["project_id"] == t["project_id"]
            if t["status"] == "done":
                assert tasks[blocker]["status"] == "done"
    for c in rows(world, "comment"):
        assert tasks[c["task_id"]]["created"] <= c["created"] <= TODAY
    # The seeded world exercises the rules: blocked open tasks, overdue tasks.
    assert any(t["status"] != "done" and any(tasks[b]["status"] != "done" for b in t["blocked_by"])
               for t in tasks.values())
    assert any(t["status"] != "done" and t["due"] and t["due"] < TODAY for t in tasks.values())


# -- projects and members -------------------------------------------------------------------


def test_list_projects_sorted_and_filtered(env: Environment, ok) -> None:
    listed = ok(env, "tasks__list_projects")
    assert [p["name"] for p in listed] == sorted(p["name"] for p in rows(env, "project"))
    archived = ok(env, "tasks__list_projects", status="archived")
    assert archived and {p["status"] for p in archived} == {"archived"}
    assert len(archived) == len(rows(env, "project", status="archived"))


def test_create_project_makes_the_owner_a_member(env: Environment, ok, refused) -> None:
    created = ok(env, "tasks__create_project", name="  Launch Party ", start_date="2026-03-10",
                 owner_email="Ada.Lovelace@Example.com", description="Fun.")
    assert created["name"] == "Launch Party" and created["status"] == "active"
    assert created["owner_email"] == "ada.lovelace@example.com"
    (owner,) = rows(env, "member", project_id=created["id"])
    assert (owner["email"], owner["role"]) == ("ada.lovelace@example.com", "owner")
    assert created in ok(env, "tasks__list_projects")
    refused(env, "tasks__create_project", 409, name="Launch Party", start_date="2026-03-10",
            owner_email="x@example.com")
    refused(env, "tasks__create_project", 400, name="   ", start_date="2026-03-10",
            owner_email="x@example.com")
    refused(env, "tasks__create_project", 400, name="Other", start_date="2026-02-30",
            owner_email="x@example.com")


def test_add_member(env: Environment, ok, refused) -> None:
    p = project(env)
    new = outsider(env, p["id"])
    member = ok(env, "tasks__add_member", project_id=p["id"], email=new.upper())
    assert member["email"] == new and member["role"] == "member"
    assert new in members(env, p["id"])
    refused(env, "tasks__add_member", 409, project_id=p["id"], email=new)
    archived = project(env, "archived")
    refused(env, "tasks__add_member", 422, project_id=archived["id"], email=new)
    refused(env, "tasks__add_member", 404, project_id="pj_nope", email=new)


def test_delete_project_with_open_tasks_is_a_conflict(env: Environment, refused) -> None:
    p = project(env)
    assert rows(env, "task", project_id=p["id"], status__ne="done")
    message = refused(env, "tasks__delete_project", 409, project_id=p["id"])
    assert "open task" in message


def test_delete_project_without_open_tasks_removes_everything(env: Environment, ok, refused) -> None:
    p = project(env, "archived")
    tasks = rows(env, "task", project_id=p["id"])
    comments = rows(env, "comment", task_id__in=[t["id"] for t in tasks])
    assert tasks and comments
    before = {name: len(r) for name, r in env.rows().items()}
    result = ok(env, "tasks__delete_project", project_id=p["id"])
    assert result == {"id": p["id"], "deleted": True, "tasks_deleted": len(tasks)}
    after = {name: len(r) for name, r in env.rows().items()}
    assert after["tasks__task"] == before["tasks__task"] - len(tasks)
    assert after["tasks__comment"] == before["tasks__comment"] - len(comments)
    assert not rows(env, "member", project_id=p["id"])
    refused(env, "tasks__project_summary", 404, project_id=p["id"])


def test_archive_project_once_every_task_is_done(env: Environment, ok, refused) -> None:
    created = ok(env, "tasks__create_project", name="Spring Fair", start_date=TODAY,
                 owner_email="ada@example.com")
    task = ok(env, "tasks__create_task", project_id=created["id"], title="Book the venue")
    message = refused(env, "tasks__archive_project", 422, project_id=created["id"])
    assert "1 open task" in message
    ok(env, "tasks__complete_task", task_id=task["id"])
    archived = ok(env, "tasks__archive_project", project_id=created["id"])
    assert archived == {**created, "status": "archived"}
    assert archived in ok(env, "tasks__list_projects", status="archived")
    assert created["id"] not in {p["id"] for p in ok(env, "tasks__list_projects", status="active")}
    assert ok(env, "tasks__project_summary", project_id=created["id"])["status"] == "archived"
    # Archived: its tasks are frozen.
    assert "archived" in refused(env, "tasks__reopen_task", 422, task_id=task["id"])
    refused(env, "tasks__create_task", 422, project_id=created["id"], title="One more thing")


def test_archive_project_rules(env: Environment, refused) -> None:
    p = project(env)
    open_ = rows(env, "task", project_id=p["id"], status__ne="done")
    assert open_
    assert f"{len(open_)} open task" in refused(env, "tasks__archive_project", 422, project_id=p["id"])
    archived = project(env, "archived")
    assert "already archived" in refused(env, "tasks__archive_project", 409, project_id=archived["id"])
    refused(env, "tasks__archive_project", 404, project_id="pj_nope")


def test_list_members_puts_owners_first(env: Environment, ok, refused) -> None:
    for p in rows(env, "project"):
        listed = ok(env, "tasks__list_members", project_id=p["id"])
        assert sorted(m["id"] for m in listed) == sorted(
            m["id"] for m in rows(env, "member", project_id=p["id"]))
        assert listed[0]["email"] == p["owner_email"] and listed[0]["role"] == "owner"
        assert {m["project_id"] for m in listed} == {p["id"]}
    p = project(env)
    new_owner, new_member = outsider(env, p["id"]), "zed@example.com"
    ok(env, "tasks__add_member", project_id=p["id"], email=new_member)
    ok(env, "tasks__add_member", project_id=p["id"], email=new_owner, role="owner")
    listed = ok(env, "tasks__list_members", project_id=p["id"])
    roles = [m["role"] for m in listed]
    assert roles == sorted(roles, reverse=True)  # every owner before every member
    assert [m["email"] for m in listed[:2]] == [p["owner_email"], new_owner]
    assert listed[-1]["email"] == new_member
    refused(env, "tasks__list_members", 404, project_id="pj_nope")


# -- listing tasks ------------------------------------------------------------------------


def test_list_tasks_filters_match_a_hand_computation(env: Environment, ok) -> None:
    p = project(env)
    everyone = rows(env, "task")
    assignee = next(t["assignee_email"] for t in everyone if t["assignee_email"])
    cases: list[tuple[dict[str, Any], Any]] = [
        ({"project_id": p["id"]}, lambda t: t["project_id"] == p["id"]),
        ({"assignee_email": assignee.upper()}, lambda t: t["assignee_email"] == assignee),
        ({"status": "in_progress"}, lambda t: t["status"] == "in_progress"),
        ({"due_before": TODAY}, lambda t: t["due"] is not None and t["due"] <= TODAY),
        ({"due_after": "2026-03-10", "due_before": "2026-04-10", "status": "todo"},
         lambda t: t["due"] is not None and "2026-03-10" <= t["due"] <= "2026-04-10"
         and t["status"] == "todo"),
    ]
    for args, keep in cases:
        expected = [t["id"] for t in everyone if keep(t)]
        assert expected, args
        page = ok(env, "tasks__list_tasks", **args, sort_by="created", limit=100)
        assert page["total"] == len(expected), args
        assert sorted(t["id"] for t in page["items"]) == sorted(expected), args


def test_list_tasks_paging_and_sorting(env: Environment, ok) -> None:
    everyone = rows(env, "task")
    expected = sorted(everyone, key=lambda t: t["title"], reverse=True)
    seen: list[dict[str, Any]] = []
    offset: int | None = 0
    for _ in range(len(everyone)):  # a bound, in case paging never ends
        if offset is None:
            break
        page = ok(env, "tasks__list_tasks", sort_by="title", order="desc", limit=30, offset=offset)
        assert page["total"] == len(everyone)
        assert len(page["items"]) <= 30
        seen += page["items"]
        offset = page["next_offset"]
    assert offset is None
    assert [t["id"] for t in seen] == [t["id"] for t in expected]
    last = ok(env, "tasks__list_tasks", limit=10, offset=len(everyone) - 3)
    assert len(last["items"]) == 3 and last["next_offset"] is None
    by_due = ok(env, "tasks__list_tasks", status="todo", limit=100)["items"]
    dues = [t["due"] or "" for t in by_due]
    assert dues == sorted(dues)  # tasks without a due date first


def test_list_tasks_refuses_bad_arguments(env: Environment, refused) -> None:
    refused(env, "tasks__list_tasks", 404, project_id="pj_nope")
    refused(env, "tasks__list_tasks", 400, limit=0)
    refused(env, "tasks__list_tasks", 400, limit=101)
    refused(env, "tasks__list_tasks", 400, offset=-1)
    refused(env, "tasks__list_tasks", 400, status="blocked")
    refused(env, "tasks__list_tasks", 400, due_before="next week")


# -- creating and editing tasks -------------------------------------------------------------


def test_create_task_then_get_it(env: Environment, ok, refused) -> None:
    p = project(env)
    who = members(env, p["id"])[1]
    task = ok(env, "tasks__create_task", project_id=p["id"], title=" Write tests ", due=p["start_date"],
              assignee_email=who.upper(), priority="high")
    assert task["title"] == "Write tests" and task["status"] == "todo"
    assert task["created"] == TODAY and task["completed"] is None
    assert task["assignee_email"] == who and task["due"] == p["start_date"]
    assert task["id"].startswith("tk_")
    assert ok(env, "tasks__get_task", task_id=task["id"]) == task
    refused(env, "tasks__get_task", 404, task_id="tk_nope")


def test_create_task_rules(env: Environment, refused) -> None:
    p, archived = project(env), project(env, "archived")
    day_before = date.fromordinal(date.fromisoformat(p["start_date"]).toordinal() - 1)
    msg = refused(env, "tasks__create_task", 422, project_id=p["id"], title="x",
                  due=day_before.isoformat())
    assert "before the project's start" in msg
    msg = refused(env, "tasks__create_task", 422, project_id=p["id"], title="x",
                  assignee_email=outsider(env, p["id"]))
    assert "not a member" in msg
    assert "archived" in refused(env, "tasks__create_task", 422, project_id=archived["id"], title="x")
    other = rows(env, "task", project_id=archived["id"])[0]
    refused(env, "tasks__create_task", 422, project_id=p["id"], title="x", blocked_by=[other["id"]])
    refused(env, "tasks__create_task", 404, project_id=p["id"], title="x", blocked_by=["tk_nope"])
    refused(env, "tasks__create_task", 404, project_id="pj_nope", title="x")
    refused(env, "tasks__create_task", 400, project_id=p["id"], title="")
    refused(env, "tasks__create_task", 400, project_id=p["id"], title="x", priority="whenever")


def test_update_task_is_partial_and_checked(env: Environment, ok, refused) -> None:
    p = project(env)
    task = next(t for t in rows(env, "task", project_id=p["id"]) if t["status"] == "todo")
    updated = ok(env, "tasks__update_task", task_id=task["id"], priority="urgent", status="in_progress")
    assert updated == {**task, "priority": "urgent", "status": "in_progress"}
    assert ok(env, "tasks__get_task", task_id=task["id"]) == updated
    refused(env, "tasks__update_task", 422, task_id=task["id"], due="2000-01-01")
    refused(env, "tasks__update_task", 400, task_id=task["id"], status="done")
    refused(env, "tasks__update_task", 404, task_id="tk_nope", title="x")
    done = rows(env, "task", project_id=p["id"], status="done")[0]
    assert "reopen" in refused(env, "tasks__update_task", 422, task_id=done["id"], title="x")


def test_assign_task_only_to_members(env: Environment, ok, refused) -> None:
    p = project(env)
    task = rows(env, "task", project_id=p["id"], status__ne="done")[0]
    stranger = outsider(env, p["id"])
    assert "not a member" in refused(env, "tasks__assign_task", 422, task_id=task["id"],
                                     assignee_email=stranger)
    ok(env, "tasks__add_member", project_id=p["id"], email=stranger)
    assert ok(env, "tasks__assign_task", task_id=task["id"],
              assignee_email=stranger)["assignee_email"] == stranger
    refused(env, "tasks__assign_task", 409, task_id=task["id"], assignee_email=stranger)


def test_complete_task_waits_for_its_blockers(env: Environment, ok, refused) -> None:
    p = project(env)
    first = ok(env, "tasks__create_task", project_id=p["id"], title="Pour the foundation")
    second = ok(env, "tasks__create_task", project_id=p["id"], title="Build walls",
                blocked_by=[first["id"], first["id"]])
    assert second["blocked_by"] == [first["id"]]
    message = refused(env, "tasks__complete_task", 422, task_id=second["id"])
    assert first["id"] in message and "Pour the foundation" in message
    done = ok(env, "tasks__complete_task", task_id=first["id"])
    assert done["status"] == "done" and done["completed"] == TODAY
    assert ok(env, "tasks__complete_task", task_id=second["id"])["status"] == "done"
    refused(env, "tasks__complete_task", 409, task_id=second["id"])


def test_reopen_task(env: Environment, ok, refused) -> None:
    p = project(env)
    done = rows(env, "task", project_id=p["id"], status="done")[0]
    reopened = ok(env, "tasks__reopen_task", task_id=done["id"])
    assert reopened == {**done, "status": "todo", "completed": None}
    refused(env, "tasks__reopen_task", 409, task_id=done["id"])
    archived_task = rows(env, "task", project_id=project(env, "archived")["id"])[0]
    assert "archived" in refused(env, "tasks__reopen_task", 422, task_id=archived_task["id"])


def test_delete_task_removes_its_comments_unless_it_blocks_others(env: Environment, ok, refused) -> None:
    p = project(env)
    first = ok(env, "tasks__create_task", project_id=p["id"], title="First")
    second = ok(env, "tasks__create_task", project_id=p["id"], title="Second", blocked_by=[first["id"]])
    ok(env, "tasks__add_comment", task_id=first["id"], author_email="a@example.com", body="Hi")
    assert second["id"] in refused(env, "tasks__delete_task", 409, task_id=first["id"])
    assert ok(env, "tasks__delete_task", task_id=second["id"]) == {"id": second["id"], "deleted": True}
    assert ok(env, "tasks__delete_task", task_id=first["id"]) == {"id": first["id"], "deleted": True}
    assert not rows(env, "comment", task_id=first["id"])
    refused(env, "tasks__get_task", 404, task_id=first["id"])
    refused(env, "tasks__delete_task", 404, task_id=first["id"])


# -- comments and summary -----------------------------------------------------------------


def test_comments(env: Environment, ok, refused) -> None:
    task = rows(env, "comment")[0]["task_id"]
    existing = sorted(rows(env, "comment", task_id=task), key=lambda c: c["created"])
    added = ok(env, "tasks__add_comment", task_id=task, author_email="Bo@Example.com", body=" Zoo? ")
    assert added["body"] == "Zoo?" and added["created"] == TODAY
    assert added["author_email"] == "bo@example.com"
    later = ok(env, "tasks__add_comment", task_id=task, author_email="bo@example.com", body="Ah, ok.")
    listed = ok(env, "tasks__list_comments", task_id=task)
    assert [c["id"] for c in listed] == [c["id"] for c in existing] + [added["id"], later["id"]]
    refused(env, "tasks__add_comment", 400, task_id=task, author_email="bo@example.com", body="  ")
    refused(env, "tasks__add_comment", 404, task_id="tk_nope", author_email="bo@example.com", body="x")
    refused(env, "tasks__list_comments", 404, task_id="tk_nope")


def test_project_summary_matches_a_hand_count(env: Environment, ok) -> None:
    for p in rows(env, "project"):
        tasks = rows(env, "task", project_id=p["id"])
        open_ = [t for t in tasks if t["status"] != "done"]
        summary = ok(env, "tasks__project_summary", project_id=p["id"])
        assert summary["tasks"] == len(tasks)
        assert summary["by_status"] == {s: sum(t["status"] == s for t in tasks)
                                        for s in ("todo", "in_progress", "done")}
        assert summary["overdue"] == sum(bool(t["due"] and t["due"] < TODAY) for t in open_)
        upcoming = sorted(t["due"] for t in open_ if t["due"] and t["due"] >= TODAY)
        assert summary["next_due"] == (upcoming[0] if upcoming else None)
        assert summary["members"][0]["email"] == p["owner_email"]
        assert len(summary["members"]) == len(members(env, p["id"]))
    assert any(ok(env, "tasks__project_summary", project_id=p["id"])["overdue"]
               for p in rows(env, "project"))
