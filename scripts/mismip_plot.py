#!/usr/bin/env python3
"""cryodyn's MISMIP+ runs over the published ensemble's envelope (docs/mismip.md).

Draws two figures from the ensemble's envelopes committed in docs/
(mismip_ensemble_gl.csv and mismip_ensemble_area.csv, reduced by
scripts/mismip_ensemble.py --envelopes from the submission files of
Cornford et al. 2020, The Cryosphere 14, 2283-2301) and cryodyn files
named on the command line:

  --gl-png    grounding lines in plan view (x against y, km), as Cornford et
              al. (2020) draw them: one panel per state of the envelope file
              (Ice0 at 0 a, Ice1r at 50 and 100 a, Ice1ra at 200 a), the
              group's envelope shaded (per 1 km bin of y, the least to the
              greatest x of its submissions' grounding-line points), cryodyn's
              grounding line over it;
  --area-png  grounded area, and grounded area lost since t = 0, against
              time for Ice1r/Ice1ra and Ice2r/Ice2ra: the group's least to
              greatest value shaded, its mean dashed, cryodyn's records over it.

A cryodyn file is either a land-ice output of a marine run (grounded_fraction:
the grounding line drawn is its contour 0.5, the points and the centreline
x_GL those of scripts/mismip_submission.py) or a file in the MISMIP+
submission format (xGL, yGL: the points are drawn; scripts/mismip_compare.py
reads it). Its experiment comes from the file name (Ice0, Ice1r, Ice1ra,
Ice2r, Ice2ra, any case: mismip_ice1r.nc, Ice1r_cryodyn.nc) or from a prefix
EXP=FILE. Times are model years: a record within 0.5 a of a panel's time is
drawn. The Ice0 panel takes the last record of the Ice0 file (the end of a
spin-up is Ice0's steady state; a 100 a control run ends at it too), or
without an Ice0 file the Ice1r record at t = 0; an Ice1r (Ice2r) record's
loss counts from the Ice1r (Ice2r) file's record at t = 0, an Ice1ra's
(Ice2ra's) too.

Standard output holds one line per panel and per cryodyn record at an
envelope time, key=value fields, for scripts and tests:

  gl exp=Ice1r t=100 group=coulomb source=FILE record_t=100 x_gl_km=380.000
     env_min_km=374.40 env_max_km=387.08 env_n=10 centre=inside points_inside=1/5
  area exp=Ice1r t=100 group=coulomb source=FILE area_km2=30400.0
     env_min_km2=... env_mean_km2=... env_max_km2=... env_n=10 area=inside
     loss_km2=... loss_env_min_km2=... loss_env_max_km2=... loss=above

x_gl_km is cryodyn's centreline grounding line (its point nearest y = 40
km), set against the envelope's bin 40 (the points within 0.5 km of the
centre line): centre= inside, upstream (x below the least), downstream
(above the greatest), none (no cryodyn record) or no-envelope;
points_inside counts cryodyn's points that lie within the envelope of
their bin of y (nearest whole km), out of those whose bin has one.
area= and loss= are inside, below, above or none.

  python3 scripts/mismip_plot.py --group coulomb \\
      --gl-png gl.png --area-png area.png \\
      mismip_ice0.nc mismip_ice1r.nc mismip_ice1ra.nc mismip_ice2r.nc mismip_ice2ra.nc

Reads only the envelope files given (default: the repository's docs/) and
the cryodyn files. Needs numpy, netCDF4 and matplotlib.
"""

import argparse
import csv
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
DOCS = os.path.join(HERE, os.pardir, "docs")
GROUP_LABELS = {"weertman": "Weertman", "coulomb": "Tsai and Schoof", "hofs": "HO and FS",
                "all": "all"}
EXPERIMENTS = ("Ice0", "Ice1r", "Ice1ra", "Ice2r", "Ice2ra")
TOL = 0.5  # a: a record within TOL of a time is at that time
LY_KM = 80.0


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def gl_envelope(path, group):
    """{(experiment, time): {y_km: (x_min, x_max, n)}} of one group, states in file order."""
    env = {}
    for r in read_csv(path):
        key = (r["experiment"], float(r["time_a"]))
        env.setdefault(key, {})
        if r["group"] == group:
            env[key][int(r["y_km"])] = (float(r["x_min_km"]), float(r["x_max_km"]), int(r["n"]))
    return env


