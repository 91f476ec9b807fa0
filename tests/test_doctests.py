"""The ``Example:`` blocks of the public API's docstrings run as doctests (docs that work)."""

import doctest
import importlib
import pkgutil

import compoworld


def test_docstring_examples_run():
    attempted, failures = 0, []
    for info in pkgutil.walk_packages(compoworld.__path__, prefix="compoworld."):
        module = importlib.import_module(info.name)
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        attempted += result.attempted
        if result.failed:
            failures.append(f"{info.name}: {result.failed} of {result.attempted} failed")
    assert not failures, failures
    assert attempted >= 40  # the public API documents itself with examples
