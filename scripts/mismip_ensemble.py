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
at 100 and 200 a (blank where the file has no such record; an Ice1ra or
Ice2ra time axis that starts before 100 a counts from the restart at
100 a and is shifted by 100 a, as --envelopes does). Then, over the
finest resolution of each configuration (a submission's name without its
resolution), the range and mean of every column per sliding law, for the
two Coulomb-limited laws together, for the higher-order and full-Stokes
models (HO, FS) and for all.

  python3 scripts/mismip_ensemble.py ensemble.csv     (the table on standard output)

With --envelopes DIR it reads the submission files themselves
(DIR/EXP_SUBMISSION.nc, the MISMIP+ submission format: see
scripts/mismip_compare.py) and writes the two envelope files that
scripts/mismip_plot.py draws cryodyn's runs over:

  python3 scripts/mismip_ensemble.py --envelopes DIR [--out docs]

  mismip_ensemble_gl.csv    the grounding-line envelope: for Ice0 at 0 a,
      Ice1r at 50 and 100 a and Ice1ra at 200 a, per group (weertman;
      coulomb = Tsai and Schoof; hofs = HO and FS; all) and per y-bin of
      1 km (bin k holds the points with |y - k km| <= 0.5 km, k = 0..80; a
      point on a bin edge counts in both bins, so the bins are symmetric
      about the centre line y = 40 km, bin 40), the least and greatest x of
      the grounding-line points of the group's submissions and the number of
      submissions with a point in the bin (bins without one are left out);
  mismip_ensemble_area.csv  the grounded area against time for Ice1r,
      Ice1ra, Ice2r and Ice2ra per group: at each output time, the number of
      submissions, the least, mean and greatest grounded area (km2) and the
      same of the grounded area lost since the submission's Ice1r (Ice2r)
      state at t = 0.

Both use the finest resolution of each configuration, as the table does.
What the reduction corrects in the files (each correction is reported on
standard error): grounding-line coordinates in km (all below 1000) are
taken as km; a submission whose points all lie in y <= 40 km (a half-width
run) has them mirrored about the centre line; times are rounded to whole
years (one file writes 10.1, 20.1, ...); the r experiments are cut at
100 a (one file runs Ice1r on to 200 a, the Ice1rr of the protocol); an
ra experiment whose time axis starts before 100 a (counting from the
restart at 100 a, as its first grounded area, equal to the r experiment's
last, shows) is shifted by 100 a.

docs/mismip.md holds the committed table; this script documents how it
was reduced. The table needs only the Python standard library; --envelopes
needs numpy and netCDF4.
"""

import csv
import math
import os
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
    for name, exps in runs.items():  # an ra time axis that counts from the restart at 100 a
        for e, recs in exps.items():
            if e.endswith("ra") and min(recs) < 99.5:
                exps[e] = {t + 100.0: v for t, v in recs.items()}
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


def finest_names(names):
    """The finest resolution's submission of each configuration among names."""
    finest = {}
    for name in sorted(names):
        law, stress, res, config = describe(name)
        best = finest.get(config)
        if best is None or (res is not None and (best[1] is None or res < best[1])):
            finest[config] = (name, res)
    return sorted(n for n, _ in finest.values())


# Envelope groups: key, label, membership from (law, stress).
GROUPS = (
    ("weertman", "Weertman", lambda law, stress: law == "Weertman"),
    ("coulomb", "Tsai and Schoof", lambda law, stress: law in ("Tsai", "Schoof")),
    ("hofs", "HO and FS", lambda law, stress: stress in ("HO", "FS")),
    ("all", "all", lambda law, stress: True),
)
GL_STATES = (("Ice0", 0), ("Ice1r", 50), ("Ice1r", 100), ("Ice1ra", 200))
AREA_EXPERIMENTS = ("Ice1r", "Ice1ra", "Ice2r", "Ice2ra")
Y_BINS_KM = range(0, 81)
CITATION = (
    "# Reduced from the participants' submission files of the MISMIP+ ensemble: Cornford, S. L.,\n"
    "# Seroussi, H., Asay-Davis, X. S., et al. (2020): Results of the third Marine Ice Sheet Model\n"
    "# Intercomparison Project (MISMIP+). The Cryosphere 14, 2283-2301, doi:10.5194/tc-14-2283-2020\n"
    "# (its supplement, as redistributed in the public repository IMAU-paleo/data, folder\n"
    "# model_ensembles/MISMIPplus/submission_data/, commit 0bcf430f; without the BISICLES\n"
    "# submissions and the Ua Ice1r files). Experiments of Asay-Davis et al. (2016), GMD 9,\n"
    "# 2471-2497. Not numbers printed in the paper: written by scripts/mismip_ensemble.py\n"
    "# --envelopes over the finest resolution of each configuration; groups: weertman (Weertman\n"
    "# law), coulomb (Tsai and Schoof laws), hofs (higher-order and full-Stokes models), all.\n"
    "# How the files were reduced and corrected: the docstring of scripts/mismip_ensemble.py\n"
    "# (and docs/mismip.md, section The published ensemble).\n"
)


def note(msg):
    print(f"mismip_ensemble.py: {msg}", file=sys.stderr)


