#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the logs of one twheel guest run into pass/fail/skip counts.

  results.py --console LOG --results LOG --kunit KUNIT_PY --label NAME
             [--counts FILE]

Inputs, both written by tools/vm/run-qemu.sh:
  console log  ttyS0: kernel messages and human-readable progress
  results log  ttyS1: "TW|kind|..." records from tools/vm/guest-init.sh

Counted:
  KUnit        debugfs results of our suites, merged into one KTAP document
               and parsed by the kernel tree's own `kunit.py parse --json`
  selftests    TAP of each binary ("ok", "not ok", "# SKIP"), its plan and
               its exit status (timeout, crash, KSFT_SKIP = 4)
  checks       insmod, rmmod, kmemleak records of the guest
  kernel log   printk lines of the console log matching BUG:, WARNING:,
               KASAN:, ... (one failure per splat)
Prints a report and "twheel[<guest uname -r>]: N passed, N failed, N
skipped"; writes "PASSED FAILED SKIPPED" to --counts. Exit status 1 if
anything failed.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# Kernel messages that fail a run. Matched only in printk records (after a
# "[ seconds.micros]" timestamp) so program output and our own echo lines
# cannot trigger them.
KERNEL_BAD = re.compile(
    r'BUG:|WARNING:|KASAN:|UBSAN:|possible circular locking|'
    r'inconsistent lock state|possible recursive locking|ODEBUG:|\bOops\b|'
    r'Call Trace|unreferenced object|Kernel panic|general protection fault|'
    r'kernel BUG at|INFO: task .* blocked for more than|'
    r'rcu: INFO: .*detected stall|list_(add|del) corruption')
# Stack dumps that come with expected events, not bugs: a test that drives a
# memory cgroup into its OOM killer, fault injection (failslab...) with its
# "verbose" knob at 2. Only the Call Trace that follows one is excused.
EXPECTED_DUMP = re.compile(r'invoked oom-killer:|FAULT_INJECTION: forcing a failure')
PRINTK_TS = re.compile(r'\[\s*\d+\.\d+\]\s?(.*)')
TAP_RESULT = re.compile(r'^(not ok|ok)\s+(\d+)\b\s*(.*)$')
TAP_PLAN = re.compile(r'^1\.\.(\d+)(.*)$')
TAP_DIRECTIVE = re.compile(r'#\s*(SKIP|XFAIL|TODO)\b', re.IGNORECASE)


class Tally:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.failures = []

    def add(self, status, what=''):
        if status == 'pass':
            self.passed += 1
        elif status == 'skip':
            self.skipped += 1
        else:
            self.failed += 1
            self.failures.append(what)

    def __str__(self):
        return f'{self.passed} passed, {self.failed} failed, {self.skipped} skipped'


CONTROL = re.compile(r'\x1b\[[0-9;?]*[A-Za-z]|\x1b.|[\x00-\x08\x0b-\x1f\x7f]')


def read_lines(path):
    """Lines without CR, terminal escapes (firmware) and control characters."""
    try:
        with open(path, encoding='utf-8', errors='backslashreplace') as f:
            return [CONTROL.sub('', l.rstrip('\r\n')) for l in f]
    except FileNotFoundError:
        return []


def parse_records(lines):
    """Split "TW|kind|a|b|rest" records; returns a list of (kind, fields)."""
    recs = []
    for line in lines:
        i = line.find('TW|')
        if i < 0:
            continue
        parts = line[i + 3:].split('|')
        recs.append((parts[0], parts[1:]))
    return recs


def rest(fields, n):
    """Field n and everything after it (the payload may contain '|')."""
    return '|'.join(fields[n:])


