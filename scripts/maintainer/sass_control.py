#!/usr/bin/env python3
"""sass_control.py — what the SASS of a kernel tells its scheduler, from `cuobjdump -sass`.

Every Volta-and-later instruction is 128 bits; its top 23 bits are the control bits that the
compiler (ptxas) sets and the warp scheduler obeys: the stall count (cycles before the warp may
issue its next instruction), the yield hint, the scoreboards it sets and waits on, and the
operand-reuse flags (a source kept in the operand cache for the next instruction, so that it is
not read from the register file again). An FFMA-bound kernel (SGEMM) issues at most one FFMA per
cycle per scheduler: every FFMA with a stall count above 1, and every register read that the reuse
cache does not serve, is issue time the kernel cannot get back at the C++ level.

Usage:
  cuobjdump -sass -fun KERNEL BINARY > k.sass
      (or scripts/maintainer/sass-loop.sh FILE.cu: no GPU needed)
  scripts/maintainer/sass_control.py k.sass [more.sass ...]   (plain or .gz)

Prints, per function and for its main loop (the backward branch's range that holds its FFMAs):
instruction mix, FFMA stall-count histogram, the share of FFMAs with at least one `.reuse`
operand, register-file reads per FFMA (sources not served by reuse), the cycles the stall
counts alone impose (a lower bound on the loop's issue time, before any dynamic stall), and the
same for the FFMA block (first FFMA to last) with the stall counts of the LDS inside it.
"""
import collections
import gzip
import re
import sys

INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* (0x[0-9a-f]{16}) \*/")
HIGH_WORD = re.compile(r"^\s*/\* (0x[0-9a-f]{16}) \*/\s*$")
FUNCTION = re.compile(r"Function : (\S+)")
REGISTER = re.compile(r"\bR(\d+)(\.reuse)?\b")


def control_bits(high_word):
    """The scheduler's fields from the instruction's upper 64 bits (bits 105-127 of 128)."""
    c = high_word >> 41
    return {
        "stall": c & 0xF,
        "yield": (c >> 4) & 1,
        "write_barrier": (c >> 5) & 7,
        "read_barrier": (c >> 8) & 7,
        "wait_mask": (c >> 11) & 0x3F,
        "reuse": (c >> 17) & 0xF,
    }


def parse(lines):
    """Yields (function, [(address, text, control bits)]) for each function of the listing."""
    function, body, pending = None, [], None
    for line in lines:
        m = FUNCTION.search(line)
        if m:
            if function is not None:
                yield function, body
            function, body, pending = m.group(1), [], None
            continue
        m = INSTRUCTION.search(line)
        if m:
            pending = (int(m.group(1), 16), m.group(2))
            continue
        m = HIGH_WORD.match(line)
        if m and pending is not None:
            body.append((*pending, control_bits(int(m.group(1), 16))))
            pending = None
    if function is not None:
        yield function, body


def opcode(text):
    """The mnemonic without predicate and modifiers: '@!P0 FFMA.FTZ R1, ...' -> 'FFMA'."""
    words = text.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else ""


BRANCH_TARGET = re.compile(r"\bBRA\b.*?(0x[0-9a-f]+)\s*$")


def main_loop(body):
    """The instructions of the loop that holds the kernel's FFMAs: among the ranges closed by a
    backward branch, the shortest with at least 90% of the FFMAs the fullest one has."""
    loops = []
    for address, text, _ in body:
        m = BRANCH_TARGET.search(text)
        if m and int(m.group(1), 16) <= address:
            start = int(m.group(1), 16)
            inside = [i for i in body if start <= i[0] <= address]
            loops.append((sum(1 for i in inside if opcode(i[1]) == "FFMA"), address - start, inside))
    if not loops:
        return body
    most = max(n for n, _, _ in loops)
    return min((l for l in loops if l[0] >= 0.9 * most), key=lambda l: l[1])[2]


def summarize(label, body):
    mix = collections.Counter(opcode(t) for _, t, _ in body)
    ffma = [(t, c) for _, t, c in body if opcode(t) == "FFMA"]
    print(f"  {label}: {len(body)} instructions; " + ", ".join(f"{k} {v}" for k, v in mix.most_common(8)))
    if not ffma:
        return
    stalls = collections.Counter(c["stall"] for _, c in ffma)
    with_reuse = sum(1 for t, _ in ffma if ".reuse" in t)
    # Register-file reads: register sources (after the destination) that the operand cache does
    # not serve. The cache is per operand slot: it holds what the instruction before flagged
    # `.reuse` in the same slot (counted over consecutive FFMAs only).
    reads, previous_reused = 0, set()
    for t, _ in ffma:
        operands = [(int(n), bool(r)) for n, r in REGISTER.findall(t.split(" ", 1)[-1])]
        sources = list(enumerate(operands[1:]))
        reads += sum(1 for slot, (n, _) in sources if (slot, n) not in previous_reused)
        previous_reused = {(slot, n) for slot, (n, r) in sources if r}
    n = len(ffma)
    hist = ", ".join(f"{s}: {stalls[s]} ({100 * stalls[s] / n:.1f}%)" for s in sorted(stalls))
    cycles = sum(c["stall"] for _, _, c in body)
    # The FFMA block: first FFMA to last, the k-tile's math with its fragment loads. Its
    # instructions are fixed by the tile; how ptxas spaces the LDS among the FFMAs is not.
    first = next(i for i, (_, t, _) in enumerate(body) if opcode(t) == "FFMA")
    last = max(i for i, (_, t, _) in enumerate(body) if opcode(t) == "FFMA")
    block = body[first:last + 1]
    block_lds = [c["stall"] for _, t, c in block if opcode(t) == "LDS" and not t.startswith("@!PT")]
    print(f"    FFMA {n} ({100 * n / len(body):.1f}% of instructions); stall counts {hist}")
    print(f"    FFMA with a .reuse operand {with_reuse} ({100 * with_reuse / n:.1f}%); "
          f"register-file reads per FFMA {reads / n:.2f} of 3")
    print(f"    issue cycles by stall counts {cycles}: {n / cycles:.3f} FFMA per cycle at best")
    print(f"    FFMA block (first FFMA to last): {len(block)} instructions, "
          f"{sum(c['stall'] for _, _, c in block)} stall cycles; {len(block_lds)} LDS in it, "
          f"their stall counts {sum(block_lds)}")


def main(paths):
    if not paths:
        sys.exit(__doc__)
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", errors="replace") as f:
            for function, body in parse(f):
                print(function)
                summarize("whole function", body)
                summarize("main loop", main_loop(body))


if __name__ == "__main__":
    main(sys.argv[1:])
