"""The layers a newcomer can see: shared code never imports a technique, and no two modules import each
other (directly or round a longer circle). The graph is derived from the source (AST: top-level and
function-level imports and lazy ``"module:attr"`` registry targets), so a new upward import fails here."""

from __future__ import annotations

import pytest

from lingtest.pipeline import deps

#: the technique packages (each its own home, ``src/lingtest/<technique>/``)
TECHNIQUES = {"crest", "adversarial", "tin", "contrapro", "contracat", "s2lct", "coref_training"}
#: the glue above every technique: the stage table, the CLI
GLUE = {"pipeline", "commands", "cli", "launcher"}
#: technique -> the other techniques it may import, with the reason
ALLOWED_ACROSS = {
    "contracat": {"contrapro"},  # one paper family: ContraCAT reuses ContraPro's German lexicon and report
    "coref_training": {"adversarial"},  # the mixed training set is made of the adversarial perturbations
}


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Edges from a shared module to a technique or the glue, and across techniques not allowed."""
    bad = []
    for m, targets in graph.items():
        src = layer(m)
        for t in sorted(targets):
            dst = layer(t)
            if src in TECHNIQUES:
                if dst in GLUE or (dst in TECHNIQUES and dst != src and dst not in ALLOWED_ACROSS.get(src, ())):
                    bad.append(f"{m} -> {t}")
            elif src not in GLUE and src != "" and (dst in TECHNIQUES or dst in GLUE):
                bad.append(f"{m} -> {t}")
            elif src == "" and (dst in TECHNIQUES or dst in GLUE):  # lingtest/__init__.py
                bad.append(f"{m} -> {t}")
    return bad


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    """Imports and lazy registry targets: a lazy target is a dependency too (it runs when asked for)."""
    return deps.import_graph()


@pytest.fixture(scope="module")
def imports() -> dict[str, set[str]]:
    """Import statements only: a package that registers ``"pkg.mod:attr"`` lazily while ``pkg.mod``
    imports the package's registry is the registration pattern, not a circle."""
    return deps.import_graph(lazy=False)


def test_the_graph_covers_the_package(graph):
    assert "lingtest.suite.expectations" in graph and "lingtest.crest.oracle" in graph
    assert "lingtest.data.model" in graph["lingtest.crest.oracle"]
    assert set(map(layer, graph)) >= TECHNIQUES | {"data", "readers", "systems", "suite", "release"}


def test_no_shared_layer_imports_a_technique(graph):
    assert upward_imports(graph) == []


def test_no_import_circles(imports):
    assert circles(imports) == []


def test_the_checks_catch_what_they_should():
    planted = {"lingtest.suite.expectations": {"lingtest.crest.oracle"},
               "lingtest.tin.report": {"lingtest.s2lct.report"},
               "lingtest.contracat.stages": {"lingtest.contrapro.lexicon"},
               "lingtest.crest.oracle": {"lingtest.data.model"}}
    assert upward_imports(planted) == ["lingtest.suite.expectations -> lingtest.crest.oracle",
                                       "lingtest.tin.report -> lingtest.s2lct.report"]
    ring = {"a.x": {"a.y"}, "a.y": {"a.z"}, "a.z": {"a.x"}, "a.w": {"a.x"}}
    assert circles(ring) == [["a.x", "a.y", "a.z"]]
    assert circles({"a.x": {"a.y"}, "a.y": set()}) == []
