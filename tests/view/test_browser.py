"""The viewer in a real browser: headless Debian chromium driven by Playwright (no browser
download), over the exported files (``file://``) and over the local server."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from compoworld.view import Bundle, build_bundle, export_viewer, serve

sync_api = pytest.importorskip("playwright.sync_api")
EXECUTABLE = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
"""Debian's chromium (``.ci/run`` installs it)."""
if EXECUTABLE is None:
    if os.environ.get("COMPOWORLD_REQUIRE_BROWSER"):
        raise RuntimeError("COMPOWORLD_REQUIRE_BROWSER is set but no chromium is installed")
    pytest.skip("no chromium (apt-get install -y chromium; .ci/run does)", allow_module_level=True)


def section(page: Any, title: str) -> Any:
    """The page's section under the heading ``title``."""
    return page.locator(f"section:has(> h2:text-is('{title}'))")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=EXECUTABLE, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("request", lambda request: errors.append(f"network: {request.url}")
            if not request.url.startswith(("file://", "http://127.0.0.1")) else None)
    yield page
    page.close()
    assert errors == [], errors


@pytest.fixture(scope="module")
def bundle(files: dict[str, Path]) -> Bundle:
    return build_bundle([files["tasks"], files["rollouts"], files["scored"]])


@pytest.fixture(scope="module")
def exported(bundle: Bundle, tmp_path_factory: pytest.TempPathFactory) -> str:
    return export_viewer(bundle, tmp_path_factory.mktemp("view") / "site").as_uri()


def test_tasks_list_filters_and_a_task_renders(page: Any, exported: str, bundle: Bundle) -> None:
    page.goto(exported + "#/tasks")
    count = page.locator(".filters .count")
    sync_api.expect(count).to_have_text("3 of 3 tasks")
    task = bundle.task(1)
    page.get_by_placeholder("search id, instruction, service").fill(task["id"])
    sync_api.expect(count).to_have_text("1 of 3 tasks")
    assert f"q={task['id']}" in page.url  # the filter is in the URL: a link reopens it
    page.get_by_role("link", name=task["id"]).click()

    sync_api.expect(page.locator(".instruction").first).to_have_text(task["instruction"])
    # the plan's steps, and a condition's write when it is not to be done
    unmet = bool(task.get("condition")) and not task["condition"].get("holds")
    sync_api.expect(page.locator(".step")).to_have_count(len(task["plan"]) + unmet)
    sync_api.expect(page.locator("table.rubric tbody tr")).to_have_count(len(task["rubric"]))
    sync_api.expect(page.locator("ul.gates li.pass")).to_have_count(sum(task["verification"].values()))
    for service in task["distractors"]:
        sync_api.expect(page.locator(".chip.distractor", has_text=service)).to_be_visible()
    # where a value came from: a later step names the earlier one it read
    read_from = {src["step"] for step in task["plan"] for src in step["sources"].values()
                 if src.get("kind") == "step" and src.get("step") is not None}
    assert read_from, "the task's plan carries no found value"
    for earlier in read_from:
        assert page.locator("table.args", has_text=f"step {earlier + 1}").count() >= 1

    page.goto(exported + "#/tasks")
    capability = task["labels"]["capabilities"][-1]
    page.locator("table.list a", has_text=capability).first.click()  # a chip filters the list
    expected = sum(capability in bundle.task(i)["labels"]["capabilities"] for i in range(3))
    sync_api.expect(count).to_have_text(f"{expected} of 3 tasks")


def test_a_trajectory_renders_its_calls_errors_and_verdicts(page: Any, exported: str, bundle: Bundle,
                                                             tmp_path: Path) -> None:
    row = next(r for r in bundle.index["runs"] if r["agent"] == "probe-write-all" and r["agent_errors"])
    run = bundle.run(row["i"])
    page.goto(exported + f"#/run/{row['i']}")
    sync_api.expect(page.locator("h1")).to_have_text(f"{row['task']} · #{row['r']}")
    sync_api.expect(page.locator(".call")).to_have_count(len(run["trajectory"]["calls"]))
    sync_api.expect(page.locator(".result.agent-error")).to_have_count(row["agent_errors"])
    criteria = run["scored"]["criteria"]
    sync_api.expect(page.locator("ul.verdicts li")).to_have_count(len(criteria))
    sync_api.expect(page.locator("ul.verdicts li.fail")).to_have_count(sum(not c["passed"] for c in criteria))
    first = criteria[0]
    sync_api.expect(page.locator("ul.verdicts li").first).to_contain_text(first["reason"])
    page.get_by_role("button", name="jump to the first failed call").click()
    sync_api.expect(page.locator(".result.agent-error").first).to_be_in_viewport()
    shot = tmp_path / "trajectory.png"
    page.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000

    nxt = bundle.index["runs"][row["i"] + 1]
    page.keyboard.press("j")  # next trajectory
    sync_api.expect(page.locator("h1")).to_have_text(f"{nxt['task']} · #{nxt['r']}")

    page.goto(exported + "#/runs?outcome=failed")
    sync_api.expect(page.locator(".filters .count")).to_have_text("6 of 9 trajectories")


