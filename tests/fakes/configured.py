"""Systems built from their configuration (``conf/systems/default.yaml``), for tests that need a
real system class: system constructors take required keyword-only options and have no defaults
in code. Import: ``from tests.fakes.configured import system_options, configured_system``."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from lingtest.paths import project_root


@lru_cache(maxsize=1)
def _systems() -> Any:
    from omegaconf import OmegaConf

    return OmegaConf.load(project_root() / "conf" / "systems" / "default.yaml")


def system_options(task: str, name: str, **overrides: Any) -> dict[str, Any]:
    """The configured options of ``systems.<task>.<name>`` (lingtest's own keys ``kind``, ``batch_size``
    and ``workers`` left out), ``overrides`` winning."""
    from omegaconf import OmegaConf

    from lingtest.systems.entries import OWN_KEYS

    entry = OmegaConf.to_container(_systems()[task][name], resolve=True)
    assert isinstance(entry, dict)
    options = {k: v for k, v in entry.items() if k not in OWN_KEYS}
    return {**options, **overrides}


def configured_system(task: str, name: str, **overrides: Any) -> Any:
    """The system of ``systems.<task>.<name>`` built by the factory (no cache, no device choice)."""
    from lingtest.systems.entries import instantiate

    return instantiate(task, name, system_options(task, name, **overrides))