def area_envelope(path, group):
    """{experiment: rows sorted by time} of one group."""
    out = {}
    for r in read_csv(path):
        if r["group"] != group:
            continue
        num = {k: (float(v) if v not in ("", None) else np.nan) for k, v in r.items()
               if k not in ("experiment", "group")}
        out.setdefault(r["experiment"], []).append(num)
    for rows in out.values():
        rows.sort(key=lambda r: r["time_a"])
    return out


def experiment_of(arg):
    """(experiment, path) from EXP=PATH or the file name."""
    m = re.fullmatch(r"(Ice0|Ice1ra|Ice1r|Ice2ra|Ice2r)=(.+)", arg)
    if m:
        return m.group(1), m.group(2)
    names = re.findall(r"(?i)ice(0|1ra|1rr|1r|2ra|2rr|2r)(?![a-z0-9])", os.path.basename(arg))
    exps = {"Ice" + n.lower() for n in names} & set(EXPERIMENTS)
    if len(exps) != 1:
        sys.exit(f"mismip_plot.py: {arg}: name no experiment of {', '.join(EXPERIMENTS)} "
                 "(write EXP=FILE)")
    return exps.pop(), arg


def load(exp, path, half):
    """A cryodyn run: time (a), area (km2), points per record (km), contour data."""
    from netCDF4 import Dataset

    with Dataset(path) as nc:
        output = "grounded_fraction" in nc.variables
    run = {"exp": exp, "path": path, "name": os.path.basename(path)}
    if output:
        from mismip_submission import grounding_points
        from mismip_submission import load as load_output

        r = load_output(path, half)
        cell = r["dx"] * r["dy"] * (2.0 if r["half"] else 1.0)
        run["time"] = r["time"]
        run["area"] = np.nan_to_num(r["gf"]).sum(axis=(1, 2)) * cell / 1e6
        run["points"] = [np.array(grounding_points(r, k), float).reshape(-1, 2) / 1e3
                         for k in range(r["time"].size)]
        run["field"] = (r["x"] / 1e3, r["y"] / 1e3, r["gf"], r["half"])
    else:
        from mismip_compare import load as load_submission

        s = load_submission(path)
        run["time"] = s["time"]
        run["area"] = s["area"] / 1e6
        run["points"] = []
        for k in range(s["time"].size):
            ok = np.isfinite(s["xgl"][:, k]) & np.isfinite(s["ygl"][:, k])
            run["points"].append(np.column_stack([s["xgl"][ok, k], s["ygl"][ok, k]]) / 1e3)
        run["field"] = None
    return run


def record_at(run, t):
    k = np.nonzero(np.abs(run["time"] - t) <= TOL)[0]
    return int(k[0]) if k.size else None


def centre_x(points):
    """x (km) of the point nearest y = 40 km, the first of equally near ones."""
    if points.size == 0:
        return np.nan
    return points[np.argmin(np.abs(points[:, 1] - LY_KM / 2)), 0]


def position(v, lo, hi, low="below", high="above"):
    if not np.isfinite(v):
        return "none"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "no-envelope"
    return low if v < lo else high if v > hi else "inside"


def panel_source(runs, exp, t):
    """(run, record) drawn in the panel of (exp, t), or (None, None)."""
    if exp == "Ice0":
        if "Ice0" in runs and runs["Ice0"]["time"].size:
            return runs["Ice0"], runs["Ice0"]["time"].size - 1
        exp, t = "Ice1r", 0.0
    run = runs.get(exp)
    if run is None:
        return None, None
    k = record_at(run, t)
    return (run, k) if k is not None else (None, None)


