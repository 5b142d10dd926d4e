#!/usr/bin/env python3
"""Writes BENCHMARKS.md from criterion's output (never typed by hand).

Usage:
    scripts/bench_report.py [--run] [--quick] [--out BENCHMARKS.md]

--run runs `cargo bench` first (all benches, or the ones named with --bench).
Criterion stores each benchmark under target/criterion/<group>/<function>/.
Benchmark ids follow the convention `<area>/<workload>/<implementation>`, where
the implementation is `proxima` (or a proxima variant such as `dynamic_tree`)
or a peer (`parry3d`, `rapier3d`). Rows pair every proxima variant of a
workload with the workload's parry3d row and report the ratio ours / parry
(below 1 is faster; the speed-up is its inverse).
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

PEERS = ("parry3d", "rapier3d", "obvhs")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load(root):
    rows = {}
    for dirpath, _dirs, files in os.walk(root):
        if "benchmark.json" not in files or os.path.basename(dirpath) != "new":
            continue
        with open(os.path.join(dirpath, "benchmark.json")) as f:
            bench = json.load(f)
        with open(os.path.join(dirpath, "estimates.json")) as f:
            est = json.load(f)
        full_id = bench.get("full_id") or bench.get("title")
        ns = est["median"]["point_estimate"]
        per = None
        tp = bench.get("throughput")
        if tp:
            count = tp.get("Elements") or tp.get("Bytes")
            if count:
                per = ns / count
        rows[full_id] = {"ns": ns, "per": per, "elements": (tp or {}).get("Elements")}
    return rows


def fmt_time(ns):
    if ns is None:
        return "-"
    if ns < 1e3:
        return f"{ns:.2f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.2f} us"
    if ns < 1e9:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e9:.3f} s"


def draw_chart(csv_path, png_path):
    """Log-log chart of build and all-pairs time against N per structure.
    Needs matplotlib (pip install matplotlib); without it, no chart."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no chart (pip install matplotlib)")
        return None
    import csv
    series = {}
    with open(csv_path) as f:
        for row in csv.DictReader(f):
            series.setdefault(row["structure"], []).append(
                (int(row["n"]), float(row["build_ms"]), float(row["pairs_ms"])))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (name, pts) in enumerate(sorted(series.items())):
        color = colors[k % len(colors)]  # the same colour for a structure in both panels
        pts.sort()
        ns = [p[0] for p in pts]
        builds = [(n, b) for n, b, _ in pts if b > 0]
        if builds:
            axes[0].plot([n for n, _ in builds], [b for _, b in builds], marker="o", color=color, label=name)
        axes[1].plot(ns, [p[2] for p in pts], marker="o", color=color, label=name)
    for ax, title in zip(axes, ["build", "all overlapping pairs"]):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("boxes (N)")
        ax.set_ylabel("ms")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    return png_path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", action="store_true")
    ap.add_argument("--quick", action="store_true", help="shorter criterion runs")
    ap.add_argument("--bench", action="append", default=[])
    ap.add_argument("--out", default="BENCHMARKS.md")
    ap.add_argument("--native", action="store_true", help="build with -C target-cpu=native")
    ap.add_argument("--scaling", action="store_true",
                    help="also run examples/broadphase_scaling.rs, embed its table and draw the chart")
    ap.add_argument("--target-dir", default="target", help="where criterion's output is")
    args = ap.parse_args()

    top = subprocess.check_output(["git", "rev-parse", "--show-toplevel"], text=True).strip()
    os.chdir(top)
    cmd = ["cargo", "bench"]
    for b in args.bench:
        cmd += ["--bench", b]
    if args.quick:
        cmd += ["--", "--warm-up-time", "1", "--measurement-time", "3"]
    env = dict(os.environ)
    if args.native:
        env["RUSTFLAGS"] = (env.get("RUSTFLAGS", "") + " -C target-cpu=native").strip()
    if args.target_dir != "target":
        # A separate build (e.g. for -C target-cpu=native) must not overwrite
        # the default build's artefacts or criterion results.
        env["CARGO_TARGET_DIR"] = args.target_dir
    if args.run:
        subprocess.check_call(cmd, env=env)

    scaling_table = None
    if args.scaling:
        csv = os.path.join(args.target_dir, "broadphase_scaling.csv")
        out = subprocess.check_output(
            ["cargo", "run", "--release", "--example", "broadphase_scaling", "--", "--csv", csv], env=env, text=True)
        scaling_table = out.split("\ncsv:")[0].strip()
        chart = draw_chart(csv, "benches/broadphase_scaling.png")

    rows = load(os.path.join(args.target_dir, "criterion"))
    if not rows:
        sys.exit("no criterion results under target/criterion: run with --run")

    groups = {}
    for full_id, r in rows.items():
        head, _, impl = full_id.rpartition("/")
        groups.setdefault(head, {})[impl] = r

    lines = []
    lines.append("# proxima benchmarks\n")
    lines.append("Generated by `scripts/bench_report.py` from criterion's output: do not edit by hand.\n")
    lines.append(f"- date: {datetime.date.today().isoformat()}")
    lines.append(f"- machine: {cpu_model()}, {os.cpu_count()} logical cores, {platform.system()} {platform.release()}")
    flags = " --quick" if args.quick else ""
    flags += " --native" if args.native else ""
    flags += "".join(" --bench " + b for b in args.bench)
    flags += f" --target-dir {args.target_dir}" if args.target_dir != "target" else ""
    flags += f" --out {args.out}" if args.out != "BENCHMARKS.md" else ""
    lines.append(f"- command: `scripts/bench_report.py --run{flags}` (runs"
                 f" `{'RUSTFLAGS=-Ctarget-cpu=native ' if args.native else ''}{' '.join(cmd)}`)")
    lines.append("- time: criterion's median; `per item` divides by the elements of one iteration;"
                 " ratio = proxima / parry3d time (below 1 means proxima is faster; speed-up = 1 / ratio)\n")

    areas = {}
    for head in sorted(groups):
        areas.setdefault(head.split("/", 1)[0], []).append(head)
    for area, heads in areas.items():
        lines.append(f"## {area}\n")
        lines.append("| workload | implementation | time / iteration | per item | ratio vs parry3d | speed-up |")
        lines.append("|---|---|---|---|---|---|")
        for head in heads:
            impls = groups[head]
            peer = impls.get("parry3d")
            order = sorted(impls, key=lambda k: (k in PEERS, k))
            for impl in order:
                r = impls[impl]
                ratio = speed = "-"
                if peer and impl not in PEERS and peer["ns"] > 0:
                    q = r["ns"] / peer["ns"]
                    ratio = f"{q:.3f}"
                    speed = f"{1 / q:.1f}x"
                workload = head.split("/", 1)[1] if "/" in head else head
                lines.append(f"| {workload} | {impl} | {fmt_time(r['ns'])} | {fmt_time(r['per'])} | {ratio} | {speed} |")
        lines.append("")

    if scaling_table:
        lines.append("## broadphase scaling (1k to 1M boxes, sparse scene)\n")
        lines.append("From `cargo run --release --example broadphase_scaling` (best of 3 runs per cell; all pairs"
                     " includes sorting them; speed-up columns: 1 thread / all threads).\n")
        lines.append(scaling_table)
        lines.append("")
        if chart:
            lines.append(f"![time against N]({chart})\n")

    extra = "benches/NOTES.md"
    if args.out == "BENCHMARKS.md" and os.path.exists(extra):
        with open(extra) as f:
            lines.append(f.read())
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {args.out} ({len(rows)} benchmarks)")


if __name__ == "__main__":
    main()
