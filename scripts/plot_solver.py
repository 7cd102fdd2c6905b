#!/usr/bin/env python3
"""CG iterations per Newton step and solve time against resolution, both
land-ice preconditioners, from the table `gpu-check.sh solver` prints
(docs/performance.md, "Land-ice solver").

    scripts/plot_solver.py TABLE OUT.png    (TABLE: what gpu-check.sh solver printed)
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def read_rows(path):
    """The ISMIP-HOM rows: (elements, preconditioner, driver, per step, seconds)."""
    rows = []
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 9 or not cells[0].startswith("ismip_a_") or cells[5] == "failed":
            continue
        rows.append((int(cells[2]), cells[3], cells[4], float(cells[7]), float(cells[8])))
    return rows


def main():
    rows = read_rows(sys.argv[1])
    fig, (ax_it, ax_t) = plt.subplots(1, 2, figsize=(10, 4))
    styles = {"column": "o--", "multigrid": "s-"}
    for pc in ("column", "multigrid"):
        gpu = sorted((e, it, t) for e, p, d, it, t in rows if p == pc and d == "cryodyn")
        omp = sorted((e, t) for e, p, d, it, t in rows if p == pc and d == "cryodyn-omp")
        ax_it.loglog([r[0] for r in gpu], [r[1] for r in gpu], styles[pc], label=pc)
        ax_t.loglog([r[0] for r in gpu], [r[2] for r in gpu], styles[pc], label=pc + ", GPU")
        if omp:
            ax_t.loglog([r[0] for r in omp], [r[1] for r in omp], styles[pc], alpha=0.4,
                        label=pc + ", 16-core OpenMP")
    ax_it.set_xlabel("elements (ISMIP-HOM A, 10 layers)")
    ax_it.set_ylabel("CG iterations per Newton step")
    ax_t.set_xlabel("elements (ISMIP-HOM A, 10 layers)")
    ax_t.set_ylabel("velocity solve (dynamics), s")
    for ax in (ax_it, ax_t):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=100)


if __name__ == "__main__":
    main()
