#!/usr/bin/env python3
"""Sums a folded perf profile of `fabcheck audit` by stage: where the client's CPU goes.

Input: the folded stacks `inferno-collapse-perf --all` writes (one `frame;frame;... count` per
line, kernel frames ending in `_[k]`). Output: a Markdown table, largest share first.

A sample counts for the first stage whose mark appears in its stack, in the order of STAGES, so
a key exchange's hashing counts as the key exchange, not as SSH; kernel samples are sorted by
the system call they serve instead. Generic parameters are dropped from frame names first:
they name types (`DeviceRecord`), not the code that ran.

Usage: perf script -i perf.data | inferno-collapse-perf --all > folded.txt
       python3 docs/perf/summarise.py folded.txt
"""

import collections
import sys

KEX = "key exchange (ML-KEM, X25519, Ed25519)"
SSH = "SSH channels and ciphers"
STAGES = [
    (KEX, ("ml_kem", "curve25519", "ed25519", "russh::client::kex", "russh::negotiation")),
    ("reading outputs into facts", ("fabcheck::facts",)),
    ("reports", ("fabcheck_report", "fabcheck::report")),
    ("evidence files", ("fabcheck::evidence",)),
    ("checks", ("fabcheck::check", "fabcheck::audit::assemble")),
    (SSH, ("russh", "ring_core", "fabcheck::transport")),
    ("collection (commands, bundles, discovery)", ("fabcheck::collect", "fabcheck::platform")),
    ("async runtime, and code inlined into its tasks", ("tokio",)),
]
SYSCALLS = [
    ("kernel: network (send, receive, epoll)", ("sendto", "recvfrom", "epoll", "connect", "shutdown", "sock_")),
    ("kernel: files", ("openat", "ksys_write", "close", "mkdir", "rename", "statx", "unlink", "rmdir", "vfs_")),
    ("kernel: thread wake-ups", ("futex",)),
    ("kernel: memory", ("page_fault", "mmap", "munmap", "madvise", "mlock", "munlock")),
]


def without_generics(frame):
    out, depth = [], 0
    for ch in frame:
        if ch == "<":
            depth += 1
        elif ch == ">" and depth > 0:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def stage_of(frames):
    if frames[-1].endswith("_[k]"):
        kernel = ";".join(f for f in frames if f.endswith("_[k]"))
        return next((name for name, marks in SYSCALLS if any(m in kernel for m in marks)), "kernel: other")
    stack = ";".join(without_generics(f) for f in frames)
    return next((name for name, marks in STAGES if any(m in stack for m in marks)), "other (allocator, std)")


def main(path):
    shares, total = collections.Counter(), 0
    with open(path) as folded:
        for line in folded:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack or not count.isdigit():
                continue
            shares[stage_of(stack.split(";"))] += int(count)
            total += int(count)
    print("| where | share of samples |\n|---|---:|")
    for name, n in shares.most_common():
        print(f"| {name} | {100 * n / max(total, 1):.1f}% |")


if __name__ == "__main__":
    main(sys.argv[1])
