#!/usr/bin/python3
"""Plots and tables for docs/scale.md from the GPU machine's scale runs.

Reads docs/data/device/scale-*/ (the output of .device/scale.sh):
gen-N.json (one per size, URL order, bp128), gen-1000000-ORDER-CODEC.json
(the codec and order variants) and bench-N-ENGINE.json (bench queries,
AND and OR top-10). Writes

  docs/scale-build.png    build time, peak RSS and index size against size
  docs/scale-latency.png  mean OR and AND top-10 latency per engine
                          (CPU engines on 1 thread, and the GPU)

and prints the Markdown tables and the fitted growth exponents that
docs/scale.md quotes. A growth exponent is the least-squares slope of
log10(value) against log10(documents) over every measured size.

Run with Debian's matplotlib (apt-get install python3-matplotlib):
  /usr/bin/python3 docs/plots/scale.py
"""

import glob
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DATA = os.path.join(ROOT, "docs", "data", "device")
DOCS = os.path.join(ROOT, "docs")

# Engines in plot and table order; the CPU ones are read at 1 thread.
# In AND mode the maxscore engine runs a plain DAAT AND and the bmw engine
# a block-max AND (the rows' "algorithm"), hence the labels per mode.
ENGINES = ["exhaustive", "maxscore", "bmw", "gpu"]
LABELS = {
    "or": {"exhaustive": "CPU exhaustive", "maxscore": "CPU MaxScore",
           "bmw": "CPU BlockMax-WAND", "gpu": "GPU (H100)"},
    "and": {"exhaustive": "CPU exhaustive", "maxscore": "CPU maxscore engine: DAAT AND",
            "bmw": "CPU bmw engine: BlockMax AND", "gpu": "GPU (H100)"},
}
STYLE = {"exhaustive": ("tab:red", "o"), "maxscore": ("tab:orange", "s"),
         "bmw": ("tab:blue", "^"), "gpu": ("tab:green", "D")}


def load():
    """Returns (gen, variants, bench, queries) read from the scale runs.

    gen: size -> gen JSON; variants: (order, codec) -> gen JSON at 10^6;
    bench: (size, engine, mode, threads) -> bench row; queries: size ->
    the gen queries log line. A size measured twice is an error.
    """
    gen, variants, bench, queries = {}, {}, {}, {}
    for path in sorted(glob.glob(os.path.join(DATA, "scale-*", "*"))):
        name = os.path.basename(path)
        m = re.fullmatch(r"gen-(\d+)\.json", name)
        if m:
            n = int(m.group(1))
            if n in gen:
                sys.exit(f"scale.py: {n} documents measured twice ({path})")
            gen[n] = json.load(open(path))
            continue
        m = re.fullmatch(r"gen-(\d+)-([a-z]+)-([a-z0-9-]+)\.json", name)
        if m:
            variants[(m.group(2), m.group(3))] = json.load(open(path))
            continue
        m = re.fullmatch(r"bench-(\d+)-([a-z]+)\.json", name)
        if m:
            for row in json.load(open(path))["results"]:
                bench[(int(m.group(1)), row["engine"], row["mode"], row["threads"])] = row
            continue
        m = re.fullmatch(r"queries-(\d+)\.log", name)
        if m:
            queries[int(m.group(1))] = open(path).read().strip()
    return gen, variants, bench, queries


def slope(xs, ys):
    """Least-squares slope of log10(ys) against log10(xs), to 2 decimals.

    Rounded here so that a slope of -0.001 prints as 0.00, not -0.00.
    """
    return round(float(np.polyfit(np.log10(xs), np.log10(ys), 1)[0]), 2) + 0.0


def size_label(n):
    """10^5, 5x10^6 and so on."""
    e = int(np.floor(np.log10(n)))
    m = n / 10**e
    return f"10^{e}" if m == 1 else f"{m:g}x10^{e}"


