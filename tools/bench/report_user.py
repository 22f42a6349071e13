#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The userspace tier of `make bench` in the report: its rows, the targets
of the ring (twheel_ring against io_uring, timerfd at its best and libuv),
the burst drain, the per-timer cost plot and the README tables.

A target whose rows were not measured (twheel_ring before the ring ABI
exists, a burst nobody ran) is "not measured", never "met".
"""
from report_util import (by_rep, ci_ratio, fmt, get, gnuplot, md_table,
                         medians, num, table, write_series)

RING = "twheel_ring"
# Known peers in display order; any other impl a run reports follows them.
USER_IMPLS = [RING, "twheel_batch", "twheel_single", "io_uring", "libuv",
              "timerfd", "timerfd_rearm", "timerfd_epollet", "posix"]
TIMERFDS = ["timerfd", "timerfd_rearm", "timerfd_epollet"]
PEERS = ["io_uring", "libuv", "timerfd", "timerfd_rearm", "timerfd_epollet",
         "posix"]
USER_FIELDS = ["arm_ns", "arm_rounds_ns", "cancel_ns", "deliver_ns",
               "deliver_awake_ns", "kmem_bytes_per_timer", "cpu_ns",
               "cpu_equal_ns", "deliver_cpu_ns", "deliver_spread_cpu_ns",
               "first_us", "rounds"]
SHOWN = [f for f in USER_FIELDS if f not in ("first_us", "rounds")]
PLOTTED = ["arm_ns", "cancel_ns", "deliver_ns", "cpu_ns", "cpu_equal_ns",
           "kmem_bytes_per_timer"]
# the bursts held to a bound: through the ring and through ABI 1's read()
BURSTS = [RING, "twheel_batch"]
# a burst record seen before D, never, twice, or never armed
BURST_COUNTS = ("early", "missing", "dup", "bad")
# the timerfd controls beside a burst (ubench_burst.c): on another CPU
# (the bound: tick + 3 x its worst lateness) and on the burst's CPU
BURST_CTRL = ("tick_ms", "ctrl_ms", "bound_ms", "ctrl_same_ms")


def user_rows(raw):
    """Medians over repetitions of the RESULT user lines."""
    for r in raw:
        d, f = num(r.get("deliver_ns")), num(r.get("first_us"))
        if d is not None and f is not None:
            # delivery once the reader is awake: without the wake-up latency
            r["deliver_awake_ns"] = str(d - f * 1000 / int(r["n"]))
    return medians(raw, USER_IMPLS, USER_FIELDS)


def peer_setup(raw):
    """What a peer reported about its setup (io_uring: uring_flags,
    uring_sq, uring_cq; twheel_ring: ring_entries, ring_map_bytes), per
    impl and N, as the guest printed it."""
    out = {}
    for r in raw:
        extra = {k: v for k, v in r.items() if k.startswith(("uring_", "ring_"))}
        if extra and "impl" in r and "n" in r:
            out.setdefault(r["impl"], {})[r["n"]] = extra
    return out


def user_impls(rows):
    seen = {r["impl"] for r in rows}
    return [i for i in USER_IMPLS if i in seen] + \
        sorted(seen - set(USER_IMPLS))


def base_impl(rows):
    """What the tables compare peers with: the ring once it exists."""
    return RING if any(r["impl"] == RING for r in rows) else "twheel_batch"


def burst_rows(raw):
    """RESULT burst impl= n= drain_ms= [early= missing= dup= bad=] lines."""
    out = []
    for r in raw:
        row = {"impl": r.get("impl"), "n": int(r.get("n", 0)),
               "drain_ms": num(r.get("drain_ms")),
               "first_ms": num(r.get("first_ms"))}
        for k in BURST_COUNTS:
            row[k] = int(r[k]) if k in r else None
        for k in BURST_CTRL:
            row[k] = num(r.get(k))
        row["ctrl_samples"] = int(r["ctrl_samples"]) \
            if "ctrl_samples" in r else None
        out.append(row)
    return out


def burst_drain_ms(bursts):
    """The ring's worst burst drain, or None (not measured)."""
    vals = [b["drain_ms"] for b in bursts
            if b["impl"] == RING and b["drain_ms"] is not None]
    return max(vals) if vals else None


def timerfd_series(ur, n, field):
    """{impl: {rep: value}} of the ring and every timerfd variant measured at
    @n, or {} (not measured) without the ring or without any variant."""
    series = {i: by_rep(ur, i, n, field) for i in [RING] + TIMERFDS
              if by_rep(ur, i, n, field)}
    return series if RING in series and len(series) > 1 else {}