def test_a_group_side_by_side_and_the_summary(page: Any, exported: str, bundle: Bundle) -> None:
    group = bundle.index["groups"][0]
    page.goto(exported + "#/group/0")
    sync_api.expect(page.locator("table.matrix thead th")).to_have_count(2 + len(group["runs"]))
    sync_api.expect(page.locator("table.matrix tbody tr")).to_have_count(len(group["cfr_weights"]))
    # the oracle's CFR reward
    sync_api.expect(page.locator("table.matrix tfoot tr").first).to_contain_text("1")

    page.goto(exported + "#/summary")
    summary = bundle.index["summary"]
    sync_api.expect(page.locator(".stat").nth(2)).to_contain_text("33.3%")
    kinds = section(page, "Pass rate per criterion kind").locator(".bar-row")
    sync_api.expect(kinds).to_have_count(len(summary["by_kind"]))
    failed = section(page, "Most-failed criteria").locator("tbody tr")
    sync_api.expect(failed).to_have_count(len(summary["most_failed"]))


def test_served_page_loads_chunks_and_tools_lazily(page: Any, bundle: Bundle) -> None:
    server = serve(bundle, port=0, block=False)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        loaded: list[str] = []
        page.on("request", lambda request: loaded.append(request.url.removeprefix(url)))
        page.goto(url + "#/runs")
        sync_api.expect(page.locator(".filters .count")).to_have_text("9 of 9 trajectories")
        assert not any(u.startswith("data/runs/") for u in loaded)  # the list needs the index only
        page.locator("table.list tbody tr").first.locator("a").click()
        sync_api.expect(page.locator("ul.verdicts li").first).to_be_visible()
        assert "data/runs/0.js" in loaded
        page.get_by_text("tools offered").click()
        toolset = bundle.run(0)["trajectory"]["tools"]
        sync_api.expect(page.locator("details.tooldef")).to_have_count(toolset["count"])
        assert f"data/tools/{toolset['toolset']}.js" in loaded
    finally:
        server.shutdown()
        server.server_close()


def test_unknown_fields_render_generically(page: Any, files: dict[str, Path], tmp_path: Path) -> None:
    lines = [orjson.loads(line) for line in files["scored"].read_bytes().splitlines()]
    message = next(m for m in lines[0]["trajectory"]["messages"] if m["role"] == "assistant")
    message["reasoning_content"] = "The list comes first; then the write."
    report = "## Report\n\n- **created** the record\n- `id` noted\n\n<b>not html</b>"
    lines[0]["trajectory"]["final_message"] = report
    lines[0]["trajectory"]["x_judge"] = {"verdict": "ok"}
    lines[0]["trajectory"]["x_report"] = "# Summary\n\n1. listed\n2. created"
    # an environment error (a bug in a tool, a world-model failure) is marked as not the agent's
    trajectory = lines[0]["trajectory"]
    trajectory["calls"][0].update(success=False, code=500, error="boom", error_source="environment")
    call_id = trajectory["calls"][0]["call_id"]
    result = next(m for m in trajectory["messages"] if m.get("tool_call_id") == call_id)
    result["content"] = orjson.dumps({"success": False, "error": {"code": 500, "message": "boom"}}).decode()
    newer = tmp_path / "scored.jsonl"
    newer.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in lines))
    site = export_viewer(build_bundle([files["tasks"], newer]), tmp_path / "site")
    page.goto(site.as_uri() + "#/run/0")
    sync_api.expect(page.locator("#notes .note")).to_contain_text("trajectory.x_judge")
    sync_api.expect(page.locator("details.reasoning").first).to_contain_text("The list comes first")
    answer = section(page, "Final answer")
    sync_api.expect(answer.locator("h4")).to_have_text("Report")
    sync_api.expect(answer.locator("li strong")).to_have_text("created")
    sync_api.expect(answer).to_contain_text("<b>not html</b>")  # escaped, never parsed
    other = section(page, "Other fields")
    sync_api.expect(other).to_contain_text("verdict")
    sync_api.expect(other.locator("ol li")).to_have_count(2)  # a multi-line string reads as Markdown
    env = page.locator(".result.env-error")
    sync_api.expect(env).to_have_count(1)
    sync_api.expect(env).to_contain_text("environment error — not the agent's")
    sync_api.expect(env).to_contain_text("500 boom")


def test_a_scenario_renders_its_planted_records_and_rule(page: Any, files: dict[str, Path],
                                                          tmp_path: Path) -> None:
    tasks = [orjson.loads(line) for line in files["tasks"].read_bytes().splitlines()]
    tasks[0]["scenario"] = {  # the shape of compoworld.tasks.Scenario
        "persona": "Emily Craig",
        "planted": [{"service": "mail", "entity": "message",
                     "values": {"subject": "Which deals to go with"}}],
        "rule": {"kind": "value", "author": "Ann Wong", "subject": "Which deals to go with", "step": 0,
                 "param": "query", "value": "deals", "selection": None},
        "traps": [], "notes": ["Ann Wong's rule says which deal to take."]}
    path = tmp_path / "tasks.jsonl"
    path.write_bytes(b"".join(orjson.dumps(t) + b"\n" for t in tasks))
    site = export_viewer(build_bundle([path]), tmp_path / "site")
    page.goto(site.as_uri() + "#/task/" + tasks[0]["id"])
    scenario = section(page, "Scenario and planted records")
    sync_api.expect(scenario).to_contain_text("who asks Emily Craig")
    sync_api.expect(scenario.locator("h3", has_text="Records planted (1)")).to_be_visible()
    sync_api.expect(scenario).to_contain_text("An email from Ann Wong, subject “Which deals to go with”")
    sync_api.expect(scenario).to_contain_text("Ann Wong's rule says which deal to take.")