def ms(us):
    """Microseconds as milliseconds to three significant digits."""
    v = us / 1000
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def panel(ax, xs, ys, label, color, marker, unit):
    """One log-log series with its exponent in the legend."""
    s = slope(xs, ys)
    ax.loglog(xs, ys, marker=marker, color=color, label=f"{label}: exponent {s:.2f}")
    ax.set_xlabel("documents")
    ax.set_ylabel(unit)
    ax.grid(True, which="both", alpha=0.3)
    return s


def linear_guide(ax, xs, y0):
    """A dashed slope-1 line through the first point, for reference."""
    ax.loglog(xs, [y0 * x / xs[0] for x in xs], ls="--", color="gray", lw=1, label="linear (slope 1)")


def plot_build(gen):
    sizes = sorted(gen)
    series = [
        ("build time", [gen[n]["seconds"] for n in sizes], "seconds", "tab:purple"),
        ("peak RSS", [gen[n]["peak_rss_mb"] / 1024 for n in sizes], "GiB", "tab:brown"),
        ("index size", [gen[n]["index_bytes"] / 1e9 for n in sizes], "GB", "tab:cyan"),
    ]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6))
    exps = {}
    for ax, (title, ys, unit, color) in zip(axes, series):
        exps[title] = panel(ax, sizes, ys, title, color, "o", unit)
        linear_guide(ax, sizes, ys[0])
        ax.set_title(f"gen index: {title}")
        ax.legend(loc="upper left", fontsize=9)
    fig.suptitle("Synthetic Gov2-like index (URL order, bp128), 16-core H100 machine", fontsize=11)
    fig.tight_layout()
    out = os.path.join(DOCS, "scale-build.png")
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return exps, out


def plot_latency(bench, sizes):
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    exps = {}
    for ax, mode in zip(axes, ["or", "and"]):
        for e in ENGINES:
            xs = [n for n in sizes if (n, e, mode, 1) in bench]
            ys = [bench[(n, e, mode, 1)]["mean_us"] / 1000 for n in xs]
            if len(xs) < 2:
                continue
            color, marker = STYLE[e]
            exps[(mode, e)] = panel(ax, xs, ys, LABELS[mode][e], color, marker, "mean latency, ms")
        ax.set_title(f"{mode.upper()} top-10, one query at a time")
        ax.legend(loc="upper left", fontsize=9)
    fig.suptitle("bench queries on the synthetic indexes, 16-core H100 machine (CPU engines on 1 thread)", fontsize=11)
    fig.tight_layout()
    out = os.path.join(DOCS, "scale-latency.png")
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return exps, out


