#!/usr/bin/env python3
"""Sums a folded perf profile of `fabcheck audit` by stage: where the client's CPU goes.

Input: the folded stacks `inferno-collapse-perf --all` writes (one `frame;frame;... weight` per
line, kernel frames ending in `_[k]`), from a file or standard input. Output: a Markdown table,
largest share first, of the sampled CPU time (perf weighs each sample by its period).

A user-space sample counts for the first stage whose mark appears in its stack, in the order of
STAGES, so a key exchange's hashing counts as the key exchange, not as SSH; a kernel sample
counts for the system call it serves. Generic arguments are dropped from frame names first
(`collect_all<..., DeviceRecord>` names a type the code handles, not the code that ran), but a
qualifier that opens a name (`<fabcheck::facts::X as Trait>::f`, `::<impl Trait for X>`) is
kept, as it names the code's owner.

Usage: perf script -i perf.data | inferno-collapse-perf --all > folded.txt
       python3 docs/perf/summarise.py folded.txt
"""

import collections
import sys

STAGES = [
    ("key exchange (ML-KEM, X25519, Ed25519)",
     ("ml_kem", "curve25519", "ed25519", "russh::client::kex", "russh::negotiation")),
    ("reading outputs into facts", ("fabcheck::facts",)),
    ("reports", ("fabcheck_report", "fabcheck::report")),
    ("writing the evidence", ("fabcheck::evidence",)),
    ("checks", ("fabcheck::check", "fabcheck::audit::assemble")),
    ("SSH channels and ciphers", ("russh", "ring_core", "fabcheck::transport")),
    ("collection (commands, bundles, discovery)", ("fabcheck::collect", "fabcheck::platform")),
    ("async runtime, and code inlined into its tasks", ("tokio",)),
]
# Checked in order: a write to the runtime's eventfd is a wake-up, not a file.
SYSCALLS = [
    ("kernel: thread wake-ups", ("futex", "eventfd")),
    ("kernel: network (send, receive, epoll)", ("sendto", "recvfrom", "epoll", "connect", "shutdown", "sock_")),
    ("kernel: files", ("openat", "ksys_write", "close", "mkdir", "rename", "statx", "unlink", "rmdir", "vfs_")),
    ("kernel: memory", ("page_fault", "mmap", "munmap", "madvise", "mlock", "munlock")),
]


def without_generics(frame):
    """`frame` without its generic arguments, keeping the qualifiers that open a name."""
    out, stack = [], []
    for i, ch in enumerate(frame):
        if ch == "<":
            opens_name = i == 0 or frame[max(0, i - 2):i] == "::"
            stack.append("qualifier" if opens_name and "generic" not in stack else "generic")
        elif ch == ">" and stack:
            stack.pop()
        elif "generic" not in stack:
            out.append(ch)
    return "".join(out)


def stage_of(frames):
    if frames[-1].endswith("_[k]"):
        kernel = ";".join(f for f in frames if f.endswith("_[k]"))
        return next((name for name, marks in SYSCALLS if any(m in kernel for m in marks)), "kernel: other")
    stack = ";".join(without_generics(f) for f in frames)
    return next((name for name, marks in STAGES if any(m in stack for m in marks)), "other (allocator, std)")


def main(folded):
    shares, total, unread = collections.Counter(), 0, 0
    for line in folded:
        stack, _, weight = line.rstrip("\n").rpartition(" ")
        try:
            weight = int(weight)
        except ValueError:
            weight = None
        if not stack or weight is None:
            unread += 1
            continue
        shares[stage_of(stack.split(";"))] += weight
        total += weight
    print("| where | share of the CPU time sampled |\n|---|---:|")
    for name, n in shares.most_common():
        print(f"| {name} | {100 * n / max(total, 1):.0f}% |")
    if unread:
        print(f"summarise.py: {unread} lines were not `stack weight` and were left out", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
            main(f)
    else:
        main(sys.stdin)
