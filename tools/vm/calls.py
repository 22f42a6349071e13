#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Who calls whom among the module's files, from the built objects.

  tools/vm/calls.py [--graph] MODDIR

MODDIR is a built copy of the tree (tools/vm/build-module.sh's OUTDIR).
Reads the symbols each object of twheel/ (not KUnit's) needs and defines
(nm), and fails (exit 1) when the per-CPU driver's files break the order
that twheel/base/base_int.h lists them in: each of them may use only the
files above it there. A call between two of those files either way round, the
shape of a call circle, is a failure. So is a call circle anywhere in the
module (files that use each other, directly or through others), each
printed as a path a -> b -> ... -> a.
With --graph, prints every object's callees and the call circles of the
whole module, a report only.
Ends with "calls: the driver's N files keep base_int.h's order, no call
circle".
"""
import os
import re
import subprocess
import sys

from includes import cycles

DRIVER = "twheel/base"
ORDER = re.compile(r"^ \*\s+(base\w*\.c)\s")


def symbols(obj):
    need, have = set(), set()
    out = subprocess.run(["nm", obj], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            need.add(f[1])
        elif len(f) == 3 and f[1] in "TDBRVW":
            have.add(f[2])
    return need, have


def main(argv):
    show = "--graph" in argv
    args = [a for a in argv if a != "--graph"]
    if len(args) != 1:
        print("usage:", __doc__.strip().splitlines()[2].strip())
        return 2
    top = args[0]
    objs = []
    for d, dirs, files in os.walk(os.path.join(top, "twheel")):
        dirs[:] = sorted(x for x in dirs if x != "kunit")
        for f in sorted(files):
            if f.endswith(".o") and not f.endswith(".mod.o"):
                objs.append(os.path.relpath(os.path.join(d, f), top))
    if not objs:
        print(f"calls: no objects under {top}/twheel: build the module first")
        return 1
    syms = {o: symbols(os.path.join(top, o)) for o in objs}
    graph = {o: sorted(p for p in objs if p != o and syms[o][0] & syms[p][1])
             for o in objs}
    if show:
        for o in objs:
            print(o, "->", " ".join(graph[o]))
        for c in cycles(graph):
            print("call circle:", " -> ".join(c))
        return 0

    with open(os.path.join(top, DRIVER, "base_int.h"), encoding="utf-8") as f:
        order = [f"{DRIVER}/{m.group(1)[:-2]}.o"
                 for m in map(ORDER.match, f) if m]
    driver = [o for o in objs if o.startswith(DRIVER + "/")]
    bad = [f"{o}: a file of the driver that base_int.h does not list"
           for o in driver if o not in order]
    bad += [f"{o}: listed in base_int.h, not built" for o in order
            if o not in objs]
    for o in driver:
        rank = order.index(o) if o in order else -1
        for p in graph[o]:
            if p in order and order.index(p) >= rank:
                what = sorted(syms[o][0] & syms[p][1])
                bad.append(f"{o} uses {p} ({', '.join(what)}), which "
                           "base_int.h lists after it")
    bad += ["call circle: " + " -> ".join(c) for c in cycles(graph)]
    for b in bad:
        print(b)
    if bad:
        print(f"calls: {len(bad)} problem(s) in the driver's order or "
              "call circles")
        return 1
    print(f"calls: the driver's {len(driver)} files keep base_int.h's order, "
          "no call circle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
