#!/usr/bin/env python3
"""Roofline of cryodyn's kernels from an Nsight Compute CSV of cryodyn-bench.

    ncu --clock-control none --csv --metrics METRICS cryodyn-bench --profile > ncu.csv
    scripts/roofline.py ncu.csv roofline.png [--peak-tflops 33.4]

METRICS (comma-separated): gpu__time_duration.sum, dram__bytes_read.sum,
dram__bytes_write.sum, launch__registers_per_thread,
sm__warps_active.avg.pct_of_peak_sustained_active,
sm__sass_thread_inst_executed_op_dfma_pred_on.sum (and _dadd_, _dmul_),
sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,
l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum.

`cryodyn-bench --profile` calls every kernel once per size, the sea-ice
kernels at 1024^2 and 4096^2 cells, the land-ice ones at 128x128x16 and
512x512x16 elements. Consecutive launches of one kernel form one call (the
land-ice residual and Jacobian launch once per colour). Flops are those the
GPU executed in double precision (an FMA counts two); bytes are DRAM bytes
read and written, as the profiler measured them. Prints one table row per
kernel and size (markdown) and draws every kernel under the two roofs: the
copy kernel's DRAM bandwidth and the FP64 peak.
"""
import argparse
import collections
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend chosen first)
import numpy as np  # noqa: E402

# Kernel symbols (GCC's outlined OpenACC regions, nvcc's templates) and the
# names the table uses; launches of other kernels (zeroing, boundary rows)
# belong to no call drawn here.
KERNELS = [
    ("copy_kernel", "device copy", "copy"),
    ("stress_dg0", "sea-ice stress, OpenACC", "seaice"),
    ("velocity_dg0", "sea-ice velocity, OpenACC", "seaice"),
    ("cryo_seaice_advect_kernel", "sea-ice transport dG0, OpenACC", "seaice"),
    ("void stress_kernel", "sea-ice stress, CUDA", "seaice"),
    ("void velocity_kernel", "sea-ice velocity, CUDA", "seaice"),
    ("cryo_landice_residual_colour", "land-ice residual, OpenACC", "landice"),
    ("residual_colour_kernel", "land-ice residual, CUDA", "landice"),
    ("cryo_landice_jacobian_colour", "land-ice Jacobian, OpenACC", "landice"),
    ("landice_matvec", "land-ice matvec, OpenACC", "landice"),
]
SIZES = {"copy": ["2^27 doubles"], "seaice": ["1024^2", "4096^2"],
         "landice": ["128x128x16", "512x512x16"]}
FLOPS = ("sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
         "sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
         "sm__sass_thread_inst_executed_op_dmul_pred_on.sum")


def read_launches(path):
    """Return [(kernel name, {metric: value})] in launch order."""
    lines = open(path).read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        sys.exit("roofline: error: %s has no Nsight Compute CSV table" % path)
    launches = collections.OrderedDict()
    for row in csv.DictReader(lines[start:]):
        value = row["Metric Value"].replace(",", "")
        try:
            value = float(value)
        except ValueError:
            continue
        launches.setdefault(int(row["ID"]), (row["Kernel Name"], {}))[1][row["Metric Name"]] = value
    return [launches[i] for i in sorted(launches)]


def calls(launches):
    """Sum consecutive launches of one kernel into calls."""
    out = []
    for name, m in launches:
        label = next((k for k in KERNELS if name.startswith(k[0])), None)
        if label is None:
            continue
        if out and out[-1]["kernel"] == label and out[-1]["open"]:
            c = out[-1]
        else:
            if out:
                out[-1]["open"] = False
            c = {"kernel": label, "open": True, "launches": 0, "m": collections.Counter()}
            out.append(c)
        c["launches"] += 1
        for k, v in m.items():
            c["m"][k] += v * (m["gpu__time_duration.sum"] if k.endswith("pct_of_peak_sustained_active") else 1)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("png")
    ap.add_argument("--peak-tflops", type=float, default=33.4,
                    help="FP64 peak of the device (H100 SXM without tensor cores: 33.4)")
    args = ap.parse_args()
    rows = {}
    for c in calls(read_launches(args.csv)):
        m, n = c["m"], c["launches"]
        t = m["gpu__time_duration.sum"] * 1e-9
        flops = 2 * m[FLOPS[0]] + m[FLOPS[1]] + m[FLOPS[2]]
        dram = m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]
        key = (c["kernel"], round(flops), round(dram, -6))
        if t <= 0 or key[:2] in {k[:2] for k in rows}:
            continue  # the same call again (the harness times some kernels twice)
        rows[key] = dict(t=t, flops=flops, dram=dram, launches=n,
                         regs=m["launch__registers_per_thread"] / n,
                         occ=m["sm__warps_active.avg.pct_of_peak_sustained_active"] / m["gpu__time_duration.sum"],
                         fp64=m["sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active"]
                         / m["gpu__time_duration.sum"],
                         local=m["l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum"])
    # sizes: within one kernel, the call with fewer flops + bytes is the smaller size
    by_kernel = collections.defaultdict(list)
    for key in rows:
        by_kernel[key[0]].append(key)
    copy = [rows[k] for k in rows if k[0][2] == "copy"]
    if not copy:
        sys.exit("roofline: error: no device copy kernel in %s" % args.csv)
    bw = max(r["dram"] / r["t"] for r in copy)
    peak = args.peak_tflops * 1e12
    print("| kernel | size | launches | kernel time (us) | DRAM MB | GB/s | FP64 GFLOP/s | "
          "% of FP64 peak | flop / byte | registers | occupancy % | FP64 pipe % | local loads MB |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    fig, ax = plt.subplots(figsize=(9, 6))
    x = np.logspace(-3, 3, 200)
    ax.loglog(x, np.minimum(x * bw, peak) / 1e9, "k-", lw=1.5)
    ax.text(1.5e-2, 1.5e-2 * bw / 1e9 * 1.4, "DRAM %.0f GB/s (copy kernel)" % (bw / 1e9), rotation=33)
    ax.text(20, peak / 1e9 * 1.1, "FP64 peak %.1f TFLOP/s" % args.peak_tflops)
    markers = iter("os^vD<>phX*")
    for index, (label, keys) in enumerate(by_kernel.items()):
        keys.sort(key=lambda k: k[1] + k[2])
        marker, colour = next(markers), "C%d" % (index % 10)
        for size, key in zip(SIZES[label[2]], keys):
            r = rows[key]
            ai = r["flops"] / r["dram"] if r["dram"] else float("nan")
            gf = r["flops"] / r["t"] / 1e9
            print("| %s | %s | %d | %.1f | %.1f | %.0f | %.0f | %.1f | %.2f | %.0f | %.1f | %.1f | %.1f |"
                  % (label[1], size, r["launches"], r["t"] * 1e6, r["dram"] / 1e6, r["dram"] / r["t"] / 1e9,
                     gf, 100 * gf * 1e9 / peak, ai, r["regs"], r["occ"], r["fp64"], r["local"] / 1e6))
            if label[2] != "copy" and r["flops"] > 0:
                big = size == SIZES[label[2]][-1]
                ax.loglog(ai, gf, marker, ms=9 if big else 6, mfc=colour if big else "none", mec=colour,
                          label="%s, %s" % (label[1], size))
    ax.set_xlabel("FP64 flops per DRAM byte (executed, measured)")
    ax.set_ylabel("GFLOP/s (FP64)")
    ax.set_xlim(1e-2, 1e3)
    ax.set_ylim(10, 1e5)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title("cryodyn kernels on the H100 (cryodyn-bench --profile, Nsight Compute)")
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)


if __name__ == "__main__":
    main()
