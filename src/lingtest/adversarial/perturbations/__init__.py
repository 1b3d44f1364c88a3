"""Word-level perturbation schemes of Chai et al. (2021), one small module per scheme.

Orthographic (group ``alpha``): ``swap``, ``delete``, ``visual``.
Lexical (group ``beta``): ``synonym``, ``hyponym``, ``hypernym``.

Every entry of :data:`PERTURBATIONS` is a class implementing
:class:`lingtest.adversarial.perturbations.base.Perturbation`; instantiate it with its options
(see :func:`make_perturbation`) and call ``perturb(word, rng, context)``, which returns the
replacement tokens or ``None`` when the scheme cannot (or must not) change the word.
"""

from lingtest.registry import Registry

PERTURBATIONS: Registry = Registry("perturbation")
PERTURBATIONS.register_lazy("swap", "lingtest.adversarial.perturbations.swap:SwapLetters")
PERTURBATIONS.register_lazy("delete", "lingtest.adversarial.perturbations.delete:DeleteLetter")
PERTURBATIONS.register_lazy("visual", "lingtest.adversarial.perturbations.visual:VisualLetter")
PERTURBATIONS.register_lazy("synonym", "lingtest.adversarial.perturbations.lexical:SynonymReplacement")
PERTURBATIONS.register_lazy("hyponym", "lingtest.adversarial.perturbations.lexical:HyponymReplacement")
PERTURBATIONS.register_lazy("hypernym", "lingtest.adversarial.perturbations.lexical:HypernymReplacement")

def group_of(scheme: str) -> str | None:
    """The scheme class's ``group`` (``"alpha"`` orthographic, ``"beta"`` lexical); ``None`` for names
    that are not registered schemes (``clean``, ``mixed``)."""
    return PERTURBATIONS.get(scheme).group if scheme in PERTURBATIONS else None


def groups() -> dict[str, tuple[str, ...]]:
    """Group -> its schemes in registry order, from the classes (the paper's Table 3 groups)."""
    out: dict[str, tuple[str, ...]] = {}
    for name in PERTURBATIONS.names():
        g = group_of(name)
        if g is not None:
            out[g] = (*out.get(g, ()), name)
    return out


def options_of(scheme: str, acfg: dict) -> dict:
    """A scheme's constructor options: the adversarial config groups its class names in
    ``options_from``, merged in order."""
    out: dict = {}
    for section in PERTURBATIONS.get(scheme).options_from:
        out.update(dict(acfg.get(section) or {}))
    return out


def make_perturbation(name: str, **options):
    """Instantiate the perturbation registered as ``name`` with its options (:func:`options_of`: every
    one comes from config; a missing or unknown option is a :class:`~lingtest.errors.ConfigError`)."""
    cls = PERTURBATIONS.get(name)
    where = ", ".join(f"adversarial.{s}" for s in cls.options_from)
    return PERTURBATIONS.build(name, options, where=f"perturbation {name!r} (its options: {where})")


__all__ = ["PERTURBATIONS", "group_of", "groups", "make_perturbation", "options_of"]
