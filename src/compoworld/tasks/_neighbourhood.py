"""Which services of a large catalog one world walks over: a *linked neighbourhood*.

A task crosses services only through a value of an identifying type (an email, a phone, a
person's or a company's name: ``tasks._context.LINK_TYPES``) that one service's answer holds
and another service's tool takes. A service that shares no such value with any other of the
pool can be in no task; a world whose services were drawn without regard to these links
holds many such services and few of the partners its walks need (on a 282-service build, 85
services link to none). So a world is grown, as a neighbourhood, along the links of the
catalog's dependency graph:

* :func:`service_links`: per service, the other services a link-type value can flow to or
  from, with how many link types join them (either way), from the graph's index by key
  (linear in the index, never in pairs of tools);
* :func:`neighbourhood`: a service drawn uniformly among the linked ones (the *centre*), then
  one service at a time among those linked to what is drawn so far, each as likely as the
  links it has with them (a service many of the world's services can reach or be reached
  from is drawn sooner); where none is left (the centre's component is used up), a new centre.

Every draw depends on the world's seed alone, so every process draws the same world.
"""

from __future__ import annotations

import random
from collections import defaultdict

from compoworld.graph import DependencyGraph

Links = dict[str, dict[str, int]]
"""Per service, the services it shares link-type values with, and how many link types."""


def service_links(graph: DependencyGraph, link_types: frozenset[str]) -> Links:
    """Per service of ``graph``, the other services a value of one of ``link_types`` can flow
    into (one of its tools' answers holds it, one of theirs takes it) or out of, with the
    number of link types joining the two (counted once per direction); services with none are
    left out.

    Example:
        >>> from compoworld.catalog import load_services
        >>> from compoworld.graph import build_graph
        >>> graph = build_graph(load_services(["contacts", "mail", "calendar"]))
        >>> links = service_links(graph, frozenset({"Email"}))
        >>> links["contacts"]["mail"] > 0
        True
    """
    links: dict[str, dict[str, int]] = defaultdict(dict)
    for key in graph.taken_keys():
        if key[0] != "type" or key[1] not in link_types:
            continue
        takers = {graph.nodes[tool].service for tool, _ in graph.consumers(key)}
        for maker in {graph.nodes[tool].service for tool in graph.producers(key)}:
            for taker in takers - {maker}:
                links[maker][taker] = links[maker].get(taker, 0) + 1
                links[taker][maker] = links[taker].get(maker, 0) + 1
    return {service: dict(sorted(joined.items())) for service, joined in sorted(links.items())}


def neighbourhood(links: Links, size: int, rng: random.Random) -> list[str]:
    """Up to ``size`` linked services (sorted) grown from a centre drawn uniformly among
    ``links``: each next service is drawn among those linked to the ones drawn so far, with a
    weight of the links it has with them (:func:`service_links`' counts, summed); when the
    centre's component is used up, a new centre is drawn uniformly among the rest.

    Example:
        >>> links = {"a": {"b": 1}, "b": {"a": 1, "c": 2}, "c": {"b": 2},
        ...          "x": {"y": 1}, "y": {"x": 1}}
        >>> neighbourhood(links, 3, random.Random(1))  # grown from one centre
        ['a', 'b', 'c']
        >>> neighbourhood(links, 3, random.Random(0))  # the centre "x"'s component used up
        ['b', 'x', 'y']
    """
    chosen: list[str] = []
    weight: dict[str, int] = {}  # per service linked to the chosen ones (not chosen yet)
    left = set(links)
    while left and len(chosen) < size:
        if weight:
            names = sorted(weight)
            service = rng.choices(names, [weight[n] for n in names])[0]
        else:
            service = rng.choice(sorted(left))
        chosen.append(service)
        left.discard(service)
        weight.pop(service, None)
        for other, count in links[service].items():
            if other in left:
                weight[other] = weight.get(other, 0) + count
    return sorted(chosen)
