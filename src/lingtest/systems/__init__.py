"""Systems under test (a registry). Coreference systems implement
:class:`lingtest.systems.coref.base.CorefSystem`."""

from lingtest.registry import Registry

SYSTEMS: Registry = Registry("system under test")
SYSTEMS.register_lazy("sieve", "lingtest.systems.coref.sieve:SieveResolver")
SYSTEMS.register_lazy("xrenner", "lingtest.systems.coref.xrenner_adapter:XrennerSystem")
SYSTEMS.register_lazy("fastcoref", "lingtest.systems.coref.fastcoref_adapter:FastCorefSystem")
SYSTEMS.register_lazy("maverick", "lingtest.systems.coref.maverick_adapter:MaverickSystem")


def get_system(name: str, **options):
    return SYSTEMS.get(name)(**options)


__all__ = ["SYSTEMS", "get_system"]
