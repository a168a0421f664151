#!/usr/bin/python3
"""Plot docs/scheduling.png: mean and p99 delay against arrival rate, per
scheduling policy, from the H100 run's bench load output
(docs/data/device/scheduling-run/sched-load.json).

Run from anywhere: /usr/bin/python3 docs/plots/scheduling.py
Needs Debian's python3-matplotlib.
"""
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

DOCS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(DOCS, "data", "device", "scheduling-run", "sched-load.json")
OUT = os.path.join(DOCS, "scheduling.png")

STYLE = {
    "cpu": ("tab:blue", "o"),
    "gpu": ("tab:green", "s"),
    "best": ("tab:orange", "^"),
    "hybrid": ("tab:red", "D"),
}


def main():
    with open(DATA) as f:
        load = json.load(f)
    deadline_ms = load["deadline_ms"]
    best = load["max_rate_without_misses"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharex=True)
    for ax, key, title in (
        (axes[0], "mean_delay_us", "mean delay"),
        (axes[1], "p99_delay_us", "p99 delay"),
    ):
        for policy, (color, marker) in STYLE.items():
            runs = sorted((r for r in load["runs"] if r["policy"] == policy), key=lambda r: r["rate"])
            if not runs:
                continue
            rates = [r["rate"] for r in runs]
            delays = [r[key] / 1000 for r in runs]
            label = "%s (max %s q/s)" % (policy, format(int(best[policy]), ","))
            ax.plot(rates, delays, color=color, linewidth=1.2, label=label)
            ok = [(x, y) for x, y, r in zip(rates, delays, runs) if r["missed"] == 0]
            bad = [(x, y) for x, y, r in zip(rates, delays, runs) if r["missed"] > 0]
            if ok:
                ax.scatter(*zip(*ok), color=color, marker=marker, s=28, zorder=3)
            if bad:
                ax.scatter(*zip(*bad), facecolors="none", edgecolors=color, marker=marker, s=40, zorder=3)
        ax.axhline(deadline_ms, color="gray", linestyle="--", linewidth=1)
        ax.text(260, deadline_ms * 1.15, "deadline %d ms" % deadline_ms, color="gray", fontsize=8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("Poisson arrival rate (queries/s)")
        ax.set_ylabel(title + " (ms, arrival to answer)")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8, loc="upper left")
    fig.suptitle(
        "CPU/GPU scheduler, H100 + 16 cores, 2M-doc synthetic index, OR top-10, 3 s per rate"
        " (hollow: some deadlines missed)",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(OUT, dpi=110)


if __name__ == "__main__":
    main()
