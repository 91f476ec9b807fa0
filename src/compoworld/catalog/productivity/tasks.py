"""Tasks: projects, their members, tasks with assignees, due dates and blockers, and comments."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, Field, StringConstraints

from compoworld.catalog._filters import given
from compoworld.errors import Conflict, Refused
from compoworld.service import Db, Entity, Page, Result, Service
from compoworld.types import Date, Email, Pool, Ref

service = Service("tasks", domain="productivity",
                  description="A team task tracker: projects, members, tasks, due dates, comments.")

Status = Literal["todo", "in_progress", "done"]
Priority = Literal["low", "medium", "high", "urgent"]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
EmailIn = Annotated[Email, AfterValidator(str.lower)]  # emails are compared in lower case


@service.entity
class Project(Entity):
    """A project: a named set of tasks worked on by its members."""

    id_prefix = "pj"
    unique_fields = ("name",)

    name: str
    description: str = ""
    status: Literal["active", "archived"] = "active"
    start_date: Date
    owner_email: Email


@service.entity
class Member(Entity):
    """A person's membership of a project; only members can be assigned its tasks."""

    id_prefix = "pm"

    project_id: Ref[Project]
    email: Email
    role: Literal["owner", "member"] = "member"


@service.entity
class Task(Entity):
    """A task of a project; ``blocked_by`` lists the ids of tasks that must be done first."""

    id_prefix = "tk"

    project_id: Ref[Project]
    title: str
    description: str = ""
    status: Status = "todo"
    priority: Priority = "medium"
    assignee_email: Email | None = None
    due: Date | None = None
    created: Date
    completed: Date | None = None
    blocked_by: list[str] = Field(default_factory=list)


@service.entity
class Comment(Entity):
    """A comment on a task."""

    id_prefix = "cm"

    task_id: Ref[Task]
    author_email: Email
    body: str
    created: Date


class Deleted(Result):
    """A record that was deleted: its former id."""

    id: str
    deleted: bool


class ProjectDeleted(Deleted):
    """A deleted project and how many of its tasks went with it."""

    tasks_deleted: int


class StatusCounts(Result):
    """How many of a project's tasks have each status."""

    todo: int
    in_progress: int
    done: int


class ProjectSummary(Result):
    """A project's members, task counts and what is overdue or due next."""

    project_id: Ref[Project]
    name: str
    status: Literal["active", "archived"]
    members: list[Member]
    tasks: int
    by_status: StatusCounts
    overdue: int
    next_due: Date | None


def _active_project(db: Db, project_id: str, due: str | None = None) -> dict[str, Any]:
    """The project, if it is active and ``due`` (if given) is not before its start."""
    project = db.get(Project, project_id)
    if project["status"] == "archived":
        raise Refused(f"project {project_id!r} is archived; its tasks cannot change")
    if due is not None and due < project["start_date"]:
        raise Refused(f"due date {due} is before the project's start ({project['start_date']})")
    return project


def _open_task(db: Db, task_id: str, due: str | None = None) -> dict[str, Any]:
    task = db.get(Task, task_id)
    _active_project(db, task["project_id"], due)
    return task


def _check_member(db: Db, project_id: str, email: str) -> None:
    if db.find(Member, project_id=project_id, email=email) is None:
        raise Refused(f"{email!r} is not a member of project {project_id!r}; add them first")


@service.read(returns=list[Project])
def list_projects(db: Db, status: Literal["active", "archived"] | None = None) -> list[Any]:
    """List projects, sorted by name.

    Args:
        status: Only active or only archived projects.
    """
    return db.select(Project, {} if status is None else {"status": status}, order_by="name")


@service.write(returns=Project)
def create_project(db: Db, name: Text, start_date: Date, owner_email: EmailIn,
                   description: str = "") -> dict[str, Any]:
    """Create a project; its owner becomes its first member. Project names are unique.

    Args:
        name: The project's name.
        start_date: The day work starts; no task of the project may be due before it.
        owner_email: Email of the person who owns the project.
        description: What the project is about.
    """
    project = db.insert(Project, name=name, start_date=start_date, owner_email=owner_email,
                        description=description)
    db.insert(Member, project_id=project["id"], email=project["owner_email"], role="owner")
    return project