def tables(gen, variants, bench, queries, build_exps, lat_exps):
    sizes = sorted(gen)
    print("| documents | postings | build s (length + write pass) | peak RSS | index | bits/docid | bits/freq |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for n in sizes:
        g = gen[n]
        print(f"| {size_label(n)} | {g['postings'] / 1e6:,.1f} M | {g['seconds']:.1f} "
              f"({g['length_pass_seconds']:.1f} + {g['write_pass_seconds']:.1f}) | "
              f"{g['peak_rss_mb']:,.0f} MiB | {g['index_bytes'] / 1e9:.2f} GB | "
              f"{g['bits_per_docid']:.2f} | {g['bits_per_freq']:.2f} |")
    print()
    print("growth exponents: " + ", ".join(f"{k} {v:.2f}" for k, v in build_exps.items()))
    post = [gen[n]["postings"] for n in sizes]
    print(f"postings exponent {slope(sizes, post):.2f}")
    steps = []
    for a, b in zip(sizes, sizes[1:]):
        r = np.log10(b / a)
        steps.append(f"{size_label(a)}->{size_label(b)}: time {np.log10(gen[b]['seconds'] / gen[a]['seconds']) / r:.2f}, "
                     f"RSS {np.log10(gen[b]['peak_rss_mb'] / gen[a]['peak_rss_mb']) / r:.2f}")
    print("local exponents: " + "; ".join(steps))
    print("RSS bytes per posting: " + ", ".join(
        f"{size_label(n)} {gen[n]['peak_rss_mb'] * 2**20 / gen[n]['postings']:.1f}" for n in sizes))
    print()
    for n in sizes:
        print(f"queries {size_label(n)}: {queries.get(n, '?')}")
    print()
    for mode in ["or", "and"]:
        print(f"{mode.upper()} top-10: mean / p99 latency in ms (queries/s)")
        print("| documents | " + " | ".join(LABELS[mode][e] + (", 1 thread" if e != "gpu" else "") for e in ENGINES) + " |")
        print("| --- " * (len(ENGINES) + 1) + "|")
        for n in sizes:
            cells = []
            for e in ENGINES:
                r = bench.get((n, e, mode, 1))
                cells.append("" if r is None else
                             f"{ms(r['mean_us'])} / {ms(r['p99_us'])} ({r['qps']:,.0f})")
            print(f"| {size_label(n)} | " + " | ".join(cells) + " |")
        print("| exponent (mean) | " + " | ".join(
            f"{lat_exps[(mode, e)]:.2f}" if (mode, e) in lat_exps else "" for e in ENGINES) + " |")
        p99 = []
        for e in ENGINES:
            xs = [n for n in sizes if (n, e, mode, 1) in bench]
            p99.append(f"{slope(xs, [bench[(n, e, mode, 1)]['p99_us'] for n in xs]):.2f}" if len(xs) > 1 else "")
        print("| exponent (p99) | " + " | ".join(p99) + " |")
        print()
        print(f"{mode.upper()} top-10, CPU engines on 16 threads: mean / p99 ms (queries/s)")
        print("| documents | " + " | ".join(LABELS[mode][e] for e in ENGINES[:-1]) + " |")
        print("| --- " * len(ENGINES) + "|")
        for n in sizes:
            cells = []
            for e in ENGINES[:-1]:
                r = bench.get((n, e, mode, 16))
                cells.append("" if r is None else
                             f"{ms(r['mean_us'])} / {ms(r['p99_us'])} ({r['qps']:,.0f})")
            print(f"| {size_label(n)} | " + " | ".join(cells) + " |")
        print()
    for n in sizes:
        g, x = bench.get((n, "gpu", "or", 1)), bench.get((n, "exhaustive", "or", 1))
        b = bench.get((n, "bmw", "or", 1))
        if g and x:
            print(f"GPU OR speedup at {size_label(n)}: vs exhaustive mean {x['mean_us'] / g['mean_us']:.1f}x, "
                  f"p50 {x['p50_us'] / g['p50_us']:.1f}x, p99 {x['p99_us'] / g['p99_us']:.1f}x; "
                  f"vs BMW mean {b['mean_us'] / g['mean_us']:.1f}x, p50 {b['p50_us'] / g['p50_us']:.1f}x")
    print()
    print("| docid order | codec | index | bits/docid | bits/freq | build s (write pass) | peak RSS |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    rows = [("url", "bp128", gen.get(1000000))] + [(o, c, v) for (o, c), v in sorted(variants.items())]
    for o, c, v in rows:
        if v is None:
            continue
        print(f"| {o} | {c} | {v['index_bytes'] / 1e6:.1f} MB | {v['bits_per_docid']:.2f} | "
              f"{v['bits_per_freq']:.2f} | {v['seconds']:.1f} ({v['write_pass_seconds']:.1f}) | "
              f"{v['peak_rss_mb']:,.0f} MiB |")


def main():
    gen, variants, bench, queries = load()
    if len(gen) < 2:
        sys.exit(f"scale.py: need at least two sizes under {DATA}, found {sorted(gen)}")
    build_exps, build_png = plot_build(gen)
    lat_exps, lat_png = plot_latency(bench, sorted(gen))
    tables(gen, variants, bench, queries, build_exps, lat_exps)
    print()
    print("wrote", os.path.relpath(build_png, ROOT), os.path.relpath(lat_png, ROOT))


if __name__ == "__main__":
    main()
