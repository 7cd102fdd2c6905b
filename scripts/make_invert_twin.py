#!/usr/bin/env python3
"""Files of the ISMIP-HOM C twin experiment of the basal inversion
(docs/landice.md, Basal inversion).

  make_invert_twin.py truth --n 16 --length 80000 truth.nc
      sliding_c = 1000 + 1000 sin(w x) sin(w y) Pa a m-1 at the cell centres
      (w = 2 pi / L), the field file that &cryo_landice fields_file reads;
  make_invert_twin.py obs forward.nc obs.nc [--noise 0.01] [--seed 1]
      u_obs, v_obs and sigma = noise x speed at the nodes from the last record
      of a forward run's output (u_surf, v_surf), each component plus sigma
      times a standard normal number of numpy's generator with that seed
      (--noise-free: sigma as given, the velocities as they are).
"""
import argparse

import netCDF4
import numpy as np

VEL_UNITS = "m/(365 day)"


def truth(args):
    n, length = args.n, args.length
    x = (np.arange(n) + 0.5) * length / n
    xx, yy = np.meshgrid(x, x)
    w = 2.0 * np.pi / length
    with netCDF4.Dataset(args.output, "w") as d:
        d.createDimension("y", n)
        d.createDimension("x", n)
        v = d.createVariable("sliding_c", "f8", ("y", "x"))
        v.units = "Pa m^(-m) a^m"
        v[:] = 1000.0 + 1000.0 * np.sin(w * xx) * np.sin(w * yy)


def obs(args):
    with netCDF4.Dataset(args.forward) as f:
        u = np.array(f["u_surf"][-1], dtype=float)
        v = np.array(f["v_surf"][-1], dtype=float)
    sigma = args.noise * np.hypot(u, v)
    if args.noise_free:
        uo, vo = u, v
    else:
        rng = np.random.default_rng(args.seed)
        uo = u + sigma * rng.standard_normal(u.shape)
        vo = v + sigma * rng.standard_normal(v.shape)
    with netCDF4.Dataset(args.output, "w") as d:
        d.createDimension("y_node", u.shape[0])
        d.createDimension("x_node", u.shape[1])
        for name, a in (("u_obs", uo), ("v_obs", vo), ("sigma", sigma)):
            var = d.createVariable(name, "f8", ("y_node", "x_node"))
            var.units = VEL_UNITS
            var[:] = a


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    t = sub.add_parser("truth")
    t.add_argument("--n", type=int, default=16)
    t.add_argument("--length", type=float, default=80000.0)
    t.add_argument("output")
    o = sub.add_parser("obs")
    o.add_argument("forward")
    o.add_argument("output")
    o.add_argument("--noise", type=float, default=0.01)
    o.add_argument("--seed", type=int, default=1)
    o.add_argument("--noise-free", action="store_true")
    args = ap.parse_args()
    truth(args) if args.what == "truth" else obs(args)


if __name__ == "__main__":
    main()
