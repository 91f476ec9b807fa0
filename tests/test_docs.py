import re
import types
from pathlib import Path

from compoworld.service import Environment, Service, check_service

DOCS = Path(__file__).parent.parent / "docs"


def _python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def test_the_add_a_service_page_runs_and_passes_the_check():
    (code,) = _python_blocks(DOCS / "add-a-service.md")
    module = types.ModuleType("library_doc")
    exec(compile(code, "add-a-service.md", "exec"), module.__dict__)
    service = module.service
    assert isinstance(service, Service)
    report = check_service(service)
    assert report.ok, str(report)

    env = Environment([service])
    book, other = env.call("library__search_books", {"query": "a"})["data"][:2]
    lend = {"book_id": book["id"], "reader_email": "ada@example.com", "due": "2026-04-01"}
    assert env.call("library__lend_book", lend)["success"]
    again = env.call("library__lend_book", lend)
    assert again["error"]["code"] == 422 and "already lent out" in again["error"]["message"]
    past = env.call("library__lend_book", {**lend, "book_id": other["id"], "due": "2026-01-01"})
    assert past["error"]["code"] == 422 and "after today" in past["error"]["message"]
