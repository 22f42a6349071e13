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
    """The targets of a run. Ratios carry a 95 % bootstrap interval over
    repetitions and a state by the interval rule (report_util.verdict);
    counts (early expirations, wake-ups) are exact and carry none."""

    def __init__(self):
        self.items = []

    def add(self, name, met, measured, value=None, need=None):
        """A target decided by a count or a single figure: @met None when
        not measured (never "met" then)."""
        state = "not measured" if met is None else ("met" if met else "missed")
        item = {"target": name, "status": state, "measured": measured,
                "interval": None}
        if value is not None or need is not None:
            item["value"] = None if value is None else round(value, 3)
            item["need"] = need
        self.items.append(item)
        print(f"  [{state:>12}] {name}: {measured}")

    def add_ci(self, name, state, measured, value, lo, hi, reps, need=None,
               per_n=None):
        """A target decided by the interval rule: @value with [@lo, @hi]
        (the worst N's, for a target at every N), @per_n the figures of
        each N."""
        item = {"target": name, "status": state, "measured": measured,
                "value": None if value is None else round(value, 3),
                "interval": None if lo is None else [round(lo, 3),
                                                    round(hi, 3)],
                "reps": reps, "need": need}
        if per_n:
            item["per_n"] = per_n
        self.items.append(item)
        print(f"  [{state:>12}] {name}: {measured}")


def ci_ratio(t, name, ns, pair, bound, upper=True, what="twheel/peer",
             stat=None):
    """A ratio target at every N of @ns by the interval rule.

    @pair(n) -> ({rep: numerator}, {rep: denominator}); or with @stat,
    @pair(n) -> {key: {rep: value}} and @stat({key: median}) -> value.
    The point is the ratio of the medians; the interval is the paired
    bootstrap over repetitions. The state: met at every N -> met, missed
    at one -> missed, else inconclusive."""
    states, parts, per_n = [], [], []
    worst = (None, None, None, 0)
    for n in ns:
        if stat is None:
            a, b = pair(n)
            p, lo, hi, k = boot({"a": a, "b": b},
                                lambda m: m["a"] / m["b"])
        else:
            p, lo, hi, k = boot(pair(n), stat)
        st = verdict(lo, hi, bound, upper, k)
        states.append(st)
        per_n.append({"n": n, "value": None if p is None else round(p, 3),
                      "interval": None if lo is None else
                      [round(lo, 3), round(hi, 3)], "reps": k, "status": st})
        label = f"{n:g}" if isinstance(n, (int, float)) else str(n)
        parts.append(f"{label}: {fmt_ci(p, lo, hi)} ({k} reps, {st})")
        if p is not None and (worst[0] is None or
                              (hi > worst[2] if upper else lo < worst[1])):
            worst = (p, lo, hi, k)
    t.add_ci(name, combine(states) if ns else "not measured",
             f"{what} " + ("; ".join(parts) or "no N measured"),
             worst[0], worst[1], worst[2], worst[3], bound, per_n)


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


# ------------------------------------------------------------ statistics
# Verdicts that survive noise: a figure over repetitions is given with a
# 95 % percentile-bootstrap interval over those repetitions, and a target
# is "met" only when the whole interval is on the right side of its bound,
# "missed" when it is wholly on the wrong side, else "inconclusive".

BOOT_N = 2000
BOOT_SEED = 20261126
MIN_REPS = 5


def quantile(vals, q):
    """The q-quantile of @vals (linear interpolation between ranks)."""
    v = sorted(vals)
    if not v:
        return None
    pos = q * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def percentile_ci(samples, level=0.95):
    s = sorted(x for x in samples if x is not None)
    if not s:
        return None, None
    a = (1 - level) / 2
    return quantile(s, a), quantile(s, 1 - a)


def by_rep(rows, impl, n, field):
    """{rep: value} of one impl's @field at @n from the raw RESULT rows."""
    out = {}
    for r in rows:
        if r.get("impl") == impl and int(r.get("n", -1)) == n:
            v = num(r.get(field))
            if v is not None and "rep" in r:
                out[int(r["rep"])] = v
    return out


