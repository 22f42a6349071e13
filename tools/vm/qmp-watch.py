#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Watch a QEMU guest over QMP and end a suspend that nothing else ends.

    qmp-watch.py SOCKET MAX_SUSPENDED_S LOG

The suspend tests set the guest's RTC wake alarm as a backstop. Should
no RTC alarm end a suspend to RAM at all (neither a timer's nor that
backstop), the guest would sleep until the run's time limit and take every
later test with it. After MAX_SUSPENDED_S seconds of QEMU's "suspended"
state this sends system_wakeup, as a power button would. The guest's test
sees a suspend far longer than its backstop and says so.

LOG gets one line per state change, with the host's monotonic time, so a
hang can be told apart: "suspended" for long means no wake-up reached
QEMU; "running" with a silent console means the guest hung in resume.
"""
import json
import socket
import sys
import time


def log(path, msg):
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"{time.monotonic():.1f} {msg}\n")


def log_event(path, msg):
    data = msg.get("data")
    log(path, f"event {msg['event']}"
        + (f" {json.dumps(data, sort_keys=True)}" if data else ""))


def connect(path, deadline):
    """A connected QMP socket, or None once QEMU is gone or never came."""
    while time.monotonic() < deadline:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            time.sleep(0.2)
    return None


class Qmp:
    def __init__(self, sock, logf):
        self.f = sock.makefile("rw", encoding="utf-8")
        self.logf = logf
        self._read()  # the greeting
        self.cmd("qmp_capabilities")

    def _read(self):
        line = self.f.readline()
        if not line:
            raise EOFError
        return json.loads(line)

    def cmd(self, name):
        self.f.write(json.dumps({"execute": name}) + "\n")
        self.f.flush()
        while True:
            msg = self._read()
            if "event" in msg:
                # At once, with its data (a RESET's or SHUTDOWN's reason):
                # the last events come just before QEMU goes away.
                log_event(self.logf, msg)
                continue
            if "error" in msg:
                raise ValueError(f"{name}: {msg['error']}")
            return msg.get("return") or {}


def main():
    path, logf = sys.argv[1], sys.argv[3]
    try:
        limit = float(sys.argv[2])
    except ValueError:
        log(logf, f"TW_SUSPEND_MAX {sys.argv[2]!r} is no number: 40 s")
        limit = 40.0
    sock = connect(path, time.monotonic() + 60)
    if sock is None:
        log(logf, "no QMP socket")
        return 0
    q = None
    try:
        q = Qmp(sock, logf)
        state, since = None, time.monotonic()
        while True:
            st = q.cmd("query-status").get("status")
            now = time.monotonic()
            if st != state:
                log(logf, f"status {st}")
                state, since = st, now
            if st == "suspended" and now - since > limit:
                q.cmd("system_wakeup")
                log(logf, f"suspended {now - since:.0f} s: system_wakeup")
                print(f"  harness: the guest stayed suspended {now - since:.0f} s; "
                      "woke it (system_wakeup)", file=sys.stderr, flush=True)
                since = now
            time.sleep(1)
    except (EOFError, OSError):
        # QEMU is gone: log what it said last (SHUTDOWN and its reason),
        # still in the socket's buffer if a write failed first.
        try:
            while q is not None:
                msg = q._read()  # pylint: disable=protected-access
                if "event" in msg:
                    log_event(logf, msg)
        except (EOFError, OSError, ValueError):
            pass
        return 0
    except Exception as e:  # pylint: disable=broad-except
        log(logf, f"watchdog stopped: {e!r}")
        return 0
    finally:
        sock.close()


if __name__ == "__main__":
    sys.exit(main())
