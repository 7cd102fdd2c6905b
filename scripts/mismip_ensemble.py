#!/usr/bin/env python3
"""The MISMIP+ ensemble's figures as a Markdown table (docs/mismip.md, The published ensemble).

Reads the per-record reduction of the ensemble's submission files (Cornford
et al. 2020, The Cryosphere 14, 2283-2301, supplement), a CSV with the
columns submission, experiment, time_a, grounded_area_m2, ice_volume_m3,
ice_vaf_m3, xgl_centre_m, and prints one row per submission: its sliding
law, stress approximation and resolution (read from the submission's name,
GROUP_MODEL_..._STRESS_..._LAW_..._RESOLUTION; blank where it names none), the Ice0 grounded area and
centreline x_GL at t = 0, the Ice1r grounded area lost since t = 0 at 10,
50 and 100 a, the Ice1ra grounded area at 100 and 200 a and the Ice2r loss
at 100 and 200 a (blank where the file has no such record). Then, over the
finest resolution of each configuration (a submission's name without its
resolution), the range and mean of every column per sliding law, for the
two Coulomb-limited laws together, for the higher-order and full-Stokes
models (HO, FS) and for all.

  python3 scripts/mismip_ensemble.py ensemble.csv     (the table on standard output)

docs/mismip.md holds the committed table; this script documents how it
was reduced. Needs only the Python standard library.
"""

import csv
import math
import re
import sys

LAWS = ("Weertman", "Tsai", "Schoof")
STRESSES = ("SSA", "SSA+SIA", "HySSA", "L1L2b", "L1L2c", "HO", "FS")
COLUMNS = (
    ("Ice0 area (km²)", "Ice0", 0, "area"),
    ("Ice0 x_GL (km)", "Ice0", 0, "xgl"),
    ("Ice1r loss 10 a", "Ice1r", 10, "loss"),
    ("50 a", "Ice1r", 50, "loss"),
    ("100 a", "Ice1r", 100, "loss"),
    ("Ice1ra area 100 a", "Ice1ra", 100, "area"),
    ("200 a", "Ice1ra", 200, "area"),
    ("Ice2r loss 100 a", "Ice2r", 100, "loss"),
    ("200 a", "Ice2r", 200, "loss"),
)


def describe(name):
    """(law, stress, resolution in m or None, configuration) from a submission name."""
    parts = name.split("_")
    law = next((p for p in parts if p in LAWS), "")
    stress = next((p for p in parts if p in STRESSES), "")
    res = None
    m = re.fullmatch(r"(\d+)(k?m)", parts[-1])
    if m:
        res = float(m.group(1)) * (1000.0 if m.group(2) == "km" else 1.0)
        parts = parts[:-1]
    return law, stress, res, "_".join(parts)


def read(path):
    runs = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            exp = runs.setdefault(r["submission"], {}).setdefault(r["experiment"], {})
            exp[float(r["time_a"])] = (float(r["grounded_area_m2"] or "nan"),
                                       float(r["xgl_centre_m"] or "nan"))
    return runs


def value(exps, experiment, t, kind):
    e = exps.get(experiment, {})
    if t not in e:
        return math.nan
    area, xgl = e[t]
    if kind == "area":
        return area / 1e6
    if kind == "xgl":
        return xgl / 1e3
    return (e[0.0][0] - area) / 1e6 if 0.0 in e else math.nan


def fmt(v, digits=0):
    return "" if math.isnan(v) else f"{v:,.{digits}f}".replace(",", " ")


def summary(label, rows):
    cells = []
    for c in range(len(COLUMNS)):
        vals = [r[c] for r in rows if not math.isnan(r[c])]
        digits = 1 if COLUMNS[c][3] == "xgl" else 0
        if not vals:
            cells.append("")
        else:
            mean = sum(vals) / len(vals)
            cells.append(f"{fmt(min(vals), digits)} – {fmt(max(vals), digits)} "
                         f"({fmt(mean, digits)}, {len(vals)})")
    return f"| {label} | | | | " + " | ".join(cells) + " |"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        sys.exit("usage: mismip_ensemble.py ENSEMBLE.csv")
    runs = read(argv[0])
    head = ["submission", "law", "stress", "res."] + [c[0] for c in COLUMNS]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    finest = {}
    table = []
    for name in sorted(runs):
        law, stress, res, config = describe(name)
        vals = [value(runs[name], e, t, k) for _, e, t, k in COLUMNS]
        table.append((name, law, stress, res, vals))
        best = finest.get(config)
        if best is None or (res is not None and (best[3] is None or res < best[3])):
            finest[config] = (name, law, stress, res, vals)
        res_s = "" if res is None else (f"{res / 1000:g} km" if res >= 1000 else f"{res:g} m")
        cells = [fmt(v, 1 if COLUMNS[i][3] == "xgl" else 0) for i, v in enumerate(vals)]
        print(f"| {name} | {law} | {stress} | {res_s} | " + " | ".join(cells) + " |")
    chosen = list(finest.values())
    groups = [(f"{law} ({sum(r[1] == law for r in chosen)})", [r for r in chosen if r[1] == law])
              for law in LAWS]
    coulomb = [r for r in chosen if r[1] in ("Tsai", "Schoof")]
    hofs = [r for r in chosen if r[2] in ("HO", "FS")]
    groups += [(f"Tsai and Schoof ({len(coulomb)})", coulomb), (f"HO and FS ({len(hofs)})", hofs),
               (f"all ({len(chosen)})", chosen)]
    for label, rows in groups:
        print(summary("**" + label + "**", [r[4] for r in rows]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