@service.write(returns=ProjectDeleted)
def delete_project(db: Db, project_id: Ref[Project]) -> dict[str, Any]:
    """Delete a project with its members, tasks and comments; it must have no open tasks.

    Args:
        project_id: The project's id.
    """
    db.get(Project, project_id)
    if n := db.count(Task, {"project_id": project_id, "status__ne": "done"}):
        raise Conflict(f"project {project_id!r} still has {n} open task(s)")
    tasks = db.select(Task, {"project_id": project_id})
    comments = db.select(Comment, {"task_id__in": [t["id"] for t in tasks]})
    members = db.select(Member, {"project_id": project_id})
    for entity, rows in ((Comment, comments), (Task, tasks), (Member, members)):
        for row in rows:
            db.delete(entity, row["id"])
    db.delete(Project, project_id)
    return {"id": project_id, "deleted": True, "tasks_deleted": len(tasks)}


@service.write(returns=Project)
def archive_project(db: Db, project_id: Ref[Project]) -> dict[str, Any]:
    """Archive a finished project: every task must be done; its tasks can then no longer change.

    Args:
        project_id: The project's id.
    """
    if db.get(Project, project_id)["status"] == "archived":
        raise Conflict(f"project {project_id!r} is already archived")
    if n := db.count(Task, {"project_id": project_id, "status__ne": "done"}):
        raise Refused(f"project {project_id!r} still has {n} open task(s); complete or delete "
                      "them first")
    return db.update(Project, project_id, status="archived")


@service.read(returns=list[Member])
def list_members(db: Db, project_id: Ref[Project]) -> list[dict[str, Any]]:
    """List a project's members with their role ("owner" or "member"), owners first.

    Args:
        project_id: The project's id.
    """
    db.get(Project, project_id)
    return db.select(Member, {"project_id": project_id}, order_by="role", descending=True)


@service.write(returns=Member)
def add_member(db: Db, project_id: Ref[Project], email: EmailIn,
               role: Literal["owner", "member"] = "member") -> dict[str, Any]:
    """Add a person to a project so that its tasks can be assigned to them.

    Args:
        project_id: The project's id.
        email: The person's email address.
        role: "member" (default) or "owner".
    """
    _active_project(db, project_id)
    if db.find(Member, project_id=project_id, email=email):
        raise Conflict(f"{email!r} is already a member of project {project_id!r}")
    return db.insert(Member, project_id=project_id, email=email, role=role)


@service.read(returns=Page[Task])
def list_tasks(db: Db, project_id: Ref[Project] | None = None,
               assignee_email: EmailIn | None = None, status: Status | None = None,
               due_before: Date | None = None, due_after: Date | None = None,
               sort_by: Literal["due", "created", "title", "status"] = "due",
               order: Literal["asc", "desc"] = "asc", limit: Annotated[int, Field(ge=1, le=100)] = 20,
               offset: Annotated[int, Field(ge=0)] = 0) -> dict[str, Any]:
    """List tasks matching all given filters, as {"items", "total", "next_offset"}.

    Args:
        project_id: Only tasks of this project.
        assignee_email: Only tasks assigned to this person.
        status: Only tasks with this status ("todo", "in_progress" or "done").
        due_before: Only tasks due on or before this date.
        due_after: Only tasks due on or after this date.
        sort_by: Field to sort by (default: due; tasks without a due date sort lowest).
        order: "asc" (default) or "desc".
        limit: Maximum number of tasks to return (1-100).
        offset: Number of tasks to skip, for paging.
    """
    if project_id is not None:
        db.get(Project, project_id)
    where = given({"project_id": project_id, "assignee_email": assignee_email, "status": status,
                   "due__lte": due_before, "due__gte": due_after})
    return db.page(Task, where, order_by=sort_by, descending=order == "desc", limit=limit,
                   offset=offset)


@service.read(returns=Task)
def get_task(db: Db, task_id: Ref[Task]) -> dict[str, Any]:
    """Get a task's full details.

    Args:
        task_id: The task's id.
    """
    return db.get(Task, task_id)


