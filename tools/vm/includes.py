#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The include graph of the module's sources (twheel/), checked.

  tools/vm/includes.py [--dot] [TOP]

Reads every .c and .h under TOP/twheel (TOP: the repository, default the
current directory), resolves each quoted #include as the compiler does with
Kbuild's flags (the including file's folder, then -I TOP, TOP/include and
TOP/twheel: ccflags-y in ./Kbuild) and fails (exit 1) when:

- a quoted include names no file of the tree (the graph would be wrong);
- the graph has a cycle: each is printed as a path a -> b -> ... -> a;
- a layer reaches, directly or through other headers, what it must not:
    twheel/base/   the per-CPU driver's own headers: only the driver
                   (twheel/base/) and its KUnit suites (twheel/kunit/)
                   include them; the other layers use twheel/driver.h;
    twheel/wheel.h the pure wheel: only the driver, wheel*.c and KUnit;
    twheel/dev/    the device: nothing below it includes it but main.c,
                   which registers it.
With --dot, prints the graph in Graphviz's dot language instead.
Ends with "includes: N files, N edges, no cycle" when all is well.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')

# (what, who may reach it): a path ending in / is a folder.
LAYERS = [
    ("twheel/base/", ["twheel/base/", "twheel/kunit/"]),
    ("twheel/wheel.h", ["twheel/base/", "twheel/kunit/", "twheel/wheel.c",
                        "twheel/wheel_init.c"]),
    ("twheel/dev/", ["twheel/dev/", "twheel/main.c"]),
]


def under(path, where):
    return path.startswith(where) if where.endswith("/") else path == where


def sources(top):
    out = []
    for d, dirs, files in os.walk(os.path.join(top, "twheel")):
        dirs.sort()
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                out.append(os.path.relpath(os.path.join(d, f), top))
    return out


def resolve(top, src, name):
    for d in (os.path.dirname(src), "", "include", "twheel"):
        p = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(top, p)):
            return p
    return None


def cycles(graph):
    """Every elementary cycle's first occurrence in a depth-first walk."""
    found, state, stack = [], {}, []

    def walk(n):
        state[n] = 1
        stack.append(n)
        for m in graph.get(n, []):
            if state.get(m) == 1:
                found.append(stack[stack.index(m):] + [m])
            elif m not in state:
                walk(m)
        stack.pop()
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            walk(n)
    return found


def reach(graph, n):
    seen, todo = {}, [(n, [n])]
    while todo:
        n, path = todo.pop()
        for m in graph.get(n, []):
            if m not in seen:
                seen[m] = path + [m]
                todo.append((m, path + [m]))
    return seen


def main(argv):
    dot = "--dot" in argv
    args = [a for a in argv if a != "--dot"]
    top = args[0] if args else "."
    files = sources(top)
    graph, bad = {}, []
    for f in files:
        graph[f] = []
        with open(os.path.join(top, f), encoding="utf-8") as fh:
            for no, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                to = resolve(top, f, m.group(1))
                if to is None:
                    bad.append(f'{f}:{no}: "{m.group(1)}" names no file')
                elif to not in graph[f]:
                    graph[f].append(to)
    if dot:
        print("digraph twheel {")
        for f in files:
            for t in graph[f]:
                print(f'\t"{f}" -> "{t}";')
        print("}")
        return 0
    for c in cycles(graph):
        bad.append("include cycle: " + " -> ".join(c))
    for f in files:
        got = reach(graph, f)
        for what, who in LAYERS:
            if any(under(f, w) for w in who):
                continue
            for t in sorted(got):
                if under(t, what):
                    bad.append(f"{f} reaches {t} (only {', '.join(who)} may): "
                               + " -> ".join(got[t]))
    for b in bad:
        print(b)
    edges = sum(len(v) for v in graph.values())
    if bad:
        print(f"includes: {len(files)} files, {edges} edges, {len(bad)} problem(s)")
        return 1
    print(f"includes: {len(files)} files, {edges} edges, no cycle, layers kept")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
