"""Reader options from the config: every reader takes required keyword-only options, given here.

``conf/datasets.yaml`` holds them under ``readers``:

* ``readers.limits``: the safety caps on hostile or broken input (``max_line_bytes``,
  ``max_file_bytes``, ``max_depth``, ``max_member_bytes``, ``max_archive_bytes``, ``max_items``);
  each reader gets the caps it takes;
* ``readers.options.<format>``: every other option of the reader registered as ``<format>``
  (a cap set here wins over ``readers.limits`` for that format). A reader outside lingtest is named
  by its import path (``format: mypackage.module:read``) and takes its options from the dataset's.

A dataset's ``options`` (and a split's) override them. :func:`reader_options` merges the three and
raises :class:`~lingtest.errors.ConfigError` naming an option the reader does not take, or one it
needs that no layer gives.

Outside the pipeline, read a file with :func:`read` (``read("conll2012", path, duplicates="drop")``)
or take the reader with its options bound from :func:`configured`; the options then come from
``conf/datasets.yaml``. A registered reader called directly (``READERS.get(fmt)(path)``) takes the
configured caps it is not given (:func:`bind_caps`: no reader runs unbounded) but no other option:
a missing one is a :class:`ReaderOptionsError` naming it and pointing to :func:`read`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, cast

from lingtest.errors import ConfigError

__all__ = ["ReaderOptionsError", "bind_caps", "configured", "configured_limits", "read", "reader_options",
           "readers_config"]


class ReaderOptionsError(ConfigError, TypeError):
    """A reader called without options it needs (a ``TypeError`` too, as Python's own for a
    missing argument): names them and the entry point that binds the configured ones."""


def _keyword_options(fn: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    params = inspect.signature(fn).parameters
    return {n: p for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}


def reader_options(fmt: str, readers_cfg: Mapping[str, Any], *layers: Mapping[str, Any],
                   where: str = "") -> dict[str, Any]:
    """The keyword options of reader ``fmt``: its caps from ``readers_cfg["limits"]``, then
    ``readers_cfg["options"][fmt]``, then each of ``layers`` (dataset options, split options) in
    order. An option the reader does not take, or a required one no layer gives, is a
    :class:`ConfigError` naming it (``where`` says which config the layers came from)."""
    from lingtest.readers.registry import READERS

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


def _datasets_yaml(conf_dir: str | Path | None) -> str:
    from lingtest.paths import project_root

    if conf_dir is None:
        candidates = [project_root() / "conf", Path(__file__).resolve().parents[3] / "conf"]
        conf_dir = next((c for c in candidates if (c / "datasets.yaml").is_file()), candidates[0])
    path = Path(conf_dir) / "datasets.yaml"
    if not path.is_file():
        raise ConfigError(f"{path} not found: reader options are configured there")
    return str(path.resolve())


def readers_config(conf_dir: str | Path | None = None) -> dict[str, Any]:
    """The ``readers`` section of ``conf/datasets.yaml`` (project checkout first, else the conf/
    beside the installed sources)."""
    return _load(_datasets_yaml(conf_dir))


@functools.lru_cache(maxsize=4)
def _load_limits(path: str) -> dict[str, int]:
    import yaml

    with open(path, encoding="utf-8") as fh:
        node = yaml.safe_load(fh)
    limits = ((node or {}).get("readers") or {}).get("limits") if isinstance(node, dict) else None
    if isinstance(limits, dict) and all(type(v) is int for v in limits.values()):
        return dict(limits)
    return dict(_load(path)["limits"])  # interpolations: resolved as the rest of the config


def configured_limits(conf_dir: str | Path | None = None) -> dict[str, int]:
    """``readers.limits`` of ``conf/datasets.yaml`` (read without the config machinery when they
    are plain numbers, so that light commands such as ``coref-score`` stay light)."""
    return dict(_load_limits(_datasets_yaml(conf_dir)))


def configured(fmt: str, readers_cfg: Mapping[str, Any] | None = None,
               **overrides: Any) -> Callable[..., Iterator[Any]]:
    """Reader ``fmt`` with its configured options bound (``overrides`` win; a keyword given at
    the call wins too). ``readers_cfg``: the ``readers`` section (default: ``conf/datasets.yaml``'s)."""
    from lingtest.readers.registry import READERS

    cfg = readers_cfg if readers_cfg is not None else readers_config()
    return functools.partial(READERS.get(fmt), **reader_options(fmt, cfg, overrides))


def read(fmt: str, path: str | Path, *, readers_cfg: Mapping[str, Any] | None = None,
         **overrides: Any) -> Iterator[Any]:
    """The records of ``path`` read by reader ``fmt`` with its configured options (``overrides``
    win; ``readers_cfg``: the ``readers`` section, default ``conf/datasets.yaml``'s). An option
    the reader does not take is a :class:`ConfigError` naming it."""
    return configured(fmt, readers_cfg, **overrides)(path)


def _format_of(reader: Callable[..., Any]) -> str | None:
    """The name ``reader`` is registered under, if any (for messages)."""
    from lingtest.readers.registry import READERS

    for name in READERS.names():
        try:
            if READERS.get(name) is reader:
                return name
        except Exception:  # noqa: BLE001 - a reader whose module cannot be imported is not this one
            continue
    return None


def bind_caps(reader: Callable[..., Any], missing: list[str]) -> dict[str, Any]:
    """The configured values (``readers.limits``) of the safety caps among ``missing``, the
    required options a call of ``reader`` lacks; any other missing option is a
    :class:`ReaderOptionsError` naming it and pointing to :func:`read`."""
    limits = configured_limits()
    others = [n for n in missing if n not in limits]
    if others:
        fmt = _format_of(reader) or "<format>"
        name = getattr(reader, "__name__", "the reader")
        raise ReaderOptionsError(
            f"{name}() needs the option(s) {', '.join(others)}, whose values are configured in "
            f"conf/datasets.yaml (readers.options.{fmt}): read with lingtest.readers.read({fmt!r}, path, "
            f"**overrides), or take the reader from lingtest.readers.options.configured({fmt!r}), which bind them")
    return {n: limits[n] for n in missing}
