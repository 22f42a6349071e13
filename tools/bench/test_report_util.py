#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side unit test of the bench's statistics (report_util.py): the
bootstrap interval, the verdict rule and the combination over N. Runs in
about a second: python3 tools/bench/test_report_util.py"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import expire_split  # noqa: E402
from report_exact import (exact_rows, paired,  # noqa: E402
                          wheel_granularity_ms)
from report_user import burst_rows, check_burst, expire_floor  # noqa: E402
from report_util import (MIN_REPS, Targets, boot, ci_ratio,  # noqa: E402
                         combine, quantile, verdict)


def ratio(m):
    return m["a"] / m["b"]


class Stats(unittest.TestCase):
    def test_quantile(self):
        self.assertEqual(quantile([3, 1, 2], 0.5), 2)
        self.assertEqual(quantile(list(range(101)), 0.99), 99)
        self.assertIsNone(quantile([], 0.5))

    def test_boot_identical_reps_has_no_width(self):
        p, lo, hi, k = boot({"a": {i: 2.0 for i in range(5)},
                             "b": {i: 1.0 for i in range(5)}}, ratio)
        self.assertEqual((p, lo, hi, k), (2.0, 2.0, 2.0, 5))

    def test_boot_is_paired_and_reproducible(self):
        # a rep-wide factor common to both peers cancels in a paired ratio
        f = [1, 3, 0.5, 2, 5]
        s = {"a": {i: 1.5 * x for i, x in enumerate(f)},
             "b": {i: x for i, x in enumerate(f)}}
        p, lo, hi, _ = boot(s, lambda m: m["a"] / m["b"])
        self.assertAlmostEqual(p, 1.5)
        self.assertAlmostEqual(lo, 1.5)
        self.assertAlmostEqual(hi, 1.5)
        self.assertEqual(boot(s, ratio), boot(s, ratio))

    def test_boot_interval_contains_point(self):
        s = {"a": {0: 1.0, 1: 1.4, 2: 0.9, 3: 1.2, 4: 1.1},
             "b": {0: 1.0, 1: 1.0, 2: 1.1, 3: 0.9, 4: 1.0}}
        p, lo, hi, k = boot(s, ratio)
        self.assertLessEqual(lo, p)
        self.assertLessEqual(p, hi)
        self.assertLess(lo, hi)
        self.assertEqual(k, 5)

    def test_boot_uses_common_reps_only(self):
        _, _, _, k = boot({"a": {0: 1, 1: 1, 2: 1}, "b": {1: 1, 2: 1, 3: 1}},
                          ratio)
        self.assertEqual(k, 2)
        self.assertEqual(boot({"a": {}, "b": {0: 1}}, ratio),
                         (None, None, None, 0))

    def test_verdict_rule(self):
        self.assertEqual(verdict(0.8, 0.99, 1.0), "met")
        self.assertEqual(verdict(0.8, 1.0, 1.0), "met")
        self.assertEqual(verdict(0.9, 1.1, 1.0), "inconclusive")
        self.assertEqual(verdict(1.01, 1.2, 1.0), "missed")
        self.assertEqual(verdict(2.1, 3, 2.0, upper=False), "met")
        self.assertEqual(verdict(1.5, 1.9, 2.0, upper=False), "missed")
        self.assertEqual(verdict(1.5, 2.5, 2.0, upper=False), "inconclusive")
        self.assertEqual(verdict(None, None, 1.0), "not measured")
        self.assertEqual(verdict(0.1, 0.2, 1.0, reps=MIN_REPS - 1),
                         "inconclusive")

    def test_combine(self):
        self.assertEqual(combine(["met", "met"]), "met")
        self.assertEqual(combine(["met", "inconclusive"]), "inconclusive")
        self.assertEqual(combine(["inconclusive", "missed"]), "missed")
        self.assertEqual(combine(["met", "not measured"]), "not measured")
        self.assertEqual(combine([]), "not measured")

    def test_ci_ratio_target(self):
        t = Targets()
        good = ({i: 0.5 for i in range(5)}, {i: 1.0 for i in range(5)})
        bad = ({i: 2.0 for i in range(5)}, {i: 1.0 for i in range(5)})
        sys.stdout, out = open(os.devnull, "w"), sys.stdout
        try:
            ci_ratio(t, "ok", [1, 2], lambda n: good, 1.0)
            ci_ratio(t, "one N missed", [1, 2],
                     lambda n: good if n == 1 else bad, 1.0)
        finally:
            sys.stdout.close()
            sys.stdout = out
        self.assertEqual(t.items[0]["status"], "met")
        self.assertEqual(t.items[0]["interval"], [0.5, 0.5])
        self.assertEqual(t.items[1]["status"], "missed")
        self.assertEqual(t.items[1]["value"], 2.0)
        self.assertEqual([x["status"] for x in t.items[1]["per_n"]],
                         ["met", "missed"])


