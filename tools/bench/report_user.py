#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The userspace tier of `make bench` in the report: its rows, the targets
of the ring (twheel_ring against io_uring, timerfd at its best and libuv),
the burst drain, the per-timer cost plot and the README tables.

A target whose rows were not measured (twheel_ring before the ring ABI
exists, a burst nobody ran) is "not measured", never "met".
"""
from report_util import (fmt, get, gnuplot, md_table, medians, num, ratio,
                         table, write_series)

RING = "twheel_ring"
# Known peers in display order; any other impl a run reports follows them.
USER_IMPLS = [RING, "twheel_batch", "twheel_single", "io_uring", "libuv",
              "timerfd", "timerfd_rearm", "timerfd_epollet", "posix"]
TIMERFDS = ["timerfd", "timerfd_rearm", "timerfd_epollet"]
PEERS = ["io_uring", "libuv", "timerfd", "timerfd_rearm", "timerfd_epollet",
         "posix"]
USER_FIELDS = ["arm_ns", "cancel_ns", "deliver_ns", "deliver_awake_ns",
               "kmem_bytes_per_timer", "cpu_ns", "cpu_equal_ns",
               "deliver_cpu_ns", "deliver_spread_cpu_ns", "first_us"]
SHOWN = [f for f in USER_FIELDS if f != "first_us"]
PLOTTED = ["arm_ns", "cancel_ns", "deliver_ns", "cpu_ns", "cpu_equal_ns",
           "kmem_bytes_per_timer"]
BURST_MS = 50
# a burst record seen before D, never, twice, or never armed
BURST_COUNTS = ("early", "missing", "dup", "bad")


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
        out.append(row)
    return out


def burst_drain_ms(bursts):
    """The ring's worst burst drain, or None (not measured)."""
    vals = [b["drain_ms"] for b in bursts
            if b["impl"] == RING and b["drain_ms"] is not None]
    return max(vals) if vals else None


def best_timerfd(rows, n, field):
    """timerfd at its best for @field at @n: (variant, value)."""
    vals = [(get(rows, i, n, field), i) for i in TIMERFDS
            if get(rows, i, n, field) is not None]
    if not vals:
        return None, None
    v, i = min(vals)
    return i, v


def _ratios(rows, ns, field, peer):
    """{n: (peer impl, peer/ring)} with the reference twheel_batch ratio."""
    out = {}
    for n in ns:
        if peer == "timerfd":
            impl, pv = best_timerfd(rows, n, field)
        else:
            impl, pv = peer, get(rows, peer, n, field)
        out[n] = (impl, pv, ratio(pv, get(rows, RING, n, field)),
                  ratio(pv, get(rows, "twheel_batch", n, field)))
    return out


def _verdict(rs, need):
    vals = [r[2] for r in rs.values()]
    if not vals or None in vals:
        return None, None
    return min(vals) >= need, min(vals)


def _text(rs, what):
    parts = []
    for n, (impl, pv, r, rb) in rs.items():
        parts.append(f"N={n:g}: {what}/twheel_ring {fmt(r, 2)}"
                     f" ({impl} {fmt(pv)} ns; twheel_batch for reference "
                     f"{fmt(rb, 2)})")
    return "; ".join(parts) or "no N >= 1e4 measured"


def check_user_targets(data, t):
    """The ring's targets against the userspace peers, each met/missed/not measured."""
    us = data["user"]
    ns = sorted({r["n"] for r in us})
    big = [n for n in ns if n >= 10000]
    top = ns[-1] if ns else None
    for field, name in (("arm_ns", "arm"), ("deliver_ns", "delivery")):
        for peer, need in (("timerfd", 20), ("io_uring", 3)):
            rs = _ratios(us, big, field, peer)
            met, val = _verdict(rs, need)
            label = "timerfd at its best" if peer == "timerfd" else peer
            t.add(f"twheel_ring {name} >= {need}x cheaper than {label} "
                  f"(every N >= 1e4)", met, _text(rs, peer), val, need)
    rs = _ratios(us, [top] if top else [], "cancel_ns", "io_uring")
    met, val = _verdict(rs, 10)
    t.add("twheel_ring cancel >= 10x cheaper than io_uring (largest N)",
          met, _text(rs, "io_uring"), val, 10)
    rc = [get(us, RING, top, f) for f in ("cpu_ns", "cpu_equal_ns")]
    lc = [get(us, "libuv", top, f) for f in ("cpu_ns", "cpu_equal_ns")]
    met = None if None in rc + lc else all(a <= b for a, b in zip(rc, lc))
    t.add("twheel_ring lifecycle cpu_ns <= libuv's (largest N; deadlines "
          "spread over 1 s and equal)", met,
          f"N={fmt(top)}: spread {fmt(rc[0])} vs {fmt(lc[0])} ns, equal "
          f"{fmt(rc[1])} vs {fmt(lc[1])} ns (twheel_ring vs libuv; "
          f"twheel_batch for reference {fmt(get(us, 'twheel_batch', top, 'cpu_ns'))}"
          f" / {fmt(get(us, 'twheel_batch', top, 'cpu_equal_ns'))} ns)",
          ratio(rc[0], lc[0]), 1)
    rk = get(us, RING, top, "kmem_bytes_per_timer")
    uk = get(us, "io_uring", top, "kmem_bytes_per_timer")
    r = ratio(rk, uk)
    t.add("twheel_ring kernel memory per timer <= 1/4 of io_uring's "
          "(largest N)", None if r is None else r <= 0.25,
          f"N={fmt(top)}: twheel_ring {fmt(rk)} B, io_uring {fmt(uk)} B, "
          f"ratio {fmt(r, 3)} (twheel_batch for reference "
          f"{fmt(get(us, 'twheel_batch', top, 'kmem_bytes_per_timer'))} B; "
          f"Slab + VmallocUsed + the rings each maps)", r, 0.25)
    ring = [b for b in data["burst"] if b["impl"] == RING]
    d = data["burst_drain_ms"]
    clean = all(b[k] == 0 for b in ring for k in BURST_COUNTS) \
        and all(b["n"] >= 100000 for b in ring)
    t.add(f"burst of 100 000 equal deadlines through the ring drained within "
          f"{BURST_MS} ms, none early, each exactly once",
          None if d is None else (d <= BURST_MS and clean),
          "not run (no twheel_ring burst in this run)" if d is None else
          "; ".join(f"N={b['n']:g}: last record {fmt(b['drain_ms'])} ms after "
                    f"the deadline, early {fmt(b['early'])}, missing "
                    f"{fmt(b['missing'])}, duplicates {fmt(b['dup'])}, "
                    f"never armed {fmt(b['bad'])}; first record "
                    f"{fmt(b['first_ms'])} ms after it"
                    for b in ring), d, BURST_MS)


def print_user(data):
    us = data["user"]
    base = base_impl(us)
    impls = user_impls(us)
    table("Tier 2: userspace, ns per timer (median of reps); kmem in bytes",
          us, impls, SHOWN, base, [p for p in PEERS if p in impls])
    for b in data["burst"]:
        print(f"\n== Burst: {b['impl']} N={b['n']}: drain {fmt(b['drain_ms'])} ms"
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
              f"{fmt(b['drain_ms'])} ms after the deadline.", ""]
    return L
