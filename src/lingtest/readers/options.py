"""Reader options from the config: every reader takes required keyword-only options, given here.

``conf/datasets.yaml`` holds them under ``readers``:

* ``readers.limits``: the safety caps on hostile or broken input (``max_depth``,
  ``max_member_bytes``, ``max_archive_bytes``, ``max_items``); each reader gets the caps it takes;
* ``readers.options.<format>``: every other option of the reader registered as ``<format>``
  (a cap set here wins over ``readers.limits`` for that format). A reader outside lingtest is named
  by its import path (``format: mypackage.module:read``) and takes its options from the dataset's.

A dataset's ``options`` (and a split's) override them. :func:`reader_options` merges the three and
raises :class:`~lingtest.errors.ConfigError` naming an option the reader does not take, or one it
needs that no layer gives. :func:`configured` gives a reader with its options bound, for code and
tests that call a reader outside the pipeline (the defaults then come from ``conf/datasets.yaml``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, cast

from lingtest.errors import ConfigError

__all__ = ["configured", "configured_limits", "reader_options", "readers_config"]


def _keyword_options(fn: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    params = inspect.signature(fn).parameters
    return {n: p for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}


def reader_options(fmt: str, readers_cfg: Mapping[str, Any], *layers: Mapping[str, Any],
                   where: str = "") -> dict[str, Any]:
    """The keyword options of reader ``fmt``: its caps from ``readers_cfg["limits"]``, then
    ``readers_cfg["options"][fmt]``, then each of ``layers`` (dataset options, split options) in
    order. An option the reader does not take, or a required one no layer gives, is a
    :class:`ConfigError` naming it (``where`` says which config the layers came from)."""
    from lingtest.readers import READERS

    params = _keyword_options(READERS.get(fmt))
    limits = dict(readers_cfg.get("limits") or {})
    all_options = readers_cfg.get("options") or {}
    if fmt not in all_options and ":" not in fmt:  # a reader given by import path takes the dataset's options
        raise ConfigError(f"readers.options.{fmt} is not configured (conf/datasets.yaml): every reader's "
                          f"options are listed there")
    own = dict(all_options.get(fmt) or {})
    out = {k: v for k, v in limits.items() if k in params}
    for name, layer in ((f"readers.options.{fmt}", own), *((where or "options", dict(x)) for x in layers)):
        unknown = sorted(set(layer) - set(params))
        if unknown:
            raise ConfigError(f"{name}: unknown option(s) {', '.join(unknown)} for reader {fmt!r}; "
                              f"it takes: {', '.join(params) or '(none)'}")
        out.update(layer)
    missing = [n for n, p in params.items() if p.default is inspect.Parameter.empty and n not in out]
    if missing:
        raise ConfigError(f"reader {fmt!r}: option(s) {', '.join(missing)} not given "
                          f"(set them in readers.options.{fmt} or readers.limits)")
    return out


@functools.lru_cache(maxsize=4)
def _load(path: str) -> dict[str, Any]:
    from omegaconf import DictConfig, OmegaConf

    node = OmegaConf.load(path)
    if not isinstance(node, DictConfig) or not isinstance(node.get("readers"), DictConfig):
        raise ConfigError(f"{path} has no `readers` section")
    return cast(dict[str, Any], OmegaConf.to_container(node["readers"], resolve=True))


def readers_config(conf_dir: str | Path | None = None) -> dict[str, Any]:
    """The ``readers`` section of ``conf/datasets.yaml`` (project checkout first, else the conf/
    beside the installed sources)."""
    from lingtest.paths import project_root

    if conf_dir is None:
        candidates = [project_root() / "conf", Path(__file__).resolve().parents[3] / "conf"]
        conf_dir = next((c for c in candidates if (c / "datasets.yaml").is_file()), candidates[0])
    path = Path(conf_dir) / "datasets.yaml"
    if not path.is_file():
        raise ConfigError(f"{path} not found: reader options are configured there")
    return _load(str(path.resolve()))


def configured_limits(conf_dir: str | Path | None = None) -> dict[str, int]:
    """``readers.limits`` of ``conf/datasets.yaml``."""
    return dict(readers_config(conf_dir)["limits"])


def configured(fmt: str, readers_cfg: Mapping[str, Any] | None = None,
               **overrides: Any) -> Callable[..., Iterator[Any]]:
    """Reader ``fmt`` with its configured options bound (``overrides`` win; a keyword given at
    the call wins too). ``readers_cfg``: the ``readers`` section (default: ``conf/datasets.yaml``'s)."""
    from lingtest.readers import READERS

    cfg = readers_cfg if readers_cfg is not None else readers_config()
    return functools.partial(READERS.get(fmt), **reader_options(fmt, cfg, overrides))