@service.write(returns=Task)
def create_task(db: Db, project_id: Ref[Project], title: Text, description: str = "",
                assignee_email: EmailIn | None = None, due: Date | None = None,
                priority: Priority = "medium", blocked_by: list[str] | None = None) -> Any:
    """Create a task (status "todo", created today) in an active project.

    Args:
        project_id: The project's id.
        title: Short title of the task.
        description: Details of what is to be done.
        assignee_email: Email of the person to assign; must be a member of the project.
        due: Due date; not before the project's start date.
        priority: "low", "medium" (default), "high" or "urgent".
        blocked_by: Ids of tasks of the same project that must be done before this one.
    """
    _active_project(db, project_id, due)
    if assignee_email is not None:
        _check_member(db, project_id, assignee_email)
    blockers = sorted(set(blocked_by or []))
    for blocker_id in blockers:
        if db.get(Task, blocker_id)["project_id"] != project_id:
            raise Refused(f"blocking task {blocker_id!r} belongs to another project")
    return db.insert(Task, project_id=project_id, title=title, description=description,
                     assignee_email=assignee_email, due=due, priority=priority,
                     created=db.today.isoformat(), blocked_by=blockers)


@service.write(returns=Task)
def update_task(db: Db, task_id: Ref[Task], title: Text | None = None,
                description: str | None = None, due: Date | None = None,
                priority: Priority | None = None,
                status: Literal["todo", "in_progress"] | None = None) -> dict[str, Any]:
    """Change details of an open task (fields left out stay); see also assign/complete_task.

    Args:
        task_id: The task's id.
        title: New title.
        description: New description (replaces the old one).
        due: New due date; not before the project's start date.
        priority: New priority.
        status: New status, "todo" or "in_progress".
    """
    task = _open_task(db, task_id, due)
    if task["status"] == "done":
        raise Refused(f"task {task_id!r} is done; reopen it before editing it")
    changes = {"title": title, "description": description, "due": due,
               "priority": priority, "status": status}
    return db.update(Task, task_id, **{k: v for k, v in changes.items() if v is not None})


@service.write(returns=Task)
def assign_task(db: Db, task_id: Ref[Task], assignee_email: EmailIn) -> dict[str, Any]:
    """Assign a task to a member of its project.

    Args:
        task_id: The task's id.
        assignee_email: Email of the person to assign; must be a member of the project.
    """
    task = _open_task(db, task_id)
    _check_member(db, task["project_id"], assignee_email)
    if task["assignee_email"] == assignee_email:
        raise Conflict(f"task {task_id!r} is already assigned to {assignee_email!r}")
    return db.update(Task, task_id, assignee_email=assignee_email)


@service.write(returns=Task)
def complete_task(db: Db, task_id: Ref[Task]) -> dict[str, Any]:
    """Mark a task done (completed today); every task blocking it must be done first.

    Args:
        task_id: The task's id.
    """
    task = _open_task(db, task_id)
    if task["status"] == "done":
        raise Conflict(f"task {task_id!r} is already done")
    if blockers := db.select(Task, {"id__in": task["blocked_by"], "status__ne": "done"}):
        names = ", ".join(f"{t['id']} ({t['title']})" for t in blockers)
        raise Refused(f"task {task_id!r} is blocked by open task(s): {names}")
    return db.update(Task, task_id, status="done", completed=db.today.isoformat())


@service.write(returns=Task)
def reopen_task(db: Db, task_id: Ref[Task]) -> dict[str, Any]:
    """Reopen a done task (back to "todo"); tasks of archived projects cannot be reopened.

    Args:
        task_id: The task's id.
    """
    task = _open_task(db, task_id)
    if task["status"] != "done":
        raise Conflict(f"task {task_id!r} is not done (status {task['status']!r})")
    return db.update(Task, task_id, status="todo", completed=None)


@service.write(returns=Deleted)
def delete_task(db: Db, task_id: Ref[Task]) -> dict[str, Any]:
    """Delete a task and its comments; a task that blocks other tasks cannot be deleted.

    Args:
        task_id: The task's id.
    """
    _open_task(db, task_id)
    if blocked := db.select(Task, {"blocked_by__contains": f'"{task_id}"'}):
        raise Conflict(f"task {task_id!r} blocks {', '.join(t['id'] for t in blocked)}")
    for comment in db.select(Comment, {"task_id": task_id}):
        db.delete(Comment, comment["id"])
    db.delete(Task, task_id)
    return {"id": task_id, "deleted": True}


@service.write(returns=Comment)
def add_comment(db: Db, task_id: Ref[Task], author_email: EmailIn, body: Text) -> Any:
    """Comment on a task (dated today).

    Args:
        task_id: The task's id.
        author_email: Email of the person writing the comment.
        body: The comment's text.
    """
    db.get(Task, task_id)
    return db.insert(Comment, task_id=task_id, author_email=author_email, body=body,
                     created=db.today.isoformat())


