#!/usr/bin/env python3
"""Plot the parallel efficiency from the tables of `gpu-check.sh scale` and
`gpu-check.sh nodes`.

    scripts/plot_scaling.py PACK/scale.md [PACK/nodes.md ...] scaling.png

Reads every scaling table of the files (scale.md: sea-ice weak and strong
scaling, land-ice weak scaling; nodes.md: the Arctic and MISMIP+ strong
scaling), each a section whose rows have the GPUs in the first column and the
efficiency in the last ('-' for one GPU), and draws efficiency against the
number of GPUs, a line per table, with the 90 % line of the targets.
"""
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend chosen first)


def tables(path):
    """Return {section title: [(gpus, efficiency %)]}."""
    out, title = {}, None
    for line in open(path):
        if line.startswith("## "):
            title = line[3:].strip()
            out[title] = []
        elif title and re.match(r"\| *\d+ *\|", line):
            cols = [c.strip() for c in line.strip().strip("|").split("|")]
            eff = 100.0 if cols[-1] == "-" else float(cols[-1].rstrip("% "))
            out[title].append((int(cols[0]), eff))
    return {k: v for k, v in out.items() if v and "Bit for bit" not in k}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    data = {}
    for path in sys.argv[1:-1]:
        found = tables(path)
        if not found:
            sys.exit("plot_scaling: error: no scaling table in %s" % path)
        data.update(found)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for title, rows in data.items():
        ax.plot([r[0] for r in rows], [r[1] for r in rows], "o-", label=title.split(":")[0])
    ax.axhline(90, color="k", ls="--", lw=1, label="90 % (target at 4 GPUs)")
    gpus = sorted({r[0] for rows in data.values() for r in rows})
    ax.set_xticks(gpus)
    ax.set_xlabel("GPUs (one MPI rank each)")
    ax.set_ylabel("parallel efficiency (%)")
    ax.set_ylim(0, 110)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title("cryodyn, one MPI rank per GPU: efficiency per unit of work")
    fig.tight_layout()
    fig.savefig(sys.argv[-1], dpi=110)


if __name__ == "__main__":
    main()
