"""Reward schemes by name: the ``RewardScheme`` extension point."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol, runtime_checkable

from numpy.typing import ArrayLike

from compoworld.errors import NotFound
from compoworld.rewards._arrays import Array
from compoworld.rewards._schemes import binary, cfr, gdpo, uniform


@runtime_checkable
class RewardScheme(Protocol):
    """Turns a batch of pass vectors ``(B, G, C)`` into one value per rollout ``(B, G)``.

    Attributes:
        name: The registry name.
        centered: True when the output is already group-centered (an advantage-like value
            such as :func:`gdpo`), False for a reward in ``[0, 1]``.
    """

    @property
    def name(self) -> str: ...

    @property
    def centered(self) -> bool: ...

    def __call__(
        self, passes: ArrayLike, mask: ArrayLike | None = None, weights: ArrayLike | None = None
    ) -> Array: ...


@dataclass(frozen=True)
class _Scheme:
    name: str
    centered: bool
    fn: Any
    params: dict[str, Any] = field(default_factory=dict)

    def __call__(
        self, passes: ArrayLike, mask: ArrayLike | None = None, weights: ArrayLike | None = None
    ) -> Array:
        result: Array = partial(self.fn, **self.params)(passes, mask, weights)
        return result


_CENTERED = {"binary": False, "uniform": False, "cfr": False, "gdpo": True}
_FUNCTIONS = {"binary": binary, "uniform": uniform, "cfr": cfr, "gdpo": gdpo}
SCHEMES: tuple[str, ...] = tuple(_FUNCTIONS)
"""The registered scheme names."""


def get_scheme(name: str, **params: Any) -> RewardScheme:
    """The reward scheme called ``name``, with keyword parameters bound (e.g. ``tau``).

    Example:
        >>> scheme = get_scheme("cfr", tau=0.5)
        >>> scheme([[[1, 0], [1, 1]]]).shape
        (1, 2)

    Raises:
        NotFound: no scheme has that name.
    """
    if name not in _FUNCTIONS:
        raise NotFound("reward scheme", name, SCHEMES)
    return _Scheme(name, _CENTERED[name], _FUNCTIONS[name], dict(params))