def do_kunit(recs, kunit_py, expect, tally, report):
    suites = {}
    for kind, f in recs:
        if kind == 'ktap' and len(f) >= 2:
            suites.setdefault(f[0], []).append(rest(f, 1))
    if not suites:
        if expect:
            tally.add('fail', 'KUnit: modules loaded but no KTAP results')
        return
    doc = ['KTAP version 1', f'1..{len(suites)}']
    for i, (name, lines) in enumerate(suites.items(), 1):
        # Each debugfs file is a one-suite KTAP document: drop its header and
        # renumber its final "ok 1 <suite>" line.
        if lines[:2] == ['KTAP version 1', '1..1']:
            lines = lines[2:]
        for line in lines:
            m = re.match(r'^(not ok|ok) 1 (.*)$', line)
            doc.append(f'{m.group(1)} {i} {m.group(2)}' if m else line)
    with tempfile.TemporaryDirectory() as tmp:
        jpath = os.path.join(tmp, 'kunit.json')
        p = subprocess.run([sys.executable, kunit_py, 'parse', f'--json={jpath}'],
                           input='\n'.join(doc) + '\n', text=True,
                           capture_output=True, check=False)
        parsed = [re.sub(r'^\[\d\d:\d\d:\d\d\] ', '', l)
                  for l in p.stdout.splitlines() if 'Test results stored in' not in l]
        parsed += p.stderr.splitlines()
        try:
            with open(jpath, encoding='utf-8') as f:
                tree = json.load(f)
        except (OSError, ValueError):
            tally.add('fail', f'KUnit: kunit.py parse failed (exit {p.returncode})')
            return
    before = tally.failed

    def walk(group, path):
        for case in group.get('test_cases', []):
            name = f'{path}.{case["name"]}' if path else case['name']
            st = {'PASS': 'pass', 'SKIP': 'skip'}.get(case['status'], 'fail')
            tally.add(st, f'KUnit {name}: {case["status"]}')
        for sub in group.get('sub_groups', []):
            walk(sub, f'{path}.{sub["name"]}' if path else sub['name'])
    walk(tree, '')
    if p.returncode != 0 and tally.failed == before:
        tally.add('fail', f'KUnit: kunit.py parse reports failure (exit {p.returncode})')
    # The whole parse on failure, else just its verdict.
    if tally.failed != before:
        report.append('  kunit.py parse:')
        report.extend('    ' + l for l in parsed)
    else:
        report.extend('  kunit.py parse: ' + l for l in parsed if l.startswith('Testing complete'))


def do_selftests(recs, tally):
    order, out, rcs = [], {}, {}
    for kind, f in recs:
        if kind == 'strun' and f:
            order.append(f[0])
            out.setdefault(f[0], [])
        elif kind == 'st' and len(f) >= 2:
            out.setdefault(f[0], []).append(rest(f, 1))
        elif kind == 'strc' and len(f) >= 2:
            rcs[f[0]] = f[1]
    for name in order:
        sub = Tally()
        plan = None
        for line in out.get(name, []):
            m = TAP_PLAN.match(line)
            if m and plan is None:
                plan = int(m.group(1))
                if plan == 0 and TAP_DIRECTIVE.search(m.group(2)):
                    sub.add('skip')
                continue
            m = TAP_RESULT.match(line)
            if not m:
                continue
            d = TAP_DIRECTIVE.search(m.group(3))
            d = d.group(1).upper() if d else ''
            if m.group(1) == 'ok':
                sub.add('skip' if d == 'SKIP' else 'pass')
            else:
                sub.add('fail', f'selftest {name}: {line}')
        seen = sub.passed + sub.failed + sub.skipped
        rc = rcs.get(name)
        if rc is None:
            exit_msg = 'never finished'
        else:
            why = {'124': 'timeout', '143': 'timeout', '137': 'killed'}.get(rc)
            exit_msg = f'exit status {rc}' + (f' ({why})' if why else '')
        if plan and seen < plan:
            sub.add('fail', f'selftest {name}: {plan - seen} of {plan} planned '
                    f'tests never reported ({exit_msg})')
            sub.failed += plan - seen - 1
        elif rc is None:
            sub.add('fail', f'selftest {name}: {exit_msg}')
        elif rc == '4' and seen == 0 and not sub.skipped:
            sub.add('skip')
        elif rc not in ('0', '4') and sub.failed == 0:
            sub.add('fail', f'selftest {name}: {exit_msg}')
        elif rc == '0' and seen == 0:
            sub.add('pass')
        tally.passed += sub.passed
        tally.skipped += sub.skipped
        tally.failed += sub.failed
        tally.failures.extend(sub.failures)