@service.read(returns=list[Comment])
def list_comments(db: Db, task_id: Ref[Task]) -> list[dict[str, Any]]:
    """List the comments on a task, oldest first.

    Args:
        task_id: The task's id.
    """
    db.get(Task, task_id)
    return db.select(Comment, {"task_id": task_id}, order_by="created")


@service.read(returns=ProjectSummary)
def project_summary(db: Db, project_id: Ref[Project]) -> dict[str, Any]:
    """Summarize a project: members, task counts by status, overdue (open, due before today).

    Args:
        project_id: The project's id.
    """
    project, mine, today = db.get(Project, project_id), {"project_id": project_id}, db.today
    by_status = {s: db.count(Task, {**mine, "status": s}) for s in get_args(Status)}
    open_ = {**mine, "status__ne": "done"}
    upcoming = db.select(Task, {**open_, "due__gte": today.isoformat()}, order_by="due", limit=1)
    return {"project_id": project_id, "name": project["name"], "status": project["status"],
            "members": db.select(Member, mine, order_by="role", descending=True),  # owners 1st
            "tasks": sum(by_status.values()), "by_status": by_status,
            "overdue": db.count(Task, {**open_, "due__lt": today.isoformat()}),
            "next_due": upcoming[0]["due"] if upcoming else None}


_PROJECTS = ("Website Redesign", "Mobile App Launch", "Q2 Marketing Campaign", "Office Move",
             "Data Warehouse Migration", "Customer Onboarding Revamp", "Security Audit",
             "Annual Report 2025", "Hiring Sprint 2025")
_VERBS = ("Draft", "Review", "Update", "Test", "Design", "Publish", "Plan", "Fix", "Migrate")
_OBJECTS = ("landing page", "budget", "release notes", "vendor contract", "login flow",
            "status report", "user survey", "style guide", "backup job", "kickoff meeting",
            "onboarding email", "access review", "dashboard", "press release", "roadmap")


@service.seeder
def seed(db: Db, pool: Pool) -> None:
    rng, fake = pool.rng("tasks"), pool.faker("tasks")

    def day(offset: int) -> str:  # a date relative to today
        return pool.day(offset).isoformat()

    for index, name in enumerate(_PROJECTS):
        archived = index >= len(_PROJECTS) - 2  # the last two are finished and archived
        start = -rng.randint(200, 300) if archived else -rng.randint(10, 150)
        people = rng.sample(pool.people, rng.randint(4, 7))
        project = db.insert(Project, name=name, description=fake.sentence(nb_words=10),
                            status="archived" if archived else "active", start_date=day(start),
                            owner_email=people[0].email)
        for i, person in enumerate(people):
            db.insert(Member, project_id=project["id"], email=person.email,
                      role="owner" if i == 0 else "member")
        tasks: list[tuple[dict[str, Any], int]] = []
        for _ in range(rng.randint(16, 28)):
            status = "done" if archived else rng.choices(get_args(Status), weights=(5, 3, 4))[0]
            created = rng.randint(start, -60 if archived else 0)
            due = created + rng.randint(3, 60) if rng.random() < 0.9 else None
            # A done task is only ever blocked by done tasks.
            blockers = [t["id"] for t, _ in tasks if status != "done" or t["status"] == "done"]
            tasks.append((db.insert(
                Task, project_id=project["id"], description=fake.sentence(nb_words=12),
                title=f"{rng.choice(_VERBS)} {rng.choice(_OBJECTS)}", status=status,
                priority=rng.choices(get_args(Priority), weights=(3, 5, 3, 1))[0],
                assignee_email=rng.choice(people).email if rng.random() < 0.85 else None,
                due=None if due is None else day(due), created=day(created),
                completed=day(rng.randint(created, 0)) if status == "done" else None,
                blocked_by=[rng.choice(blockers)] if blockers and rng.random() < 0.2 else [],
            ), created))
        for task, created in rng.sample(tasks, len(tasks) // 2):
            db.insert(Comment, task_id=task["id"], author_email=rng.choice(people).email,
                      body=fake.sentence(nb_words=rng.randint(6, 16)),
                      created=day(rng.randint(created, 0)))
