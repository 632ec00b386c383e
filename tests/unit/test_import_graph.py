"""No import circle between the project's modules (issue 21). Imports inside functions count too: a lazy import
hides a circle from the interpreter, not from a reader (generators.ces and generators.ces_avro had one). Every module
of the suite is in the graph, cdc_conformance/peers included (a circle through it went unseen: issue 58), read by
tests/unit/imports.py. Who may import whom at all: test_who_imports_whom.py."""
from pathlib import Path

import pytest

from tests.unit import imports


def _graph(extra: dict[Path, str] | None = None) -> dict[str, set[str]]:
    """Module -> the suite's modules it imports (`from pkg import mod` names the module); `extra`: a file's source
    taking the place of the one at its path (a fixture)."""
    sources = {path: (imports.SUITE_ROOT / path).read_text(encoding="utf-8") for path in imports.python_files()
               if path.parts[0] in (*imports.FOLDERS, imports.PACKAGE)}
    sources.update(extra or {})
    modules = {imports.module_name(path) for path in sources}
    graph = {}
    for path, source in sources.items():
        name = imports.module_name(path)
        graph[name] = {found if found in modules else found.rpartition(".")[0]
                       for found in imports.imported(source, path)} & modules - {name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def test_no_module_imports_itself_through_others():
    assert _circles(_graph()) == []


def test_the_graph_sees_the_imports():
    """Module names as the code imports them (cdc_conformance.<folder>...), the peers' too: a graph of other names
    would be empty."""
    graph = _graph()
    assert "cdc_conformance.model" in graph["cdc_conformance.normalizer.assembly"]
    assert "cdc_conformance.harness.jvm" in graph["cdc_conformance.peers.flink"]


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("fixture, pretends, rule, source", [f for f in imports.fixtures() if f[2] == "circle"],
                         ids=lambda value: value if isinstance(value, str) and value.endswith(".py") else "")
def test_each_circle_fixture_makes_a_circle(fixture, pretends, rule, source):
    circles = _circles(_graph({pretends: source}))
    assert any(imports.module_name(pretends) in circle for circle in circles), f"{fixture} ({pretends}) makes no circle"
