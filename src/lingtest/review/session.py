"""A suite opened for review (:class:`Review`): its sample, its cases (or the units of another kind a
technique registers, :mod:`lingtest.review.units`: S2LCT's distinct expanded sentences, ``unit="expansion"``)
as review items, its labels file.

A suite is reviewed on its cases: a release whose text is withheld and not materialised has none to
show (``lingtest release materialize`` fills them in), and a release of sources (TIN) has its cases
generated per system (review a suite file of generated cases instead); both are refused. The
relevance question is asked of a suite whose groups are capabilities (S2LCT, CheckList:
``meta.capability``); a capability's name comes from the configuration the suite was made with (the
release's ``provenance.json``, else the project's configuration), which a unit's provider is given too
(S2LCT reads the seed's label of an expanded sentence from it).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from lingtest.data.model import TestCase
from lingtest.errors import InputError
from lingtest.review.labels import Judgement, SuiteKey, labels_path, read_labels, record
from lingtest.review.sampling import sample_cases
from lingtest.review.units import CASE, Unit, UnitProvider, unit_provider
from lingtest.review.views import MAX_EDITED_SENTENCES, ReviewItem, review_item


@dataclass
class Review:
    """A loaded suite under review: ``suite`` (a :class:`~lingtest.harness.loading.Suite`), its ``key``,
    its labels file ``path``, the names of its capabilities (``None``: it has none) and, for a review of
    other units than cases (``key.unit``), their ``provider`` and the ``provided`` units judged instead of its
    cases."""

    suite: Any
    key: SuiteKey
    path: Path
    capabilities: dict[str, str] | None = None
    provider: UnitProvider | None = None
    provided: list[Unit] | None = None
    _groups: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def units(self) -> Sequence[Unit]:
        """What is judged: the suite's cases, or the provider's units."""
        return self.provided if self.provided is not None else self.suite.cases

    def group(self, unit: Unit) -> str:
        return self.provider.group(unit) if self.provider is not None else str(self.suite.group(unit))

    @property
    def groups(self) -> dict[str, str]:
        """Every unit's id (a case's, an expanded sentence's) with its group."""
        if not self._groups:
            self._groups = {u.id: self.group(u) for u in self.units}
        return self._groups

    def sample(self, size: int, seed: int, *, by_group: bool = False) -> list[Unit]:
        return sample_cases(self.units, size, seed, by_group=by_group, group=self.group)

    def items(self, units: Sequence[Unit], *, max_edited: int = MAX_EDITED_SENTENCES) -> list[ReviewItem]:
        if self.provider is not None:
            return [self.provider.item(u, capabilities=self.capabilities) for u in units]
        by_id = {c.id: c for c in self.suite.cases}
        return [review_item(u, task=self.suite.info.task, group=self.groups[u.id], capabilities=self.capabilities,
                            by_id=by_id, max_edited=max_edited) for u in cast(Sequence[TestCase], units)]

    def judgements(self) -> list[Judgement]:
        """Every judgement recorded for the suite, in file order."""
        return read_labels(self.path)[1] if self.path.is_file() else []

    def record(self, judgements: Sequence[Judgement], sample: Mapping[str, Any] | None = None) -> int:
        return record(self.path, self.key, judgements, sample)


def sample_spec(size: int, seed: int, by_group: bool) -> dict[str, Any]:
    """The sample as the labels header records it."""
    return {"seed": seed, "size": size, "by_group": by_group}


def check_reviewable(info: Any) -> None:
    """Refuse a suite without cases to show (see the module doc)."""
    if info.kind == "sources":
        raise InputError("a release of sources: its cases are generated for each system when it runs, so there "
                         "are none to review here; review a suite file of generated cases instead", path=info.path)
    if not info.materialized:
        release = Path(info.path).parent.parent
        raise InputError(f"the release withholds its text (the licence of its corpus): `lingtest release "
                         f"materialize {release}` fills it in from your copy, then review it", path=info.path)


def _release_config(source: Any, info: Any) -> dict[str, Any] | None:
    """The configuration recorded in the release the suite came from, if it came from one."""
    candidates: list[Path] = []
    if isinstance(source, str | os.PathLike):
        from lingtest.harness.loading import release_folder

        try:
            found = release_folder(str(source))
        except InputError:
            found = None
        candidates += [p for p in (found, Path(os.fspath(source))) if p is not None]
    candidates += list(Path(info.path).parents)[:3]
    for folder in candidates:
        prov = folder / "provenance.json"
        if prov.is_file():
            try:
                config = json.loads(prov.read_text(encoding="utf-8")).get("config")
            except (OSError, ValueError):
                return None
            return config if isinstance(config, dict) else None
    return None


def _project_config() -> dict[str, Any] | None:
    from lingtest.paths import project_root

    if not (project_root() / "conf").is_dir():
        return None
    try:
        from lingtest.config import compose, to_plain

        plain = to_plain(compose())
    except Exception:  # noqa: BLE001  (names are a courtesy: a configuration that does not compose has none)
        return None
    return plain if isinstance(plain, dict) else None


def suite_config(source: Any, suite: Any) -> dict[str, Any] | None:
    """The configuration the suite was made with: its release's, else the project's (``None``: neither)."""
    return _release_config(source, suite.info) or _project_config()


def capability_names(source: Any, suite: Any, config: Mapping[str, Any] | None = None) -> dict[str, str]:
    """Capability code -> name for the suite's cases (S2LCT: ``s2lct.suites.<suite>.capabilities.<code>.name``
    of the configuration the suite was made with, ``config`` when given); empty when the configuration says
    nothing."""
    suites = {str(c.meta["suite"]) for c in suite.cases if isinstance(c.meta.get("suite"), str)}
    if not suites:
        return {}
    if config is None:
        config = suite_config(source, suite) or {}
    out: dict[str, str] = {}
    for name in sorted(suites):
        caps = (((config.get("s2lct") or {}).get("suites") or {}).get(name) or {}).get("capabilities") or {}
        for code, spec in caps.items() if isinstance(caps, Mapping) else []:
            if isinstance(spec, Mapping) and isinstance(spec.get("name"), str):
                out.setdefault(str(code), str(spec["name"]))
    return out


def open_review(source: Any, *, root: Path | None = None, for_judging: bool = True, unit: str = CASE) -> Review:
    """The suite ``source`` (a :class:`~lingtest.harness.loading.Suite` or anything
    :func:`lingtest.load_suite` takes) opened for review; ``for_judging``: refuse a suite without cases
    to show. ``root``: the project root its ``reviews/`` folder is under. ``unit``: ``case`` judges the
    suite's test cases, another the units its registered provider builds (:mod:`lingtest.review.units`;
    ``expansion``: the distinct expanded sentences of an S2LCT suite, each against its seed sentence),
    refused for a suite without any."""
    found = unit_provider(unit)
    if hasattr(source, "info") and hasattr(source, "cases"):
        suite = source
    else:
        from lingtest.harness.loading import load_suite

        suite = load_suite(source)
    if for_judging:
        check_reviewable(suite.info)
    key = SuiteKey.from_info(suite.info, unit)
    config = suite_config(source, suite) if for_judging and (key.capabilities or found is not None) else None
    names = capability_names(source, suite, config or {}) if key.capabilities and for_judging else None
    provided = None
    if found is not None and for_judging:
        provided = list(found.units(suite, config))
        if not provided:
            raise InputError(found.none_found, path=suite.info.path, field="unit")
    return Review(suite=suite, key=key, path=labels_path(key, root),
                  capabilities=(names or {}) if key.capabilities else None, provider=found, provided=provided)