def boot(series, stat, b=BOOT_N, seed=BOOT_SEED):
    """Point estimate and 95 % bootstrap interval of @stat over repetitions.

    @series: {key: {rep: value}}; the repetitions present in every series
    are resampled together (paired: the same draws for every key, so a
    ratio of two peers keeps each repetition's pair). @stat gets {key:
    median over the drawn repetitions} and returns a number. Returns
    (point, lo, hi, reps); (None, None, None, reps) if a series is empty.
    """
    import random
    reps = None
    for d in series.values():
        reps = set(d) if reps is None else reps & set(d)
    reps = sorted(reps or [])
    if not reps:
        return None, None, None, 0

    def stat_of(draw):
        meds = {k: statistics.median(d[r] for r in draw)
                for k, d in series.items()}
        try:
            return stat(meds)
        except ZeroDivisionError:
            return None

    point = stat_of(reps)
    rng = random.Random(seed)
    samples = [stat_of([rng.choice(reps) for _ in reps]) for _ in range(b)]
    lo, hi = percentile_ci(samples)
    return point, lo, hi, len(reps)


def boot_values(a, b, stat, nb=BOOT_N, seed=BOOT_SEED):
    """Interval of stat(a*, b*) with @a and @b resampled independently
    (samples of timers, not repetitions): (point, lo, hi)."""
    import random
    if not a or not b:
        return None, None, None
    rng = random.Random(seed)
    point = stat(a, b)
    samples = []
    for _ in range(nb):
        samples.append(stat([rng.choice(a) for _ in a],
                            [rng.choice(b) for _ in b]))
    lo, hi = percentile_ci(samples)
    return point, lo, hi


def verdict(lo, hi, bound, upper=True, reps=None):
    """met / missed / inconclusive for "value <= bound" (@upper) or
    "value >= bound", from the interval [lo, hi]; "not measured" without
    one. Fewer than MIN_REPS repetitions can never decide."""
    if lo is None or hi is None:
        return "not measured"
    if reps is not None and reps < MIN_REPS:
        return "inconclusive"
    if upper:
        return "met" if hi <= bound else "missed" if lo > bound else \
            "inconclusive"
    return "met" if lo >= bound else "missed" if hi < bound else \
        "inconclusive"


def combine(states):
    """A target "at every N": missed if missed at one, met if met at all."""
    if not states or "not measured" in states:
        return "not measured"
    if "missed" in states:
        return "missed"
    if all(s == "met" for s in states):
        return "met"
    return "inconclusive"


def fmt_ci(point, lo, hi, nd=2):
    if point is None:
        return "-"
    return f"{point:.{nd}f} [{fmt(lo, nd)}, {fmt(hi, nd)}]"


def host_stat(lines, window=None):
    """Steal and busy shares of the host's CPUs between two /proc/stat
    "cpu" lines (before, after), and the window in seconds."""
    if len(lines) < 2:
        return {}
    a = [int(x) for x in lines[0].split()[1:]]
    b = [int(x) for x in lines[1].split()[1:]]
    d = [y - x for x, y in zip(a, b)]
    total = sum(d[:8]) or 1
    out = {"steal_pct": round(100.0 * d[7] / total, 2) if len(d) > 7 else None,
           "busy_pct": round(100.0 * (total - d[3] - d[4]) / total, 2),
           "iowait_pct": round(100.0 * d[4] / total, 2)}
    if window:
        t0, t1 = (float(x) for x in window.split())
        out["window_s"] = round(t1 - t0, 1)
    return out


def guest_steal(rows):
    """The guest's steal share between its "before" and "after" lines."""
    w = {r.get("when"): r for r in rows}
    if "before" not in w or "after" not in w:
        return None
    keys = ("user", "nice", "system", "idle", "iowait", "irq", "softirq",
            "steal")
    d = {k: int(w["after"][k]) - int(w["before"][k]) for k in keys}
    total = sum(d.values()) or 1
    return {"steal_pct": round(100.0 * d["steal"] / total, 2),
            "busy_pct": round(100.0 * (total - d["idle"] - d["iowait"])
                              / total, 2)}


# ------------------------------------------------------------ SVG
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
           "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"]


def unit_label(v, unit):
    """10**k of @unit ("ns" or "us") as a short time: 100 ns, 1 us, 10 ms."""
    ns = v * (1000 if unit == "us" else 1)
    for div, name in ((1e9, "s"), (1e6, "ms"), (1e3, "us"), (1, "ns")):
        if ns >= div:
            return f"{ns / div:g} {name}"
    return f"{ns:g} ns"


