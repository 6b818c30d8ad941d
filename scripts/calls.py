#!/usr/bin/env python3
"""Which file calls which, read from the object files (nm), as `make lint` checks it.

Every call must run down the layers of src/LAYERS (a file uses symbols of its own
layer or of lower ones), and no files may call each other in a circle.  With --graph,
prints the edges, one "caller -> callee" a line.  Usage: calls.py BUILD_DIR [--graph]
"""
import os
import subprocess
import sys


def layers(root):
    order = []
    with open(os.path.join(root, "src", "LAYERS")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                order.append(line.split()[0])
    return order


def main():
    build = sys.argv[1]
    graph = "--graph" in sys.argv[2:]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    order = layers(root)
    objs = []
    for l in order:
        d = os.path.join(build, "src", l)
        if os.path.isdir(d):
            objs += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".o")]
    defs, uses = {}, {}
    for o in objs:
        name = os.path.relpath(o, os.path.join(build, "src"))[:-2]
        out = subprocess.run(["nm", "-P", o], capture_output=True, text=True, check=True).stdout
        uses[name] = set()
        for line in out.splitlines():
            sym, kind = line.split()[:2]
            if kind == "U":
                uses[name].add(sym)
            elif kind in "TDBRC":
                defs[sym] = name
    edges = {f: sorted({defs[s] for s in u if s in defs and defs[s] != f}) for f, u in uses.items()}
    if graph:
        for f in sorted(edges):
            for t in edges[f]:
                print(f"{f} -> {t}")
        return 0
    bad = 0
    rank = {l: i for i, l in enumerate(order)}
    for f, ts in sorted(edges.items()):
        for t in ts:
            if rank[t.split("/")[0]] > rank[f.split("/")[0]]:
                print(f"{f} calls up a layer, into {t}")
                bad = 1
    # Circles: strongly connected components of more than one file (Tarjan).
    index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    for c in sccs:
        print("files that call each other in a circle: " + " ".join(c))
        bad = 1
    if not bad:
        print(f"calls: {sum(map(len, edges.values()))} file-to-file calls among {len(edges)} "
              "objects run down the layers, in no circle")
    return bad


if __name__ == "__main__":
    sys.exit(main())
