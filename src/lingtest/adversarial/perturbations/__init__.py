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

#: scheme groups as in the paper's Table 3
GROUPS: dict[str, tuple[str, ...]] = {
    "alpha": ("swap", "delete", "visual"),
    "beta": ("synonym", "hyponym", "hypernym"),
}
ALL_SCHEMES: tuple[str, ...] = GROUPS["alpha"] + GROUPS["beta"]


def group_of(scheme: str) -> str | None:
    """``"alpha"`` (orthographic), ``"beta"`` (lexical) or ``None`` for other names."""
    for g, members in GROUPS.items():
        if scheme in members:
            return g
    return None


def make_perturbation(name: str, **options):
    """Instantiate the perturbation registered as ``name`` with its options."""
    return PERTURBATIONS.get(name)(**options)


__all__ = ["ALL_SCHEMES", "GROUPS", "PERTURBATIONS", "group_of", "make_perturbation"]