def svg_scatter(path, points, title, xlabel, ylabel, hlines=(), xunit="ns",
                yunit="us"):
    """A log-log scatter as a hand-written SVG (no plotting library).

    @points: dicts {x, y, series, label, shape ("o" or "s"), hollow};
    one colour
    per series, @label written next to the point; @hlines: (y, text)
    reference lines. Non-positive values are drawn at the axis floor."""
    import math
    pts = [p for p in points if p["x"] and p["x"] > 0 and p["y"] is not None]
    if not pts:
        return False
    W, H, L, R, T, B = 900, 600, 80, 200, 50, 60
    ys = [p["y"] for p in pts if p["y"] > 0] + [y for y, _ in hlines if y > 0]
    xs = [p["x"] for p in pts]
    ymin = 10 ** math.floor(math.log10(min(ys) if ys else 1))
    ymax = 10 ** math.ceil(math.log10(max(ys) if ys else 10))
    xmin = 10 ** math.floor(math.log10(min(xs)))
    xmax = 10 ** math.ceil(math.log10(max(xs)))
    if xmax == xmin:
        xmax *= 10
    if ymax == ymin:
        ymax *= 10

    def X(v):
        return L + (math.log10(v) - math.log10(xmin)) / \
            (math.log10(xmax) - math.log10(xmin)) * (W - L - R)

    def Y(v):
        v = max(v, ymin)
        return H - B - (math.log10(v) - math.log10(ymin)) / \
            (math.log10(ymax) - math.log10(ymin)) * (H - T - B)

    def esc(s):
        return (str(s).replace("&", "&amp;").replace("<", "&lt;")
                .replace(">", "&gt;"))

    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
         f'font-family="sans-serif" font-size="11">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="14">'
         f'{esc(title)}</text>']
    e = int(math.log10(xmin))
    while 10 ** e <= xmax:
        x = X(10 ** e)
        o.append(f'<line x1="{x:.1f}" y1="{T}" x2="{x:.1f}" y2="{H - B}" '
                 'stroke="#ddd"/>')
        o.append(f'<text x="{x:.1f}" y="{H - B + 16}" text-anchor="middle">'
                 f'{unit_label(10 ** e, xunit)}</text>')
        e += 1
    e = int(math.log10(ymin))
    while 10 ** e <= ymax:
        y = Y(10 ** e)
        o.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - R}" y2="{y:.1f}" '
                 'stroke="#ddd"/>')
        o.append(f'<text x="{L - 6}" y="{y + 4:.1f}" text-anchor="end">'
                 f'{unit_label(10 ** e, yunit)}</text>')
        e += 1
    o.append(f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" '
             'fill="none" stroke="black"/>')
    o.append(f'<text x="{(L + W - R) / 2}" y="{H - 20}" text-anchor="middle">'
             f'{esc(xlabel)}</text>')
    o.append(f'<text transform="translate(20,{(T + H - B) / 2}) rotate(-90)" '
             f'text-anchor="middle">{esc(ylabel)}</text>')
    for yv, text in hlines:
        if yv > 0:
            y = Y(yv)
            o.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - R}" y2="{y:.1f}" '
                     'stroke="#888" stroke-dasharray="5,4"/>')
            o.append(f'<text x="{W - R - 4}" y="{y - 4:.1f}" '
                     f'text-anchor="end" fill="#555">{esc(text)}</text>')
    series = []
    for p in pts:
        if p["series"] not in series:
            series.append(p["series"])
    for p in pts:
        c = PALETTE[series.index(p["series"]) % len(PALETTE)]
        x, y = X(p["x"]), Y(p["y"])
        paint = (f'fill="white" fill-opacity="0" stroke="{c}"'
                 if p.get("hollow") else f'fill="{c}" fill-opacity="0.8"')
        if p.get("shape") == "s":
            o.append(f'<rect x="{x - 5:.1f}" y="{y - 5:.1f}" width="10" '
                     f'height="10" {paint}/>')
        else:
            o.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5.5" {paint}/>')
        if p.get("label"):
            o.append(f'<text x="{x + 8:.1f}" y="{y + 4:.1f}" fill="{c}">'
                     f'{esc(p["label"])}</text>')
    for i, s in enumerate(series):
        c = PALETTE[i % len(PALETTE)]
        y = T + 10 + 18 * i
        o.append(f'<circle cx="{W - R + 16}" cy="{y}" r="5" fill="{c}"/>')
        o.append(f'<text x="{W - R + 26}" y="{y + 4}">{esc(s)}</text>')
    y = T + 10 + 18 * len(series) + 10
    o.append(f'<text x="{W - R + 10}" y="{y}" fill="#555">circle: in-kernel'
             '</text>')
    o.append(f'<text x="{W - R + 10}" y="{y + 16}" fill="#555">square: '
             'userspace</text>')
    if any(p.get("hollow") for p in pts):
        o.append(f'<text x="{W - R + 10}" y="{y + 32}" fill="#555">filled: '
                 'p99, hollow: p50</text>')
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")
    return True
