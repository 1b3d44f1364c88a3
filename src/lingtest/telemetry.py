"""Nothing leaves the machine unasked: switches off the usage reports of the libraries in the stack,
and, when the profile has no network, their hub look-ups.

What phones home, checked in the installed sources (MLflow 3.17, huggingface_hub 2.4, DVC 3.67):

- MLflow >= 3.2 creates a telemetry client at ``import mlflow``; its first event (creating an
  experiment or a run) fetches a config from ``config.mlflow-telemetry.io`` and then posts usage
  records. Off with ``MLFLOW_DISABLE_TELEMETRY=true`` (or ``DO_NOT_TRACK=true``).
- huggingface_hub's ``send_telemetry`` (called by transformers, datasets and sentence-transformers)
  posts to the hub. Off with ``HF_HUB_DISABLE_TELEMETRY=1`` or ``DO_NOT_TRACK``; ``HF_HUB_OFFLINE=1``
  also stops every hub request (model look-ups), which is what a profile without network wants.
  ``HF_DATASETS_OFFLINE`` is the same switch for older ``datasets`` releases.
- DVC's CLI sends an analytics report after each command and checks for updates once a day.
  ``DVC_NO_ANALYTICS=1`` stops the report for any dvc process started from a stage; the ``dvc repro``
  that started the stage reads ``core.analytics`` and ``core.check_update`` from ``.dvc/config``.

``DO_NOT_TRACK`` is the cross-tool convention (https://donottrack.sh); MLflow only honours the value
``true``, huggingface_hub any true-ish one, so it is set to ``true``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from typing import Any

#: always: usage reports off
NO_TELEMETRY: dict[str, str] = {
    "MLFLOW_DISABLE_TELEMETRY": "true",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "DO_NOT_TRACK": "true",
    "DVC_NO_ANALYTICS": "1",
}
#: when the profile has no network: no hub requests at all
OFFLINE: dict[str, str] = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
}


def network_allowed(config: Mapping[str, Any]) -> bool:
    """``profile.network`` of a resolved config; without it the answer is no."""
    profile = config.get("profile")
    return bool(profile.get("network", False)) if isinstance(profile, Mapping) else False


def telemetry_env(*, offline: bool) -> dict[str, str]:
    """The environment variables that keep the stack quiet (pure)."""
    return {**NO_TELEMETRY, **(OFFLINE if offline else {})}


def missing_settings(environ: Mapping[str, str], wanted: Mapping[str, str]) -> dict[str, str]:
    """The ``wanted`` variables that ``environ`` does not set yet: a value the user set explicitly
    (e.g. ``HF_HUB_OFFLINE=0`` to let a model download) wins (pure)."""
    return {k: v for k, v in wanted.items() if k not in environ}


@contextmanager
def quiet_libraries(*, offline: bool,
                    environ: MutableMapping[str, str] | None = None) -> Iterator[dict[str, str]]:
    """Set :func:`telemetry_env` (without overriding what is set) for the duration of the block and
    restore the environment afterwards. Libraries read most of these variables at import time, so
    the block should open before they are imported; for the two that may already be imported here
    (``mlflow``, ``huggingface_hub``) their switches are also applied to the loaded modules. Yields
    the variables it set."""
    env = os.environ if environ is None else environ
    added = missing_settings(env, telemetry_env(offline=offline))
    env.update(added)
    restore_hub = _apply_to_loaded_hub(env)
    try:
        _apply_to_loaded_mlflow(env)
        yield added
    finally:
        for key in added:
            env.pop(key, None)
        restore_hub()


def _truthy(value: str | None) -> bool:
    return (value or "").strip().upper() in {"1", "ON", "YES", "TRUE"}


def _apply_to_loaded_hub(env: Mapping[str, str]) -> Any:
    """huggingface_hub copies its switches into ``huggingface_hub.constants`` at import and reads them
    from there at every call: set them there too when it is already imported; returns the undo."""
    constants: Any = sys.modules.get("huggingface_hub.constants")
    if constants is None:
        return lambda: None
    before = {name: getattr(constants, name) for name in ("HF_HUB_DISABLE_TELEMETRY", "HF_HUB_OFFLINE")
              if hasattr(constants, name)}
    if "HF_HUB_DISABLE_TELEMETRY" in before:
        constants.HF_HUB_DISABLE_TELEMETRY = before["HF_HUB_DISABLE_TELEMETRY"] or any(
            _truthy(env.get(k)) for k in ("HF_HUB_DISABLE_TELEMETRY", "DISABLE_TELEMETRY", "DO_NOT_TRACK"))
    if "HF_HUB_OFFLINE" in before:
        constants.HF_HUB_OFFLINE = before["HF_HUB_OFFLINE"] or _truthy(env.get("HF_HUB_OFFLINE"))

    def restore() -> None:
        for name, value in before.items():
            setattr(constants, name, value)

    return restore


def _apply_to_loaded_mlflow(env: Mapping[str, str]) -> None:
    """MLflow creates its telemetry client at import when telemetry is on: drop it when it is off now
    (MLflow also checks the variables at every event; this spares the idle client)."""
    off = _truthy(env.get("MLFLOW_DISABLE_TELEMETRY")) or (env.get("DO_NOT_TRACK") or "").lower() == "true"
    if off and "mlflow.telemetry.client" in sys.modules:
        from mlflow.telemetry.client import set_telemetry_client

        set_telemetry_client()
