"""Coreference systems under test."""

from lingtest.registry import Registry

TASK = "coref"

#: the coref systems (one line each; ``lingtest.systems.SYSTEMS`` reads this registry)
SYSTEMS: Registry = Registry("coref system")
SYSTEMS.register_lazy("sieve", "lingtest.systems.coref.sieve:SieveResolver")
SYSTEMS.register_lazy("xrenner", "lingtest.systems.coref.xrenner_adapter:XrennerSystem")
SYSTEMS.register_lazy("fastcoref", "lingtest.systems.coref.fastcoref_adapter:FastCorefSystem")
SYSTEMS.register_lazy("maverick", "lingtest.systems.coref.maverick_adapter:MaverickSystem")
SYSTEMS.register_lazy("neural", "lingtest.systems.coref.neural.system:NeuralCorefSystem")

__all__ = ["SYSTEMS", "TASK"]