def gl_summary(runs, env, group):
    """The summary rows of the grounding-line panels."""
    rows = []
    for (exp, t), bins in env.items():
        run, k = panel_source(runs, exp, t)
        lo, hi, n = bins.get(int(LY_KM / 2), (np.nan, np.nan, 0))
        row = {"exp": exp, "t": t, "run": run, "k": k, "lo": lo, "hi": hi, "n": n,
               "x": np.nan, "inside": 0, "counted": 0}
        if run is not None:
            pts = run["points"][k]
            row["x"] = centre_x(pts)
            for x, y in pts:
                b = bins.get(int(np.floor(y + 0.5)))
                if b is not None:
                    row["counted"] += 1
                    row["inside"] += b[0] <= x <= b[1]
        row["centre"] = position(row["x"], lo, hi, "upstream", "downstream")
        rows.append(row)
        src = "none" if run is None else run["name"]
        rt = "nan" if run is None else f"{run['time'][k]:g}"
        print(f"gl exp={exp} t={t:g} group={group} source={src} record_t={rt} "
              f"x_gl_km={row['x']:.3f} env_min_km={lo:.2f} env_max_km={hi:.2f} env_n={n} "
              f"centre={row['centre']} points_inside={row['inside']}/{row['counted']}")
    return rows


def area_summary(runs, aenv, group):
    """Print the area rows: each cryodyn record at an envelope time."""
    for exp in ("Ice1r", "Ice1ra", "Ice2r", "Ice2ra"):
        run = runs.get(exp)
        if run is None or exp not in aenv:
            continue
        a0 = reference_area(runs, exp)
        for r in aenv[exp]:
            k = record_at(run, r["time_a"])
            if k is None:
                continue
            area = run["area"][k]
            loss = a0 - area
            print(f"area exp={exp} t={r['time_a']:g} group={group} source={run['name']} "
                  f"area_km2={area:.1f} env_min_km2={r['area_min_km2']:.1f} "
                  f"env_mean_km2={r['area_mean_km2']:.1f} env_max_km2={r['area_max_km2']:.1f} "
                  f"env_n={int(r['n'])} area={position(area, r['area_min_km2'], r['area_max_km2'])} "
                  f"loss_km2={loss:.1f} loss_env_min_km2={r['loss_min_km2']:.1f} "
                  f"loss_env_max_km2={r['loss_max_km2']:.1f} "
                  f"loss={position(loss, r['loss_min_km2'], r['loss_max_km2'])}")


def reference_area(runs, exp):
    """Grounded area (km2) at t = 0 of the experiment's r run, nan without one."""
    base = runs.get(exp[:-1] if exp.endswith("ra") else exp)
    if base is None:
        return np.nan
    k = record_at(base, 0.0)
    return base["area"][k] if k is not None else np.nan


