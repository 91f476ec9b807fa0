"""Worlds: services composed for a task — the involved ones plus distractors — behind the
``direct`` or ``gateway`` interface.

Example:
    >>> from compoworld.world import compose
    >>> world = compose(["payments", "mail"], distractors=1, seed=0, interface="gateway")
    >>> [t["function"]["name"] for t in world.tools()]
    ['list_services', 'list_tools', 'describe_tool', 'call_tool']
"""

from compoworld.world._gateway import GATEWAY_TOOLS
from compoworld.world._images import assemble, image_dir, service_image
from compoworld.world._world import (
    Interface,
    World,
    catalog_environment,
    choose_distractors,
    compose,
)

__all__ = [
    "GATEWAY_TOOLS",
    "Interface",
    "World",
    "assemble",
    "catalog_environment",
    "choose_distractors",
    "compose",
    "image_dir",
    "service_image",
]
