"""Windowed decoding (`crashtrail show --steps=N`) against the full timeline of the same dump.

`--steps=N` decodes every record but keeps only each thread's newest N steps (postmortem/
callstack.c counts the others without making them). The kept steps must be exactly the last N
of the full timeline - same lines, depths, flags, times and sequence numbers - and the count of
the others exact. Only the oldest kept step's loop count may be lower: iterations that ran
before its block left the window are not counted.
"""
import json
import subprocess


def check_windows(crashtrail, dump, full, extra_args=(), sizes=None):
    """full: the parsed `show --format=json --steps=0` of dump. Returns a list of problems."""
    problems = []
    longest = max((len(t["steps"]) for t in full["threads"]), default=0)
    if sizes is None:
        sizes = sorted({1, 2, 3, 7, 64, 65, 1000, max(1, longest // 3), max(1, longest - 1)})
    for n in sizes:
        r = subprocess.run([crashtrail, "show", "--format=json", "--steps=%d" % n, dump] +
                           list(extra_args), capture_output=True, text=True)
        if r.returncode:
            problems.append("--steps=%d failed: %s" % (n, r.stderr[-500:]))
            continue
        win = json.loads(r.stdout)
        by_tid = {t["tid"]: t for t in win["threads"]}
        for t in full["threads"]:
            w = by_tid.get(t["tid"])
            if w is None:
                problems.append("--steps=%d: thread %d missing" % (n, t["tid"]))
                continue
            want = t["steps"][-n:] if n < len(t["steps"]) else t["steps"]
            got = w["steps"]
            if w.get("steps_not_kept", 0) != len(t["steps"]) - len(want):
                problems.append("--steps=%d thread %d: steps_not_kept %s, expected %d" % (
                    n, t["tid"], w.get("steps_not_kept", 0), len(t["steps"]) - len(want)))
            if len(got) != len(want):
                problems.append("--steps=%d thread %d: %d steps kept, expected %d" % (
                    n, t["tid"], len(got), len(want)))
                continue
            for i, (g, e) in enumerate(zip(got, want)):
                if i == 0:
                    g, e = dict(g), dict(e)
                    if g.get("repeat", 0) > e.get("repeat", 0):
                        problems.append("--steps=%d thread %d: first step repeats more than in "
                                        "full" % (n, t["tid"]))
                    g.pop("repeat", None)
                    e.pop("repeat", None)
                if g != e:
                    problems.append("--steps=%d thread %d step %d: %s, expected %s" % (
                        n, t["tid"], i, json.dumps(g)[:300], json.dumps(e)[:300]))
                    break
    return problems