def plot_gl(rows, env, group, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(rows), 1, figsize=(9, 2.3 * len(rows)), sharex=True,
                             squeeze=False)
    yb = np.arange(0, int(LY_KM) + 1)
    for ax, row in zip(axes[:, 0], rows):
        bins = env[(row["exp"], row["t"])]
        lo = np.array([bins.get(y, (np.nan,) * 3)[0] for y in yb])
        hi = np.array([bins.get(y, (np.nan,) * 3)[1] for y in yb])
        ok = np.isfinite(lo)
        ax.fill_betweenx(yb, np.where(ok, lo, 0), np.where(ok, hi, 0), where=ok, step="mid",
                         color="tab:blue", alpha=0.3, lw=0,
                         label=f"ensemble, {GROUP_LABELS.get(group, group)}")
        run, k = row["run"], row["k"]
        if run is not None:
            label = f"cryodyn {run['name']} t = {run['time'][k]:g} a"
            if run["field"] is not None:
                x, y, gf, half = run["field"]
                ax.contour(x, y, gf[k], levels=[0.5], colors="k", linewidths=1.3)
                if half:
                    ax.contour(x, LY_KM - y, gf[k], levels=[0.5], colors="k", linewidths=1.3)
                ax.plot([], [], "k-", lw=1.3, label=label)
            else:
                p = run["points"][k]
                ax.plot(p[:, 0], p[:, 1], "k.", ms=4, label=label)
            if np.isfinite(row["x"]):
                ax.plot(row["x"], LY_KM / 2, "kx", ms=7)
        else:
            ax.text(0.99, 0.05, "no cryodyn record", transform=ax.transAxes, ha="right",
                    fontsize=8)
        ax.set_title(f"{row['exp']} t = {row['t']:g} a", fontsize=9, loc="left")
        ax.set_xlim(300, 600)
        ax.set_ylim(0, LY_KM)
        ax.set_aspect("equal")
        ax.set_ylabel("y (km)")
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    axes[-1, 0].set_xlabel("x (km)")
    fig.suptitle("MISMIP+ grounding lines: cryodyn over the ensemble of Cornford et al. (2020)",
                 fontsize=10)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def plot_area(runs, aenv, group, tmax, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(10, 6.5), sharex=True)
    for i, pair in enumerate((("Ice1r", "Ice1ra"), ("Ice2r", "Ice2ra"))):
        for j, (key, label) in enumerate((("area", "grounded area (km²)"),
                                          ("loss", "grounded area lost since t = 0 (km²)"))):
            ax = axes[i, j]
            for exp, colour in zip(pair, ("tab:blue", "tab:orange")):
                rows = [r for r in aenv.get(exp, []) if r["time_a"] <= tmax + TOL]
                if rows:
                    t = np.array([r["time_a"] for r in rows])
                    lo = np.array([r[f"{key}_min_km2"] for r in rows])
                    mean = np.array([r[f"{key}_mean_km2"] for r in rows])
                    hi = np.array([r[f"{key}_max_km2"] for r in rows])
                    ax.fill_between(t, lo, hi, color=colour, alpha=0.3, lw=0,
                                    label=f"{exp} ensemble ({GROUP_LABELS.get(group, group)})")
                    ax.plot(t, mean, "--", color=colour, lw=1)
                run = runs.get(exp)
                if run is not None:
                    v = run["area"] if key == "area" else reference_area(runs, exp) - run["area"]
                    sel = run["time"] <= tmax + TOL
                    ax.plot(run["time"][sel], v[sel], "o-", color="k", ms=3, lw=1,
                            mfc=colour, label=f"cryodyn {run['name']}")
            ax.set_ylabel(label)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7)
            ax.grid(alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("time (a)")
    fig.suptitle("MISMIP+ grounded area: cryodyn over the ensemble of Cornford et al. (2020)",
                 fontsize=10)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="cryodyn files, [EXP=]FILE")
    ap.add_argument("--group", default="coulomb", choices=sorted(GROUP_LABELS),
                    help="the ensemble group drawn (default coulomb: Tsai and Schoof)")
    ap.add_argument("--gl-csv", default=os.path.join(DOCS, "mismip_ensemble_gl.csv"))
    ap.add_argument("--area-csv", default=os.path.join(DOCS, "mismip_ensemble_area.csv"))
    ap.add_argument("--gl-png", help="draw the grounding lines into this PNG")
    ap.add_argument("--area-png", help="draw the grounded area into this PNG")
    ap.add_argument("--tmax", type=float, default=None,
                    help="last time (a) of the area figure (default: 200 or cryodyn's last)")
    ap.add_argument("--half", action="store_true", default=None,
                    help="cryodyn outputs of a half-width run (default: a domain 40 km wide)")
    a = ap.parse_args(argv)

    runs = {}
    for arg in a.files:
        exp, path = experiment_of(arg)
        if exp in runs:
            sys.exit(f"mismip_plot.py: two files for {exp}")
        runs[exp] = load(exp, path, a.half)
    env = gl_envelope(a.gl_csv, a.group)
    aenv = area_envelope(a.area_csv, a.group)
    rows = gl_summary(runs, env, a.group)
    area_summary(runs, aenv, a.group)
    if a.gl_png:
        plot_gl(rows, env, a.group, a.gl_png)
        print(f"wrote {a.gl_png}")
    if a.area_png:
        tmax = a.tmax
        if tmax is None:
            tmax = max([200.0] + [float(r["time"][-1]) for e, r in runs.items() if e != "Ice0"])
        plot_area(runs, aenv, a.group, tmax, a.area_png)
        print(f"wrote {a.area_png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
