#!/usr/bin/env python3
"""Copies a lab snapshot with each port's `ethtool -S` grown to a real ConnectX host's size.

The lab's hosts print 60 counters a port; mlx5 prints per-queue counters too (rxN_*, txN_*,
chN_* for every channel, 38 names a channel in the real dump used here), so a host with 63
channels prints about 2,450 lines a port, read twice per audit. Re-judging the copy with
`fabcheck audit --snapshot` measures what a real host's counters cost, which the lab alone does
not show. The per-queue names are those of a real mlx5 dump in the parser's fixtures; the values
grow by 500 across the window.

Usage: python3 docs/perf/real_size_counters.py SNAPSHOT OUT [CHANNELS]
       valgrind --tool=cachegrind --cache-sim=no fabcheck audit --snapshot SNAPSHOT --out A
       valgrind --tool=cachegrind --cache-sim=no fabcheck audit --snapshot OUT --out B
"""

import pathlib
import re
import shutil
import sys

DUMP = (pathlib.Path(__file__).resolve().parents[2] / "crates/parse/tests/fixtures/ethtool_stats"
        / "cx4lx-fw14.23-mlx5-ubuntu1804-k4.15-ethtool-S-ethq-fixture-noindent.txt")


def per_queue_names():
    """(prefix, rest) of every channel-0 counter of the real dump: `rx`, `cache_reuse`."""
    names = []
    for line in DUMP.read_text().splitlines():
        m = re.match(r"^(rx|tx|ch)0_([^:]+):", line)
        if m:
            names.append((m.group(1), m.group(2)))
    return names


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    snapshot, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    channels = int(sys.argv[3]) if len(sys.argv) == 4 else 63
    names = per_queue_names()
    shutil.copytree(snapshot, out)
    grown = 0
    for path in sorted(out.glob("*/ethtool_stats.*.txt")):
        later = path.name.endswith(".t1.txt")
        extra = [f"     {prefix}{q}_{rest}: {1000 * q + (500 if later else 0)}"
                 for q in range(channels) for prefix, rest in names]
        text = path.read_text()
        if text and not text.endswith("\n"):
            text += "\n"
        path.write_text(text + "\n".join(extra) + "\n")
        grown += 1
    print(f"{out}: {grown} ethtool -S reads grown by {channels * len(names)} lines each")


if __name__ == "__main__":
    main()