def do_checks(recs, tally):
    for kind, f in recs:
        if kind == 'check' and len(f) >= 2:
            st = {'ok': 'pass', 'skip': 'skip'}.get(f[0], 'fail')
            tally.add(st, f'check: {rest(f, 1)}')
    kinds = {k for k, _ in recs}
    if 'begin' not in kinds:
        tally.add('fail', 'guest: no results at all (did it boot?)')
    elif 'end' not in kinds:
        tally.add('fail', 'guest: no end record (crash, panic or timeout)')


def do_kmemleak(recs, report):
    """Show what kmemleak reported (the guest's check records count it)."""
    shown = {}
    for kind, f in recs:
        if kind == 'kmemleak' and len(f) >= 2:
            if f[0] not in shown:
                shown[f[0]] = 0
                report.append(f'  kmemleak report ({f[0]}):')
            shown[f[0]] += 1
            if shown[f[0]] <= 60:
                report.append('    | ' + rest(f, 1))


# A KCSAN report runs from its "BUG: KCSAN:" line to the next line of '='.
KCSAN_HEAD = re.compile(r'BUG: KCSAN: ')
KCSAN_END = re.compile(r'^={20,}$')
# A stack frame of twheel's: "func+0x1c/0x53 [twheel]", or a tw_/twheel_
# function. Not the "Workqueue: twheel tw_work_fn [twheel]" line, which
# only says what the worker was running when the kernel proper raced.
KCSAN_OURS = re.compile(r'\+0x[0-9a-f]+/0x[0-9a-f]+ \[twheel(_kunit)?\]|\btw(heel)?_\w+\+0x')
# The racing functions a report's first line names ("data-race in A / B").
KCSAN_RACE = re.compile(r'BUG: KCSAN: [\w-]+ in (\S+)(?: / (\S+))?')
# Races inside the timekeeping core itself, between its seqcount readers
# and its updates: twheel is on the stack only as a caller of ktime_get().
# A name may carry the compiler's suffixes (".constprop.0", ".isra.0").
KCSAN_TIMEKEEPING = re.compile(
    r'^(ktime_get\w*|timekeeping_\w+|update_wall_time|tk_\w+)(\.\w+)*$')


def kcsan_timekeeping(head):
    """Does the report's first line name only timekeeping functions?"""
    m = KCSAN_RACE.search(head)
    return bool(m) and all(KCSAN_TIMEKEEPING.match(f)
                           for f in m.groups() if f)


def kcsan_foreign(lines):
    """Lines of KCSAN reports that name no twheel code, or that race only
    inside timekeeping: races of the kernel proper, which the KCSAN guest
    reports but which are not ours to fail on."""
    skip = set()
    i = 0
    while i < len(lines):
        m = PRINTK_TS.search(lines[i])
        if not (m and KCSAN_HEAD.search(m.group(1))):
            i += 1
            continue
        j = i + 1
        while j < len(lines) and j - i < 200:
            mj = PRINTK_TS.search(lines[j])
            if mj and KCSAN_END.match(mj.group(1).strip()):
                break
            j += 1
        block = lines[i:j + 1]
        if (not any(KCSAN_OURS.search(l) for l in block) or
                kcsan_timekeeping(m.group(1))):
            skip.update(range(i, j + 1))
        i = j + 1
    return skip


def do_kernel_log(lines, tally, report):
    hits = []
    expected = -1   # line of the last EXPECTED_DUMP header
    ignored = 0
    foreign = kcsan_foreign(lines)
    if foreign:
        report.append(f'  kernel log: {len(foreign)} line(s) of KCSAN reports '
                      'naming no twheel code ignored')
    for i, line in enumerate(lines):
        m = PRINTK_TS.search(line)
        if not m or i in foreign:
            continue
        msg = m.group(1)
        if EXPECTED_DUMP.search(msg):
            expected = i
        elif '</TASK>' in msg:
            expected = -1
        bad = KERNEL_BAD.search(msg)
        if bad and bad.group(0) == 'Call Trace' and 0 <= expected and i - expected < 10:
            ignored += 1
        elif bad:
            hits.append(i)
    if ignored:
        report.append(f'  kernel log: {ignored} expected stack dump(s) ignored '
                      '(oom-killer, fault injection)')
    clusters = []
    for i in hits:
        if clusters and i - clusters[-1][1] <= 40:
            clusters[-1][1] = i
        else:
            clusters.append([i, i])
    for n, (a, b) in enumerate(clusters):
        first = PRINTK_TS.search(lines[a]).group(1).strip()
        tally.add('fail', f'kernel log line {a + 1}: {first}')
        if n < 5:
            report.append(f'  kernel log, lines {a + 1}-{b + 1}:')
            lo, hi = max(0, a - 3), min(len(lines), b + 25, a + 80)
            report.extend('    | ' + l for l in lines[lo:hi])
    if len(clusters) > 5:
        report.append(f'  ... {len(clusters) - 5} more kernel log reports not shown')


