"""Which system a user means: a Python function, a system object or a SPEC string, as a cached system.

A system under test is given as one of

* a **Python function** ``f(batch) -> outputs``: a list of inputs in the task's JSON form in, one output
  in the task's JSON form per input out (the ``callable`` kind with ``io: json``; see
  :mod:`lingtest.systems.generic.callable` for the forms). Its cache identity is ``module:qualname``
  plus its ``version`` attribute when it has one (bump it when the function changes), else a digest of
  its bytecode, so that an edited function is never answered from the old one's cache;
* a **system object** (:class:`~lingtest.systems.base.System`; a
  :class:`~lingtest.systems.cache.CachedSystem` is used as it is);
* a **SPEC string**, tried in this order:

  - ``http://...`` or ``https://...``: the ``http`` kind (its ``systems.generic.http`` defaults);
  - the path of an existing file: a predictions file (the ``predictions`` kind; its header's task must be
    the suite's);
  - ``spacy:<package>`` (an installed spaCy pipeline, NER) or ``hf:<model id or folder>`` (a Hugging
    Face checkpoint: NER or classification): the task's model kind, its other options taken from the
    first configured entry of that kind (``hf:`` clears ``revision``; for classification also
    ``label_map`` and ``neutral_margin``: the model's own labels must then be the suite's);
  - ``package.module:function``: the ``callable`` kind, the function imported now;
  - a name configured under ``systems.<task>`` of the composed configuration.

A SPEC string becomes an entry of ``systems.<task>`` (named by the SPEC) in a copy of the configuration
and is built by :func:`~lingtest.systems.factory.build_system`, like any configured system: generic
defaults, device, batch size, executor and the prediction cache all come from the configuration. A
function or system object is wrapped the same way in this process. Either way the result is a
:class:`~lingtest.systems.cache.CachedSystem`, so an interrupted run resumes from the cache.
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType
from typing import Any

from lingtest.config import Composed, to_plain
from lingtest.errors import ConfigError, InputError
from lingtest.systems.base import System
from lingtest.systems.cache import CachedSystem

#: ``package.module:function`` (dots after the colon walk attributes)
TARGET_RE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
URL_PREFIXES = ("http://", "https://")
#: model SPEC prefix -> task -> the system kind that runs such a model
MODEL_KINDS: dict[str, dict[str, str]] = {
    "spacy": {"ner": "spacy_ner"},
    "hf": {"ner": "hf_token_classification", "classification": "hf_text_classification"},
}

SystemLike = Callable[..., Any] | System[Any, Any] | str | Path


@dataclass
class ResolvedSystem:
    """A cached system and how the user named it (``kind``: function, object, http, predictions,
    callable or configured)."""

    system: CachedSystem
    spec: str
    kind: str
    version: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        """What a results summary records of the system."""
        return {"spec": self.spec, "kind": self.kind, "name": self.system.name,
                "version": self.version if self.version is not None else str(self.system.version),
                "config": self.system.config(), **self.extra}


def code_digest(fn: Any) -> str | None:
    """sha256 of a function's bytecode, names and constants (nested code included), or ``None`` for a
    callable without ``__code__``. File names and line numbers are left out: moving a function does not
    change it."""
    code = getattr(fn, "__code__", None)
    if not isinstance(code, CodeType):
        return None
    h = hashlib.sha256()

    def feed(c: CodeType) -> None:
        h.update(c.co_code)
        h.update(repr((c.co_names, c.co_varnames, c.co_freevars)).encode())
        for const in c.co_consts:
            if isinstance(const, CodeType):
                feed(const)
            else:
                h.update(repr(const).encode())

    feed(code)
    return h.hexdigest()


def function_target(fn: Any) -> str:
    """``module:qualname`` of a function (its name in the cache key and the results)."""
    module = getattr(fn, "__module__", None) or "__main__"
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"{module}:{name}"


def with_entry(cfg: Composed, task: str, name: str, entry: dict[str, Any] | None,
               batch_size: int | None = None, local: bool = False) -> Composed:
    """A copy of ``cfg`` with ``systems.<task>.<name>`` set to ``entry`` (kept when ``None``), its
    ``batch_size`` when given, and the local executor when ``local``."""
    from omegaconf import OmegaConf, open_dict

    out = copy.deepcopy(cfg)
    with open_dict(out):
        systems = out.systems
        if systems.get(task) is None:
            systems[task] = {}
        if entry is not None:
            systems[task][name] = entry
        if batch_size is not None:
            if name not in systems[task]:
                raise ConfigError(f"systems.{task}.{name} is not configured")
            if systems[task][name] is None:
                systems[task][name] = {}
            systems[task][name]["batch_size"] = batch_size
        if local:
            out.executor = OmegaConf.create({"name": "local"})
    return out


def _check_batch_size(batch_size: int | None) -> None:
    if batch_size is not None and (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                                   or batch_size < 1):
        raise ConfigError(f"batch_size must be a positive integer, got {batch_size!r}")


def _predictions_task(path: Path) -> str | None:
    from lingtest.data.io import read_header

    header = read_header(path)
    if header.get("kind") != "predictions":
        raise InputError(f"a {header.get('kind')!r} file, not a predictions file (kind 'predictions')",
                         path=path, line=1, field="kind")
    task = header.get("task")
    return str(task) if task is not None else None


def wrap_object(cfg: Composed, system: System[Any, Any], *, batch_size: int | None = None,
                progress: Any = None) -> CachedSystem:
    """A system object with the configured batching and prediction cache (in this process), as
    :func:`~lingtest.systems.factory.build_system` wraps the systems it builds."""
    from lingtest.paths import cache_dir
    from lingtest.resources.device import pick_device
    from lingtest.store import JSONStore
    from lingtest.systems.entries import device_batch_size

    scfg = to_plain(cfg.get("systems")) or {}
    own = getattr(system, "device", None)
    device = own if isinstance(own, str) and own not in ("", "auto") else pick_device(str(cfg.resources.device))
    batch = batch_size if batch_size is not None else device_batch_size(scfg["batch_size"], device,
                                                                         "systems.batch_size")
    store = None
    if scfg["cache"]:
        where = Path(scfg["cache_dir"]).expanduser() if scfg.get("cache_dir") else cache_dir() / "predictions"
        store = JSONStore(where / f"{system.task}.sqlite", table="predictions")
    return CachedSystem(system, store, batch_size=batch, progress=progress, device=device,
                        sort_by_length=bool(scfg.get("sort_by_length", False)))


def resolve_system(system: SystemLike, task: str, cfg: Composed, *, batch_size: int | None = None,
                   progress: Any = None) -> ResolvedSystem:
    """``system`` (see the module doc) as a cached system of ``task``; ``cfg``: the composed
    configuration; ``batch_size``: instead of the configured one."""
    from lingtest.systems.factory import build_system

    _check_batch_size(batch_size)
    if isinstance(system, CachedSystem):
        _same_task(system, task)
        return ResolvedSystem(system, system.name, "object")
    if isinstance(system, System):
        _same_task(system, task)
        return ResolvedSystem(wrap_object(cfg, system, batch_size=batch_size, progress=progress),
                              f"{type(system).__module__}:{type(system).__qualname__}", "object")
    if isinstance(system, Path):
        system = str(system)
    if callable(system) and not isinstance(system, str):
        target = function_target(system)
        user_version = getattr(system, "version", None)
        version = str(user_version) if user_version is not None else f"code:{(code_digest(system) or '')[:16]}"
        entry = {"kind": "callable", "function": target, "io": "json", "version": version}
        # a function object cannot travel to Ray actors by name: it runs here
        cached = build_system(with_entry(cfg, task, target, entry, batch_size, local=True), task, target,
                              progress=progress)
        cached.system._fn = system  # type: ignore[attr-defined]  # the object itself, not an import by name
        return ResolvedSystem(cached, target, "function", version)
    if not isinstance(system, str) or not system.strip():
        raise InputError(f"a system is a function, a System object or a SPEC string, got {system!r}",
                         field="system")
    spec = system.strip()
    if spec.startswith(URL_PREFIXES):
        entry = {"kind": "http", "url": spec}
        cached = build_system(with_entry(cfg, task, spec, entry, batch_size), task, spec, progress=progress)
        return ResolvedSystem(cached, spec, "http")
    path = Path(spec).expanduser()
    if path.is_file():
        file_task = _predictions_task(path)
        if file_task is not None and file_task != task:
            raise InputError(f"predictions of a {file_task} system; the suite's task is {task}", path=path,
                             field="task")
        name = path.stem
        entry = {"kind": "predictions", "path": str(path.resolve())}
        cached = build_system(with_entry(cfg, task, name, entry, batch_size), task, name, progress=progress)
        return ResolvedSystem(cached, str(path), "predictions")
    prefix, sep, model = spec.partition(":")
    if sep and prefix in MODEL_KINDS and model:
        entry = model_entry(cfg, task, prefix, model)
        cached = build_system(with_entry(cfg, task, spec, entry, batch_size), task, spec, progress=progress)
        return ResolvedSystem(cached, spec, prefix)
    if TARGET_RE.match(spec):
        from lingtest.systems.generic.callable import load_target

        load_target(spec)  # a typo is an error now, not after the suite is loaded and sampled
        entry = {"kind": "callable", "function": spec, "io": "json"}
        cached = build_system(with_entry(cfg, task, spec, entry, batch_size), task, spec, progress=progress)
        return ResolvedSystem(cached, spec, "callable")
    if spec.endswith(".jsonl") or "/" in spec or "\\" in spec:
        raise InputError(f"no such predictions file: {spec}", path=spec, field="system")
    configured = to_plain(cfg.systems.get(task)) or {}
    if spec not in configured:
        elsewhere = sorted(t for t, entries in (to_plain(cfg.systems) or {}).items()
                           if isinstance(entries, dict) and t != task and spec in entries and t != "generic")
        hint = f" ({spec!r} is a {' and '.join(elsewhere)} system)" if elsewhere else ""
        known = ", ".join(sorted(configured)) or "none"
        raise ConfigError(f"system {spec!r} is not a function (package.module:function), an http(s):// URL, "
                          f"a spacy:/hf: model, a predictions file or a configured {task} system{hint}; "
                          f"configured {task} systems: {known}")
    cached = build_system(with_entry(cfg, task, spec, None, batch_size), task, spec, progress=progress)
    return ResolvedSystem(cached, spec, "configured")


def predictions_path(system: SystemLike, task: str | None = None, cfg: Composed | None = None) -> Path | None:
    """The predictions file ``system`` names, as :func:`resolve_system` would read it, or ``None`` when it
    names another kind of system: a SPEC string or path of an existing file (not an ``http(s)://`` URL), a
    :class:`~lingtest.systems.predictions.PredictionsFile` (cached or not), or, given ``task`` and the
    composed ``cfg``, a configured ``systems.<task>`` name of kind ``predictions``."""
    from lingtest.systems.predictions import PredictionsFile

    inner = system.system if isinstance(system, CachedSystem) else system
    if isinstance(inner, PredictionsFile):
        return inner.path
    if isinstance(system, Path):
        system = str(system)
    if not isinstance(system, str) or not system.strip() or system.strip().startswith(URL_PREFIXES):
        return None
    spec = system.strip()
    path = Path(spec).expanduser()
    if path.is_file():
        return path
    if task is None or cfg is None:
        return None
    entry = (to_plain(cfg.systems.get(task)) or {}).get(spec)
    if isinstance(entry, dict) and entry.get("kind") == "predictions" and entry.get("path"):
        return Path(str(entry["path"])).expanduser()
    return None


def model_entry(cfg: Composed, task: str, prefix: str, model: str) -> dict[str, Any]:
    """The ``systems.<task>`` entry of a ``spacy:``/``hf:`` model SPEC: the first configured entry of the
    task's model kind, with ``model`` replaced (see the module doc)."""
    kinds = MODEL_KINDS[prefix]
    kind = kinds.get(task)
    if kind is None:
        raise InputError(f"a {prefix}: model runs {' and '.join(kinds)} suites, not {task}", field="system")
    configured = to_plain(cfg.systems.get(task)) or {}
    template = next((dict(e) for e in configured.values() if isinstance(e, dict) and e.get("kind") == kind), None)
    if template is None:
        raise ConfigError(f"no systems.{task} entry of kind {kind!r} to take the options of {prefix}:{model} from "
                          f"(conf/systems/default.yaml)")
    entry = {**template, "model": model}
    if "revision" in entry:
        entry["revision"] = None
    if kind == "hf_text_classification":
        entry.update(label_map=None, neutral_margin=None)
    return entry


def _same_task(system: System[Any, Any], task: str) -> None:
    got = getattr(system, "task", None)
    if got != task:
        raise InputError(f"system {system.name!r} is a {got} system; the suite's task is {task}", field="system")
