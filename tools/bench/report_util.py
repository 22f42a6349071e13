#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Helpers of tools/bench/report*.py: parsing, medians, ratios, tables,
the targets list and gnuplot. Imports nothing of the other report files."""
import os
import statistics
import subprocess
import sys
from collections import defaultdict


def parse_kv(text):
    out = {}
    for tok in text.split():
        if "=" in tok:
            k, v = tok.split("=", 1)
            out[k] = v
    return out


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def medians(rows, impls, fields):
    """Median over repetitions of each field, per (impl, n)."""
    groups = defaultdict(list)
    for r in rows:
        if "n" in r and "impl" in r:
            groups[(r["impl"], int(r["n"]))].append(r)
    out = []
    order = {name: i for i, name in enumerate(impls)}
    for (impl, n), grp in sorted(groups.items(),
                                 key=lambda x: (x[0][1], order.get(x[0][0], 99))):
        row = {"impl": impl, "n": n, "reps": len(grp)}
        for f in fields:
            vals = [num(g.get(f)) for g in grp if num(g.get(f)) is not None]
            row[f] = round(statistics.median(vals), 2) if vals else None
        out.append(row)
    return out


def get(rows, impl, n, field):
    for r in rows:
        if r["impl"] == impl and r["n"] == n:
            return r.get(field)
    return None


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt(v, nd=1):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def table(title, rows, impls, fields, base, peers):
    """Print per-N tables of every field, with base/peer ratios."""
    print(f"\n== {title}")
    ns = sorted({r["n"] for r in rows})
    for f in fields:
        head = [f"{'N':>9}"] + [f"{i:>14}" for i in impls] + \
               [f"{base + '/' + p:>24}" for p in peers]
        print(f"-- {f}")
        print(" ".join(head))
        for n in ns:
            cells = [f"{n:>9}"]
            for i in impls:
                cells.append(f"{fmt(get(rows, i, n, f)):>14}")
            for p in peers:
                r = ratio(get(rows, base, n, f), get(rows, p, n, f))
                cells.append(f"{fmt(r, 2):>24}")
            print(" ".join(cells))


class Targets:
    def __init__(self):
        self.items = []

    def add(self, name, met, measured, value=None, need=None):
        """One target: @met None when not measured (never "met" then);
        @value the measured figure the verdict rests on, @need its bound."""
        state = "not measured" if met is None else ("met" if met else "missed")
        item = {"target": name, "status": state, "measured": measured}
        if value is not None or need is not None:
            item["value"] = None if value is None else round(value, 3)
            item["need"] = need
        self.items.append(item)
        print(f"  [{state:>12}] {name}: {measured}")


def write_series(rows, impls, field, out, prefix):
    """One plot/<prefix>-<field>-<impl>.dat of (n, value) per impl that has
    values of @field; returns [(impl, file name)]."""
    series = []
    for impl in impls:
        pts = sorted((int(r["n"]), num(r.get(field))) for r in rows
                     if r["impl"] == impl and num(r.get(field)))
        if pts:
            name = f"{prefix}-{field}-{impl}.dat"
            with open(os.path.join(out, "plot", name), "w") as fh:
                fh.writelines(f"{n} {v}\n" for n, v in pts)
            series.append((impl, name))
    return series


def gnuplot(script, cwd):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, cwd=cwd,
                       check=True, capture_output=True)
        return True
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"report: gnuplot failed: {getattr(e, 'stderr', e)}",
              file=sys.stderr)
        return False


def md_table(rows, impls, field, base, peers, nd=1):
    ns = sorted({r["n"] for r in rows})
    head = ["N"] + impls + [f"{base}/{p}" for p in peers]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for n in ns:
        cells = [f"{n:g}"] + [fmt(get(rows, i, n, field), nd) for i in impls]
        cells += [fmt(ratio(get(rows, base, n, field), get(rows, p, n, field)), 2)
                  for p in peers]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)
