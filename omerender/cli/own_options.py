"""A command's own options (those not in the settings registry) handed to it as one typed value."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

from omerender.cli.guard import F


def own_options(cls: type[Any]) -> Callable[[F], F]:
    """Give the command its click parameters named as the fields of the dataclass ``cls`` as ``options=cls(...)``
    (every other parameter passes through as it is): the command reads its options by attribute, typed."""
    names = tuple(f.name for f in dataclasses.fields(cls))

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            options = cls(**{name: kwargs.pop(name) for name in names})
            return fn(*args, options=options, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate
