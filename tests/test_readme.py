"""The README's Python example runs as written."""

import re
from pathlib import Path

README = Path(__file__).parent.parent / "README.md"


def test_readme_example_runs():
    (code,) = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    env, tools, episode = namespace["env"], namespace["tools"], namespace["episode"]
    assert len(tools) == len(env.tools) and episode.digest() == env.digest()