def check_user_targets(data, t):
    """The ring's targets, ratios by the interval rule (report_util)."""
    us, ur, kr = data["user"], data["user_reps"], data["inkernel_reps"]
    ns = sorted({r["n"] for r in us})
    kns = {r["n"] for r in data["inkernel"]}
    both = [n for n in ns if n in kns]
    big = [n for n in ns if n >= 10000]
    top = ns[-1] if ns else None
    # against the in-kernel API, same run, repetitions paired by index
    ci_ratio(t, "twheel_ring arm <= 2.0x the in-kernel absolute arm "
             "(every N of both tiers)", both,
             lambda n: (by_rep(ur, RING, n, "arm_ns"),
                        by_rep(kr, "twheel", n, "arm_abs_ns")),
             2.0, what="twheel_ring arm_ns / in-kernel twheel arm_abs_ns")
    ci_ratio(t, "twheel_ring delivery <= 1.2x the in-kernel expire "
             "(every N of both tiers)", both,
             lambda n: (by_rep(ur, RING, n, "deliver_ns"),
                        by_rep(kr, "twheel", n, "expire_ns")),
             1.2, what="twheel_ring deliver_ns / in-kernel twheel expire_ns")
    mem_n = [n for n in ns if n >= 100000]
    if mem_n:
        ci_ratio(t, "twheel_ring kernel memory <= 1/4 of io_uring's at 1e5",
                 mem_n[:1], lambda n: (by_rep(ur, RING, n,
                                              "kmem_bytes_per_timer"),
                                       by_rep(ur, "io_uring", n,
                                              "kmem_bytes_per_timer")),
                 0.25, what="twheel_ring/io_uring")
    else:
        t.add("twheel_ring kernel memory <= 1/4 of io_uring's at 1e5", None,
              f"userspace N=1e5 not run (largest {fmt(top)}); see the "
              "largest-N line below")
    for field, name in (("arm_ns", "arm"), ("deliver_ns", "delivery")):
        ci_ratio(t, f"twheel_ring {name} >= 20x cheaper than timerfd at its "
                 "best (every N >= 1e4)", big,
                 lambda n, f=field: timerfd_series(ur, n, f),
                 20.0, upper=False, what="timerfd (best variant)/twheel_ring",
                 stat=lambda m: min(v for k, v in m.items() if k != RING)
                 / m[RING])
        ci_ratio(t, f"twheel_ring {name} >= 3x cheaper than io_uring "
                 "(every N >= 1e4)", big,
                 lambda n, f=field: (by_rep(ur, "io_uring", n, f),
                                     by_rep(ur, RING, n, f)),
                 3.0, upper=False, what="io_uring/twheel_ring")
    ci_ratio(t, "twheel_ring cancel >= 10x cheaper than io_uring (largest N)",
             ns[-1:], lambda n: (by_rep(ur, "io_uring", n, "cancel_ns"),
                                 by_rep(ur, RING, n, "cancel_ns")),
             10.0, upper=False, what="io_uring/twheel_ring")
    for f in ("cpu_ns", "cpu_equal_ns"):
        ci_ratio(t, f"twheel_ring lifecycle {f} <= libuv's (largest N; "
                 f"deadlines {'equal' if 'equal' in f else 'spread over 1 s'})",
                 ns[-1:], lambda n, f=f: (by_rep(ur, RING, n, f),
                                          by_rep(ur, "libuv", n, f)),
                 1.0, what="twheel_ring/libuv")
    ci_ratio(t, "twheel_ring kernel memory per timer <= 1/4 of io_uring's "
             "(largest N)", ns[-1:],
             lambda n: (by_rep(ur, RING, n, "kmem_bytes_per_timer"),
                        by_rep(ur, "io_uring", n, "kmem_bytes_per_timer")),
             0.25, what="twheel_ring/io_uring (Slab + VmallocUsed + the "
             "rings each maps)")
    for impl in BURSTS:
        check_burst(data, t, impl)


def expire_floor(data, n):
    """What the cheapest in-kernel expiry of this run (median expire_ns of
    the cheapest implementation at the in-kernel N nearest @n) costs for @n
    timers, or None. A burst's drain cannot be shorter than
    the CPU time its timers' expiry needs on the one CPU they share.
    Returns (ms, impl, the N it was measured at)."""
    rows = [r for r in data.get("inkernel") or [] if r.get("expire_ns")]
    if not rows:
        return None
    near = min({r["n"] for r in rows}, key=lambda k: abs(k - n))
    best = min((r for r in rows if r["n"] == near),
               key=lambda r: r["expire_ns"])
    return best["expire_ns"] * n / 1e6, best["impl"], near


def floor_text(data, n):
    f = expire_floor(data, n)
    if not f:
        return ""
    return (f"; {n:g} expiries at the cheapest in-kernel cost of this run "
            f"({f[1]}'s expire_ns at N={f[2]:g}) take {fmt(f[0])} ms of CPU "
            "alone")