KCSAN_ON = re.compile(r'kcsan: enabled')
KCSAN_SELFTEST = re.compile(r'kcsan: selftest: (\d+)/(\d+) tests passed')


def do_kcsan(lines, tally):
    """On a KCSAN kernel, a clean log means something only if KCSAN ran and
    its boot self-test, which plants races, saw them."""
    msgs = [m.group(1) for m in map(PRINTK_TS.search, lines) if m]
    if not any(KCSAN_ON.search(m) for m in msgs):
        return
    st = next((KCSAN_SELFTEST.search(m) for m in msgs if KCSAN_SELFTEST.search(m)), None)
    if st and st.group(1) == st.group(2) and int(st.group(2)) > 0:
        tally.add('pass', f'check: KCSAN active, boot self-test {st.group(1)}/{st.group(2)}')
    else:
        tally.add('fail', 'check: KCSAN enabled but its boot self-test did not pass')


def main():
    # run-qemu.sh: the kernel splats counted here, as an ERE for grep -E.
    if sys.argv[1:] == ['--bad-regex']:
        print(KERNEL_BAD.pattern)
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    ap.add_argument('--console', required=True)
    ap.add_argument('--results', required=True)
    ap.add_argument('--kunit', required=True, help='path to kunit.py')
    ap.add_argument('--label', required=True)
    ap.add_argument('--counts')
    args = ap.parse_args()

    console = read_lines(args.console)
    recs = parse_records(read_lines(args.results))
    if not any(k == 'begin' for k, _ in recs):   # no ttyS1: records on console
        recs = parse_records(console)
    uname = next((f[0] for k, f in recs if k == 'uname' and f), 'unknown')
    expect_kunit = any(k == 'check' and len(f) >= 2 and f[0] == 'ok' and
                       'kunit' in f[1] and f[1].startswith('insmod')
                       for k, f in recs) and not any(k == 'subset' for k, _ in recs)

    report = []
    parts = {name: Tally() for name in ('KUnit', 'selftests', 'checks', 'kernel log')}
    do_kunit(recs, args.kunit, expect_kunit, parts['KUnit'], report)
    do_selftests(recs, parts['selftests'])
    do_checks(recs, parts['checks'])
    do_kmemleak(recs, report)
    do_kernel_log(console, parts['kernel log'], report)
    do_kcsan(console, parts['checks'])

    total = Tally()
    print(f'== {args.label}: guest kernel {uname} ==')
    for name, t in parts.items():
        if name == 'KUnit' and not (t.passed or t.failed or t.skipped):
            print(f'  {name:<11} not run (no KUnit results for this kernel)')
        elif name == 'kernel log':
            print(f'  {name:<11} {"clean" if not t.failed else f"{t.failed} report(s)"}')
        else:
            print(f'  {name:<11} {t}')
        total.passed += t.passed
        total.failed += t.failed
        total.skipped += t.skipped
        total.failures.extend(t.failures)
    for l in report:
        print(l)
    for f in total.failures:
        print(f'  FAILED: {f}')
    print(f'twheel[{args.label} {uname}]: {total}')
    if args.counts:
        with open(args.counts, 'w', encoding='utf-8') as f:
            f.write(f'{total.passed} {total.failed} {total.skipped}\n')
    return 1 if total.failed else 0


if __name__ == '__main__':
    sys.exit(main())
