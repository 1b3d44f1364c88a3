"""Config composition: the same Hydra composition DVC runs for ``dvc exp run -S ...``, so that
``params.yaml`` is always exactly what ``conf/`` says."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from omegaconf import DictConfig
from pydantic import BaseModel, ConfigDict, ValidationError

from lingtest.paths import project_root

#: the whole composed configuration (``params.yaml``, an OmegaConf node): what the stage context, the
#: system factory, the executor and the release tools read their own sections from
Composed = DictConfig


def _enabled(spec: Any) -> bool:
    return bool(spec.get("pipeline", True))


def pipeline_datasets(record: str = "", *, _root_: Any) -> list[str]:
    """``${lingtest.datasets:[record]}``: the configured datasets the pipeline runs (their spec's
    ``pipeline`` is true, the default), optionally only those whose records are ``record``."""
    return [str(n) for n, spec in _root_.datasets.items()
            if _enabled(spec) and (not record or spec.get("record", "document") == record)]


def parsed_splits(*reads: Any, _root_: Any) -> dict[str, list[str]]:
    """``${lingtest.parsed_splits:read,...}``: dataset -> the splits of its parse that stages read, each once, in
    their first order. A read is ``{dataset: d, split: s}``, ``{dataset: d, splits: [s, ...]}`` or a list of
    such (TIN's phrase-index corpora); ``splits: []`` names a corpus a DVC file depends on whatever is read."""
    out: dict[str, list[str]] = {}

    def add(read: Any) -> None:
        if isinstance(read, Sequence) and not isinstance(read, str | Mapping):
            for r in read:
                add(r)
            return
        if not isinstance(read, Mapping) or "dataset" not in read or ("split" in read) == ("splits" in read):
            raise ValueError("lingtest.parsed_splits: a read is {dataset, split} or {dataset, splits}, "
                             f"got {read!r}")
        splits = [read["split"]] if "split" in read else list(read["splits"])
        have = out.setdefault(str(read["dataset"]), [])
        have.extend(s for s in dict.fromkeys(map(str, splits)) if s not in have)

    for read in reads:
        add(to_plain(read))
    return out


def mirror_path(_root_: Any) -> str:
    """The offline mirror: ``$LINGTEST_MIRROR`` when set (it wins over the profile), else
    ``profile.mirror``."""
    import os

    return os.environ.get("LINGTEST_MIRROR") or str(_root_.profile.mirror)


def pipeline_inputs(*, _root_: Any) -> dict[str, str]:
    """``${lingtest.inputs:}``: dataset -> the folder its download stage reads (a DVC dependency, so
    editing a data file re-runs what depends on it): a local source's path, else the mirror. Inputs
    outside the repository are linked into DVC's experiment-copy folder
    (:func:`lingtest.paths.expose_to_experiment_copies`)."""
    from lingtest.paths import expose_to_experiment_copies

    out = {}
    for name in pipeline_datasets(_root_=_root_):
        src = _root_.datasets[name].get("source") or {}
        out[name] = str(src.get("path")) if src.get("kind") == "local" else mirror_path(_root_)
    # composing (also DVC's, for `dvc exp run --queue -S ...`) makes these reachable from experiment copies
    expose_to_experiment_copies(project_root(), list(out.values()))
    return out


def register_resolvers() -> None:
    """The resolvers ``conf/`` uses; registered by :func:`compose` and, for ``dvc exp run``, by the
    Hydra plugin shim ``hydra_plugins/lingtest_resolvers.py`` that DVC loads."""
    from omegaconf import OmegaConf

    def container(fn: Any) -> Any:  # OmegaConf.resolve stores containers only as configs
        return lambda *a, _root_: OmegaConf.create(fn(*a, _root_=_root_))

    for name, fn in (("lingtest.datasets", container(pipeline_datasets)),
                     ("lingtest.inputs", container(pipeline_inputs)), ("lingtest.mirror", mirror_path),
                     ("lingtest.parsed_splits", container(parsed_splits))):
        if not OmegaConf.has_resolver(name):
            OmegaConf.register_new_resolver(name, fn)


def compose(overrides: Sequence[str] = (), conf_dir: Path | None = None, config_name: str = "config") -> Any:
    """Compose ``conf/`` with Hydra overrides; returns a resolved ``DictConfig``."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from omegaconf import OmegaConf

    register_resolvers()
    conf_dir = (conf_dir or project_root() / "conf").resolve()
    with initialize_config_dir(str(conf_dir), version_base=None):
        cfg = hydra_compose(config_name=config_name, overrides=list(overrides))
    OmegaConf.resolve(cfg)
    return cfg


def compose_yaml(overrides: Sequence[str] = (), conf_dir: Path | None = None) -> str:
    """The text DVC writes to params.yaml for these overrides."""
    from omegaconf import OmegaConf

    return OmegaConf.to_yaml(compose(overrides, conf_dir))


def write_params(path: Path | None = None, overrides: Sequence[str] = (), conf_dir: Path | None = None) -> Path:
    from lingtest.data.io import atomic_open

    path = path or project_root() / "params.yaml"
    with atomic_open(path) as fh:
        fh.write(compose_yaml(overrides, conf_dir))
    return path


def load_params(path: Path | None = None, overrides: Sequence[str] = ()) -> Any:
    """Load params.yaml (what DVC stages see) and apply ``key=value`` dot-list overrides."""
    from omegaconf import OmegaConf

    from lingtest.errors import MissingResourceError

    path = path or project_root() / "params.yaml"
    if not path.exists():
        raise MissingResourceError(f"{path} not found: run `lingtest config compose` to write it from conf/")
    cfg = OmegaConf.load(path)
    OmegaConf.set_struct(cfg, True)  # a key conf/ does not define is an error, never a silent default
    if overrides:
        from omegaconf.errors import ConfigKeyError

        from lingtest.errors import ConfigError

        try:
            cfg = OmegaConf.merge(cfg, OmegaConf.from_dotlist(list(overrides)))
        except ConfigKeyError as exc:
            raise ConfigError(f"unknown config key in overrides {list(overrides)}: {exc.msg}") from None
    return cfg


def to_plain(node: Any) -> Any:
    """An OmegaConf node as plain dicts/lists (resolved); anything else unchanged."""
    from omegaconf import OmegaConf

    if OmegaConf.is_config(node):
        return OmegaConf.to_container(node, resolve=True)
    return node


# ---- typed sections ---------------------------------------------------------------------------------
# A technique (or component) declares its part of the configuration as a pydantic model: every key of
# its conf/ group a typed field, no default values (defaults live in conf/ only), unknown keys an error.
# The stage runner validates the section once when a stage starts and hands the body a typed object.


class Block(BaseModel):
    """A typed block of configuration: frozen, unknown keys rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Section(Block):
    """The typed configuration of one top-level section (``section``: its key in the composed config,
    e.g. ``crest`` for ``conf/crest/``)."""

    section: ClassVar[str]

    @classmethod
    def from_config(cls: type[S], cfg: Composed) -> S:
        """Validate ``cfg[section]`` (``cfg``: the composed config) into this model; a missing, unknown
        or mistyped key is a :class:`~lingtest.errors.ConfigError` naming it."""
        from lingtest.errors import ConfigError

        node = cfg.get(cls.section) if hasattr(cfg, "get") else None
        if node is None:
            raise ConfigError(f"the configuration has no {cls.section!r} section (conf/{cls.section}/)")
        return validate(cls, to_plain(node), cls.section)


S = TypeVar("S", bound=Section)
B = TypeVar("B", bound=Block)


def validate(model: type[B], data: Any, where: str) -> B:
    """``data`` (plain dicts) as ``model``; errors name the dotted key under ``where``."""
    from lingtest.errors import ConfigError

    try:
        return model.model_validate(data)
    except ValidationError as exc:
        msgs = []
        for err in exc.errors():
            key = ".".join([where, *(str(x) for x in err["loc"])])
            kind = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
            msgs.append(f"{key}: {kind}")
        raise ConfigError("; ".join(msgs)) from None