def check_burst(data, t, impl):
    """A burst of 1e5 equal deadlines through @impl: its last record within
    tick + 3x the worst lateness of the timerfd control measured beside it,
    none early, lost, duplicated or never armed."""
    runs = [b for b in data["burst"] if b["impl"] == impl]
    name = (f"burst of 100 000 equal deadlines through {impl} drained within "
            "tick + 3x a timerfd control's worst lateness, none early, each "
            "exactly once")
    if not runs:
        t.add(name, None, f"not run (no {impl} burst in this run)")
        return
    ok = all(b["drain_ms"] is not None and b["bound_ms"] is not None
             and b["ctrl_samples"] and b["drain_ms"] <= b["bound_ms"]
             and b["n"] >= 100000
             and all(b[k] == 0 for k in BURST_COUNTS) for b in runs)
    worst = max(runs, key=lambda b: (b["drain_ms"] or 0)
                - (b["bound_ms"] or 0))
    t.add(name, ok,
          "; ".join(f"N={b['n']:g}: last record {fmt(b['drain_ms'])} ms "
                    f"after the deadline against {fmt(b['bound_ms'])} ms "
                    f"(tick {fmt(b['tick_ms'])} + 3 x control "
                    f"{fmt(b['ctrl_ms'])} ms, {fmt(b['ctrl_samples'])} "
                    f"samples; on the burst's CPU the control was "
                    f"{fmt(b['ctrl_same_ms'])} ms late), early "
                    f"{fmt(b['early'])}, missing "
                    f"{fmt(b['missing'])}, duplicates {fmt(b['dup'])}, "
                    f"never armed {fmt(b['bad'])}; first record "
                    f"{fmt(b['first_ms'])} ms after it"
                    + floor_text(data, b["n"]) for b in runs),
          worst["drain_ms"], worst["bound_ms"])


def print_user(data):
    us = data["user"]
    base = base_impl(us)
    impls = user_impls(us)
    table("Tier 2: userspace, ns per timer (median of reps); kmem in bytes",
          us, impls, SHOWN, base, [p for p in PEERS if p in impls])
    for b in data["burst"]:
        print(f"\n== Burst: {b['impl']} N={b['n']}: drain {fmt(b['drain_ms'])} ms"
              f" (bound {fmt(b['bound_ms'])} ms: tick {fmt(b['tick_ms'])} + 3 x "
              f"control {fmt(b['ctrl_ms'])} ms; on its CPU "
              f"{fmt(b['ctrl_same_ms'])} ms)"
              + "".join(f", {k} {fmt(b[k])}" for k in BURST_COUNTS))


def plot_user(data, out):
    """user.png: per-timer cost against N, every peer, one panel a field."""
    us = data["user"]
    panels = []
    impls = user_impls(us)
    for f in PLOTTED:
        series = write_series(us, impls, f, out, "user")
        if series:
            panels.append((f, series))
    if not panels:
        return None
    cols = 3
    rows = (len(panels) + cols - 1) // cols
    s = [f"set terminal pngcairo size {cols * 480},{rows * 360} font ',9' "
         "noenhanced", "set output 'user.png'", "set logscale xy",
         "set key outside bottom center horizontal", "set grid",
         "set xlabel 'pending timers N'",
         f"set multiplot layout {rows},{cols} title 'userspace peers, "
         "per timer, one run'"]
    for f, series in panels:
        kmem = f.startswith("kmem")
        s.append(f"set title '{f}" + (" (0 is off a log scale)'" if kmem else "'"))
        s.append(f"set ylabel '{'bytes' if kmem else 'ns'} per timer'")
        # one colour per peer in every panel
        s.append("plot " + ", ".join(
            f"'plot/{name}' using 1:2 with linespoints lw 2 "
            f"lt {impls.index(impl) + 1} title '{impl}'"
            for impl, name in series))
    s.append("unset multiplot")
    return "user.png" if gnuplot("\n".join(s) + "\n", out) else None


def md_user(data):
    """README lines for the userspace tier."""
    us = data["user"]
    if not us:
        return []
    base = base_impl(us)
    impls = user_impls(us)
    L = ["### Userspace, per timer (median); ratios are "
         f"{base}/peer (below 1: {base} cheaper)", "",
         "![per-timer cost against N, every userspace peer](user.png)", ""]
    for f in SHOWN:
        L += [f"**{f}**", "", md_table(us, impls, f, base,
                                      [p for p in PEERS if p in impls]), ""]
    for b in data["burst"]:
        L += [f"Burst: {b['impl']}, {b['n']:g} timers, last record "
              f"{fmt(b['drain_ms'])} ms after the deadline; a timerfd "
              f"control on another CPU was at worst {fmt(b['ctrl_ms'])} ms "
              f"late (bound: tick + 3x that = {fmt(b['bound_ms'])} ms), one "
              f"on the burst's CPU {fmt(b['ctrl_same_ms'])} ms"
              + floor_text(data, b["n"]) + ".", ""]
    return L