def load_submission(path, exp, name):
    """time (whole a), area (m2), x, y (m; nPointGL x nTime) of one file, corrected."""
    import numpy as np

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from mismip_compare import load

    run = load(path)
    t, area, x, y = run["time"], run["area"], run["xgl"], run["ygl"]
    if run["km"]:
        note(f"{exp}_{name}: grounding-line points in km")
    ok = np.isfinite(y)
    if ok.any() and np.max(y[ok]) <= 40.0e3:
        note(f"{exp}_{name}: all points in y <= 40 km, mirrored about the centre line")
        x, y = np.concatenate([x, x]), np.concatenate([y, 80.0e3 - y])
    tr = np.round(t)
    if np.any(np.abs(tr - t) > 1.0e-3):
        note(f"{exp}_{name}: times {t.tolist()} rounded to whole years")
    t = tr
    if exp.endswith("ra") and t.size and t[0] < 99.5:
        note(f"{exp}_{name}: time axis starts at {t[0]:g} a, shifted by 100 a")
        t = t + 100.0
    keep = np.ones(t.shape, bool)
    if exp.endswith("r"):
        keep = t <= 100.5
    elif exp.endswith("ra"):
        keep = t >= 99.5
    if not keep.all():
        note(f"{exp}_{name}: records at {t[~keep].tolist()} a left out")
    return t[keep], area[keep], x[:, keep], y[:, keep]


def envelopes(folder, out):
    """Write mismip_ensemble_gl.csv and mismip_ensemble_area.csv into out."""
    import numpy as np

    files = {}
    for f in sorted(os.listdir(folder)):
        if f.endswith(".nc") and "_" in f:
            exp, name = f[:-3].split("_", 1)
            files.setdefault(name, {})[exp] = os.path.join(folder, f)
    chosen = finest_names(files)
    runs = {}
    for name in chosen:
        for exp in {e for e, _ in GL_STATES} | set(AREA_EXPERIMENTS):
            if exp in files[name]:
                runs[(name, exp)] = load_submission(files[name][exp], exp, name)
    member = {name: [g for g, _, test in GROUPS if test(*describe(name)[:2])] for name in chosen}
    print(f"{len(chosen)} submissions (finest resolution of each configuration):", file=sys.stderr)
    for name in chosen:
        print(f"  {name}: {' '.join(member[name])}", file=sys.stderr)

    path = os.path.join(out, "mismip_ensemble_gl.csv")
    with open(path, "w") as f:
        f.write("# MISMIP+ ensemble: grounding-line envelope per 1 km bin of y.\n" + CITATION)
        f.write("# Columns: experiment, time (a), group, y_km (bin centre; the bin holds the points\n"
                "# with |y - y_km| <= 0.5 km), least and greatest x (km) of the group's grounding-line\n"
                "# points in the bin, number of submissions with a point in it.\n")
        f.write("experiment,time_a,group,y_km,x_min_km,x_max_km,n\n")
        for exp, t0 in GL_STATES:
            pts = {}
            for name in chosen:
                if (name, exp) not in runs:
                    continue
                t, _, x, y = runs[(name, exp)]
                k = np.nonzero(t == t0)[0]
                if k.size:
                    ok = np.isfinite(x[:, k[0]]) & np.isfinite(y[:, k[0]])
                    pts[name] = (x[ok, k[0]] / 1e3, y[ok, k[0]] / 1e3)
            for g, _, _ in GROUPS:
                for yb in Y_BINS_KM:
                    xs = [px[np.abs(py - yb) <= 0.5 + 1e-9] for n, (px, py) in pts.items()
                          if g in member[n]]
                    xs = [a for a in xs if a.size]
                    if xs:
                        allx = np.concatenate(xs)
                        f.write(f"{exp},{t0},{g},{yb},{allx.min():.2f},{allx.max():.2f},{len(xs)}\n")
    print(f"wrote {path}", file=sys.stderr)

    path = os.path.join(out, "mismip_ensemble_area.csv")
    with open(path, "w") as f:
        f.write("# MISMIP+ ensemble: grounded area against time.\n" + CITATION)
        f.write("# Columns: experiment, time (a), group, number of submissions with a record at that\n"
                "# time, least, mean and greatest grounded area (km2), least, mean and greatest\n"
                "# grounded area lost since the submission's Ice1r (for Ice1r, Ice1ra) or Ice2r (for\n"
                "# Ice2r, Ice2ra) record at t = 0 (km2; blank where no such record).\n")
        f.write("experiment,time_a,group,n,area_min_km2,area_mean_km2,area_max_km2,"
                "loss_min_km2,loss_mean_km2,loss_max_km2\n")
        for exp in AREA_EXPERIMENTS:
            base = exp[:-1] if exp.endswith("ra") else exp
            times = sorted({float(tt) for (n, e), r in runs.items() if e == exp for tt in r[0]})
            for g, _, _ in GROUPS:
                for t0 in times:
                    area, loss = [], []
                    for name in chosen:
                        if (name, exp) not in runs or g not in member[name]:
                            continue
                        t, a, _, _ = runs[(name, exp)]
                        k = np.nonzero(t == t0)[0]
                        if not k.size:
                            continue
                        area.append(a[k[0]] / 1e6)
                        if (name, base) in runs:
                            tb, ab, _, _ = runs[(name, base)]
                            kb = np.nonzero(tb == 0.0)[0]
                            if kb.size:
                                loss.append((ab[kb[0]] - a[k[0]]) / 1e6)
                    if not area:
                        continue
                    cells = [f"{min(area):.1f}", f"{sum(area) / len(area):.1f}", f"{max(area):.1f}"]
                    cells += ([f"{min(loss):.1f}", f"{sum(loss) / len(loss):.1f}", f"{max(loss):.1f}"]
                              if loss else ["", "", ""])
                    f.write(f"{exp},{t0:g},{g},{len(area)}," + ",".join(cells) + "\n")
    print(f"wrote {path}", file=sys.stderr)
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--envelopes"] and len(argv) in (2, 4) and argv[2:3] in ([], ["--out"]):
        return envelopes(argv[1], argv[3] if len(argv) == 4 else "docs")
    if len(argv) != 1:
        sys.exit("usage: mismip_ensemble.py ENSEMBLE.csv\n"
                 "       mismip_ensemble.py --envelopes SUBMISSION_DIR [--out DIR]")
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