class Burst(unittest.TestCase):
    LINE = {"impl": "twheel_ring", "n": "100000", "drain_ms": "40.0",
            "first_ms": "1.0", "early": "0", "missing": "0", "dup": "0",
            "bad": "0", "tick_ms": "1.0", "ctrl_ms": "15.0",
            "ctrl_samples": "60", "bound_ms": "46.0"}

    def status(self, **change):
        t = Targets()
        data = {"burst": burst_rows([dict(self.LINE, **change)])}
        sys.stdout, out = open(os.devnull, "w"), sys.stdout
        try:
            check_burst(data, t, "twheel_ring")
            check_burst(data, t, "twheel_batch")
        finally:
            sys.stdout.close()
            sys.stdout = out
        self.assertEqual(t.items[1]["status"], "not measured")
        return t.items[0]["status"]

    def test_bound_is_tick_plus_three_controls(self):
        self.assertEqual(self.status(), "met")
        self.assertEqual(self.status(drain_ms="46.5"), "missed")

    def test_counts_and_control_decide_too(self):
        self.assertEqual(self.status(early="1"), "missed")
        self.assertEqual(self.status(missing="3"), "missed")
        self.assertEqual(self.status(ctrl_samples="0"), "missed")
        self.assertEqual(self.status(n="1000"), "missed")

    def test_expire_floor_takes_the_cheapest_at_the_nearest_n(self):
        ik = [{"impl": "twheel", "n": 100000, "expire_ns": 200.0},
              {"impl": "timer_list", "n": 100000, "expire_ns": 150.0},
              {"impl": "hrtimer", "n": 10000, "expire_ns": 100.0}]
        self.assertEqual(expire_floor({"inkernel": ik}, 100000),
                         (15.0, "timer_list", 100000))
        self.assertIsNone(expire_floor({}, 100000))


class Exact(unittest.TestCase):
    def test_wheel_granularity(self):
        # HZ=250: 10 s lands in the level of 64 jiffies, 256 ms
        self.assertEqual([wheel_granularity_ms(h, 4e6) for h in
                          (10, 100, 1000, 10000, 60000)],
                         [4.0, 4.0, 32.0, 256.0, 2048.0])

    def test_rows_pair_by_step_and_skip_lost_timers(self):
        lost = str(-(2 ** 63))
        raw = [{"tier": "kernel", "impl": "twheel", "h_ms": "10", "n": "3",
                "clock": "monotonic", "late_ns": f"5000,{lost},-1"},
               {"tier": "kernel", "impl": "hrtimer", "h_ms": "10", "n": "3",
                "clock": "monotonic", "late_ns": "1000,2000,3000"}]
        rows = exact_rows(raw)
        tw = [r for r in rows if r["impl"] == "twheel"][0]
        self.assertEqual((tw["got"], tw["early"]), (2, 1))
        self.assertEqual(paired(tw, rows[1]), [4000, -3001])
        self.assertEqual(tw["vs_control"], "hrtimer")


class ExpireSplit(unittest.TestCase):
    @staticmethod
    def rows(impl, n, pairs, reps=None):
        return [{"impl": impl, "n": str(n), "rep": str(i),
                 "batch_ns": str(b), "expire_rest_ns": str(r)}
                for i, (b, r) in zip(reps or range(len(pairs)), pairs)]

    def test_split_and_excess(self):
        # N = 101: the loop is batch_ns x 100 / 101 per timer
        raw = (self.rows("twheel", 101, [(202, 103)] * 5)
               + self.rows("timer_list", 101, [(101, 2)] * 5))
        (r,) = expire_split(raw, [101])
        self.assertEqual((r["twheel_loop_ns"], r["timer_list_loop_ns"]),
                         (200.0, 100.0))
        self.assertEqual((r["twheel_rest_ns"], r["timer_list_rest_ns"]),
                         (103.0, 2.0))
        self.assertEqual(r["excess_loop_ns"], 100.0)
        self.assertEqual(r["excess_loop_interval"], [100.0, 100.0])
        self.assertEqual(r["excess_rest_ns"], 101.0)
        self.assertEqual((r["loop_reps"], r["rest_reps"]), (5, 5))

    def test_negative_rest_is_kept(self):
        # the CPU idled within the span: the rest is negative, not hidden
        raw = (self.rows("twheel", 2, [(20, -3)] * 5)
               + self.rows("timer_list", 2, [(20, 1)] * 5))
        (r,) = expire_split(raw, [2])
        self.assertEqual((r["twheel_rest_ns"], r["excess_rest_ns"]),
                         (-3.0, -4.0))

    def test_paired_excess_spans_the_repetitions(self):
        # a repetition slower for both keeps its pair: 5 and 50 ns
        raw = (self.rows("twheel", 2, [(20, 0), (200, 0)])
               + self.rows("timer_list", 2, [(10, 0), (100, 0)]))
        (r,) = expire_split(raw, [2])
        self.assertEqual(r["excess_loop_interval"], [5.0, 50.0])

    def test_columns_use_the_paired_repetitions(self):
        # twheel's repetition 9 has no timer_list pair: left out everywhere
        raw = (self.rows("twheel", 2, [(20, 1)] * 3 + [(2000, 1)],
                         reps=[0, 1, 2, 9])
               + self.rows("timer_list", 2, [(10, 1)] * 3))
        (r,) = expire_split(raw, [2])
        self.assertEqual((r["twheel_loop_ns"], r["excess_loop_ns"]),
                         (10.0, 5.0))
        self.assertEqual(r["loop_reps"], 3)

    def test_no_row_without_both_peers(self):
        self.assertEqual(expire_split(self.rows("twheel", 10, [(3, 2)]),
                                      [10]), [])


if __name__ == "__main__":
    unittest.main()
