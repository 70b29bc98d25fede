#!/usr/bin/env python3
"""train_profile.py - makes the decoder's clang profile, postmortem/pgo/decoder.proftext.

The `crashtrail` command is built with profile-guided optimisation (postmortem/CMakeLists.txt):
clang lays out and inlines the decoder's code by how often each branch ran when it decoded
real dumps. This script makes that profile:
  1. builds the benchmark's Lua and zlib workloads with crashtrail (bench.py's build, in the
     same work directory: reused when already built), each also linked with the dump hook;
  2. runs each at its full benchmark size with 64 MB of rings and dumps at exit (the same kind
     of dump as the benchmark's decoding figure, from programs other than the SQLite one that
     figure decodes, so the profile is not fitted to the dump it is measured on);
  3. builds `crashtrail` instrumented (CRASHTRAIL_DECODER_PROFILE_GENERATE=ON) and runs
     `crashtrail show` on each dump;
  4. merges the counts into the text profile (llvm-profdata merge --text), which is committed.

Run it after changing the decoder's hot code (postorder.c, callstack.c, step_window.*,
timeline.c): functions changed since the profile was made are compiled without it.

Usage: test/bench/train_profile.py [--work DIR] [--out FILE] [--jobs N]
"""
import argparse
import glob
import os
import re
import shutil
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (beside this file)

WORKLOADS = ("lua", "zlib")


def dump_of(ctx, roots, wl):
    """Runs workload wl (crashtrail ring build, with the dump hook) at its full size; the path
    of the dump it wrote at exit."""
    objs = [os.path.join(ctx.out, "obj", "ct-ring", n + ".o") for n, _, _ in bench.units_of(wl, roots)]
    binary = ctx.binary("ct-ring", wl) + "-dumphook"
    bench.link(ctx, "ct-ring", wl, objs, binary, [bench.helper_obj(ctx, "ct_dump_hook.c")])
    env = bench.run_env(ctx, "ct-ring", {"CRASHTRAIL_RING_KB": "65536", "CT_BENCH_DUMPS": "1",
                                        "CRASHTRAIL_DIR": ctx.tmp})
    p = bench.run([binary] + ctx.args_of(wl, "full"), env=env)
    m = re.search(r"ct-bench-dump-path: (.*)", p.stderr)
    if not m:
        bench.die(f"{wl}: no dump written:\n{p.stderr[-2000:]}")
    return m.group(1).strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", default=os.path.join(bench.HERE, "work"),
                    help="the benchmark's work directory (default: test/bench/work)")
    ap.add_argument("--out", default=os.path.join(bench.REPO, "postmortem", "pgo",
                                                  "decoder.proftext"))
    ap.add_argument("--jobs", type=int)
    a = ap.parse_args()
    args = types.SimpleNamespace(config="full", workloads=",".join(WORKLOADS), variants="ct-ring",
                                 runs=None, work=a.work, jobs=a.jobs, crashtrail_build=None,
                                 rebuild=False)
    ctx = bench.Context(args)
    profdata = shutil.which("llvm-profdata-14") or "/usr/lib/llvm-14/bin/llvm-profdata"
    if not os.path.exists(profdata) and not shutil.which(profdata):
        bench.die("llvm-profdata-14 not found (scripts/setup.sh installs llvm-14)")
    bench.ensure_tools(ctx)
    roots = bench.fetch_sources(ctx)
    bench.build_crashtrail(ctx)
    bench.build_all(ctx, roots)

    gen = os.path.join(ctx.work, "pgo-build")
    bench.log(f"profile: building the instrumented decoder in {gen}")
    bench.run(["cmake", "-S", bench.REPO, "-B", gen, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
               f"-DCMAKE_C_COMPILER={bench.CC}", f"-DCMAKE_CXX_COMPILER={bench.CXX}",
               "-DCRASHTRAIL_DECODER_PROFILE_GENERATE=ON", "-DCRASHTRAIL_DECODER_PROFILE=",
               "-DBUILD_TESTING=OFF"])
    bench.run(["cmake", "--build", gen, "--target", "crashtrail"])

    raw = os.path.join(ctx.work, "pgo-raw")
    shutil.rmtree(raw, ignore_errors=True)
    os.makedirs(raw)
    for wl in WORKLOADS:
        bench.clean_tmp(ctx)
        path = dump_of(ctx, roots, wl)
        env = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(raw, f"{wl}-%p.profraw"))
        p = bench.run([os.path.join(gen, "bin", "crashtrail"), "show", "--color=never", path],
                      env=env)
        recs = sum(int(x) for x in re.findall(r"steps from (\d+) records", p.stdout))
        bench.log(f"profile: {wl}: {os.path.getsize(path) >> 20} MB dump, {recs:,} records decoded")
    bench.clean_tmp(ctx)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    bench.run([profdata, "merge", "--text", "-o", a.out] + sorted(glob.glob(raw + "/*.profraw")))
    bench.log(f"profile: {a.out} ({os.path.getsize(a.out):,} bytes); rebuild to use it")


if __name__ == "__main__":
    main()
