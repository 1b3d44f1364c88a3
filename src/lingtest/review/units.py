"""What a review judges one at a time (``lingtest review --unit``): the suite's test cases (``case``, built
in), or the units a technique adds by registering a :class:`UnitProvider` under the ``lingtest.review_units``
entry points (``[project.entry-points."lingtest.review_units"]`` in ``pyproject.toml``, ``name =
"module:attr"``), found by name, so this layer never names a technique. S2LCT registers ``expansion``: the
distinct expanded sentences of its suite, each judged against its seed sentence.

A provider builds its units from a loaded suite and the configuration the suite was made with
(:meth:`UnitProvider.units`), gives a unit's group (:meth:`UnitProvider.group`) and its view
(:meth:`UnitProvider.item`, a :class:`~lingtest.review.views.ReviewItem` carrying the questions asked
of it), and says how its reviews are named: the folder ``reviews/<suite><folder_suffix>@<version or sha16>/``
and the words for the unit in messages and summaries. Its judgements are stored as a case's are, with
``"unit": <name>`` in the labels header.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from lingtest.errors import InputError
from lingtest.registry import Registry
from lingtest.review.sampling import Identified

if TYPE_CHECKING:
    from lingtest.review.views import ReviewItem

#: the built-in unit: a test case of the suite
CASE = "case"
#: the entry-point group a technique registers its review units under
GROUP = "lingtest.review_units"

#: what is judged one at a time: anything with an ``id`` (a test case, an S2LCT expanded sentence)
Unit = Identified


@runtime_checkable
class UnitProvider(Protocol):
    """A kind of review unit other than a test case (see the module doc)."""

    #: what the unit's reviews folder adds to the suite's name (``-expansion-sentences``)
    folder_suffix: str
    #: the unit in words, one and several (``expanded sentence``, ``expanded sentences``)
    noun: str
    plural: str
    #: the summary's column of the second question (``label kept``)
    label_column: str
    #: why a suite without such units is refused (the review's error message)
    none_found: str

    def units(self, suite: Any, config: Mapping[str, Any] | None) -> Sequence[Unit]:
        """The units of ``suite`` (a :class:`~lingtest.harness.loading.Suite`), ids unique and independent of
        the order of the suite file; ``config``: the plain configuration the suite was made with (``None``:
        not found)."""
        ...

    def group(self, unit: Any) -> str:
        """The group of ``unit`` (a stratum of the sample, a row of the summary)."""
        ...

    def item(self, unit: Any, *, capabilities: Mapping[str, str] | None = None) -> ReviewItem:
        """``unit`` as a reviewer sees it, with the questions asked of it (``ReviewItem.asks``);
        ``capabilities``: capability code -> name (``None``: the suite has none, no relevance question)."""
        ...


#: the registered review units (name -> :class:`UnitProvider`), from the ``lingtest.review_units`` entry points
REVIEW_UNITS: Registry[UnitProvider] = Registry("review unit", entry_points=GROUP)


def unit_names() -> list[str]:
    """The values ``--unit`` takes: ``case``, then the registered units."""
    return [CASE, *(n for n in REVIEW_UNITS.names() if n != CASE)]


def check_unit(unit: str) -> None:
    """Refuse an unknown review unit."""
    if unit != CASE and unit not in REVIEW_UNITS:
        raise InputError(f"unknown review unit {unit!r} (--unit is one of {', '.join(unit_names())})", field="unit")


def unit_provider(unit: str) -> UnitProvider | None:
    """The provider of ``unit`` (``None``: ``case``); an unknown unit is refused."""
    check_unit(unit)
    return None if unit == CASE else REVIEW_UNITS.get(unit)


def _known(unit: str) -> UnitProvider | None:
    """The provider of ``unit`` when it is registered (``None``: ``case``, or a unit whose technique is not
    installed here: a review folder made elsewhere still reads, under plain words)."""
    return REVIEW_UNITS.get(unit) if unit != CASE and unit in REVIEW_UNITS else None


def folder_suffix(unit: str) -> str:
    """What the reviews folder of ``unit`` adds to the suite's name (``-<unit>`` when it is not registered)."""
    if unit == CASE:
        return ""
    found = _known(unit)
    return found.folder_suffix if found is not None else f"-{unit}"


def noun(unit: str, *, several: bool = False) -> str:
    """``unit`` in words: ``case``/``cases``, or its provider's."""
    found = _known(unit)
    if found is not None:
        return found.plural if several else found.noun
    if unit == CASE:
        return "cases" if several else "case"
    return f"{unit} units" if several else f"{unit} unit"


def label_column(unit: str, task: str | None) -> str:
    """The summary's column of the second question: the provider's, else by ``task``."""
    found = _known(unit)
    if found is not None:
        return found.label_column
    return "label correct" if task == "classification" else "relation correct"
