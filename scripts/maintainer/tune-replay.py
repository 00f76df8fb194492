#!/usr/bin/env python3
"""tune-replay.py — try kernel "auto"'s selection rules offline, on recorded tune data.

    build/bin/tilekit list --json 'gemm.*' > kernels.json
    scripts/maintainer/tune-replay.py kernels.json src/core/tune_tables/nvidia-h200.json [evaluate-*.json ...]

For each type and mode (f32, bf16, f32_tf32, f32_3xtf32) it scores two rules by leave-one-out over the table's own entries (each
entry chosen from the others of its class, scored against the fastest candidate measured there;
a choice the entry did not keep counts as 3x, the tuner's pruning bound), and, given the JSON of
`tilekit tune --evaluate --json` runs, over their shapes (scored by the sweep's per-kernel
medians, so noisier than the paired ratio the evaluation prints):

  nearest   the nearest entry's fastest candidate once carried by the tile model (before 188a5ab)
  ensemble  the three nearest entries rank the choices together (src/core/tune_select.cpp)

It transcribes src/core/tile_model.hpp and the distance of tune_select.cpp; keep them in step.
The device is the H200's 132 SMs, with each kernel's blocks per SM as `list --json` printed them
on the GPU (the selector's occupancy). A list made without a GPU has none, and every kernel is
then counted at one block per SM: exact for the sm90 kernels, approximate for the SIMT ladder
(which fit several), so f32 figures are then indicative.
The C++ and this transcription chose the same kernel and split at all 48 f32 and all 48 bf16
evaluation shapes (checked at 84fd2bc, with the H200's list). Prints, per rule and data set: shapes, share within 1.05x, count above 1.3x, and
the geometric mean ratio.
"""
import collections
import json
import math
import sys

SMS, FIXED_S, BYTES_PER_S = 132, 3e-6, 0.75 * 4800e9
NEIGHBOURS, MISSING_RATIO = 3, 3.0
STREAM_K_WAIT, STREAM_K_FIX_UP = 0.5, 4.0  # tile_model.hpp's kStreamKWaitPerKTile, ...FixUpPerPiece
SPLIT_TILES_SUM = 2 * STREAM_K_FIX_UP  # tile_model.hpp's kSplitTilesSum


def load_kernels(path):
    """id -> its tiling, with "slots": the blocks resident at once (SMs x blocks per SM)."""
    kernels = {}
    for k in json.load(open(path)):
        kernels[k["id"]] = dict(k["tiling"], slots=SMS * (k.get("blocks_per_sm") or 1))
    return kernels


def co_resident_time(blocks):
    """tile_model.hpp's co_resident_time: x blocks on one SM take x^0.75 times one's time."""
    return blocks ** 0.75


def stream_k_max_pieces(k_tiles):
    """registry.hpp's stream_k_max_pieces: floor(sqrt(k_tiles / 4)), at least 2."""
    p = 2
    while (p + 1) * (p + 1) * 4 <= k_tiles:
        p += 1
    return p


def split_tile_pieces(tiles, k_tiles):
    """registry.hpp's split_tile_pieces: equal k-pieces of at least 4 k-tiles filling the SMs."""
    pieces = min(SMS // tiles, k_tiles // 4) if tiles > 0 else 1
    return pieces if pieces >= 2 else 1


def model_cost(t, split, m, n, k):
    """(busiest SM's work, reduction seconds): tile_model.hpp's tile_model_cost."""
    if not (t["block_m"] and t["block_n"] and t["block_k"]) or t["chosen_at_run_time"] \
            or t["schedule"] == "unmodelled":
        return float(m * k + k * n + m * n), 0.0
    tiles = math.ceil(m / t["block_m"]) * math.ceil(n / t["block_n"])
    k_tiles = math.ceil(k / t["block_k"])
    s = t["schedule"]
    if s == "persistent" or (s == "stream_k_half_tail" and (tiles % SMS == 0 or 2 * (tiles % SMS) > SMS)):
        return math.ceil(tiles / SMS) * k_tiles, 0.0
    if s == "split_tiles":
        pieces = split_tile_pieces(tiles, k_tiles)
        if pieces > 1:
            return math.ceil(k_tiles / pieces) + SPLIT_TILES_SUM, 0.0
        return math.ceil(tiles / SMS) * k_tiles, 0.0
    if s.startswith("stream_k"):
        units = min(max(math.floor(tiles * k_tiles / 4), 1), SMS, tiles * stream_k_max_pieces(k_tiles))
        pieces = math.ceil(units / tiles) if tiles < units else 2
        return tiles * k_tiles / units + STREAM_K_WAIT * k_tiles + STREAM_K_FIX_UP * pieces, 0.0
    slices = 1
    if t["split_k"] < 0:
        wanted = split if split > 0 else min(t["slots"] // max(tiles, 1), k // 64)
        slices = max(1, min(wanted, 64, k_tiles))
    full_rounds, last_round = divmod(math.ceil(tiles * slices / SMS), t["slots"] // SMS)
    rounds = full_rounds * co_resident_time(t["slots"] // SMS) + co_resident_time(last_round)
    work = rounds * ((k_tiles + slices - 1) // slices)
    return work, ((slices + 1) * m * n * 4 / BYTES_PER_S + 2e-6 if slices > 1 else 0.0)


def refuses(t, m, n, k):
    """Whether the kernel's can_implement refuses m x n x k: step 10 where a tile gets one piece."""
    if t["schedule"] != "split_tiles":
        return False
    tiles = math.ceil(m / t["block_m"]) * math.ceil(n / t["block_n"])
    return split_tile_pieces(tiles, math.ceil(k / t["block_k"])) < 2


def carry(t_s, at_s, at_q):
    scaled = max(t_s - FIXED_S - at_s[1], 1e-7)
    return FIXED_S + scaled * at_q[0] / max(at_s[0], 1.0) + at_q[1]


def place(m, n, k):
    return [math.log2(max(x, 1)) for x in (m, n, k)], [x % 16 == 0 for x in (m, n, k)]


def distance(a, b):
    return sum(abs(a[0][i] - b[0][i]) + (0.5 if a[1][i] != b[1][i] else 0) for i in range(3))


class Table:
    def __init__(self, kernels, path):
        self.k = kernels
        self.entries = []
        for e in json.load(open(path))["entries"]:
            choices = {}  # (kernel, split as run) -> least time measured
            for c in e["candidates"]:
                if c["kernel"] in kernels:
                    key = self.choice(c["kernel"], c["split_k"])
                    choices[key] = min(choices.get(key, math.inf), c["time_s"])
            e["choices"], e["place"] = choices, place(e["m"], e["n"], e["k"])
            self.entries.append(e)

    def choice(self, kernel, split):
        return kernel, split if self.k[kernel]["split_k"] < 0 else 0

    def carried(self, e, m, n, k):
        """Entry e's choices' times carried to m x n x k (C's rows and columns as computed)."""
        view = (lambda a, b, c: (a, b, c)) if e["layout"] == "row" else (lambda a, b, c: (b, a, c))
        at, want = view(e["m"], e["n"], e["k"]), view(m, n, k)
        return {c: carry(t, model_cost(self.k[c[0]], c[1], *at), model_cost(self.k[c[0]], c[1], *want))
                for c, t in e["choices"].items()}

    def admissible(self, c, m, n, k):
        return not refuses(self.k[c[0]], m, n, k)

    def nearest(self, pool, m, n, k):
        p = place(m, n, k)
        e = min(pool, key=lambda e: distance(e["place"], p))
        times = self.carried(e, m, n, k)
        return min((c for c in times if self.admissible(c, m, n, k)), key=times.get, default=None)

    def ensemble(self, pool, m, n, k):
        p = place(m, n, k)
        near = sorted(pool, key=lambda e: distance(e["place"], p))[:NEIGHBOURS]
        score = collections.defaultdict(float)
        named = set().union(*(x["choices"] for x in near))
        for e in near:
            w = 1.0 / (distance(e["place"], p) + 0.1) ** 3
            times = self.carried(e, m, n, k)
            least = min(times.values())
            for c in named:
                score[c] += w * math.log(min(times.get(c, math.inf) / least, MISSING_RATIO))
        # As tune_select.cpp: the most credited choice that the kernel does not refuse here.
        # (None when every choice refuses: the C++ then falls back to the shipped table or ranking.)
        return min((c for c in score if self.admissible(c, m, n, k)), key=score.get, default=None)


def cls(ops, layout, aligned, ld16, dtype):
    return ops, layout, aligned, ld16, dtype


def types_tag(t):
    """The entry's types as `tilekit tune --evaluate --json` names them (types_tag in types.cpp):
    f32, bf16, f32_tf32, f32_3xtf32. The selector's classes keep the compute modes apart."""
    tag = t["a"]
    if t["a"] == "f32" and t["compute"] != "f32":
        tag = t["compute"] if t["compute"].startswith("f32_") else tag + "_" + t["compute"]
    return tag + ("" if t.get("c", "f32") == "f32" else "_c" + t["c"])


def entry_class(e):
    return cls(e["op_a"] + e["op_b"], e["layout"], e["aligned16"], e["ld16"], types_tag(e["types"]))


def leave_one_out(table, rule, tag):
    ratios = []
    by_class = collections.defaultdict(list)
    for e in table.entries:
        if types_tag(e["types"]) == tag:
            by_class[entry_class(e)].append(e)
    for group in by_class.values():
        for e in group:
            chosen = rule([x for x in group if x is not e], e["m"], e["n"], e["k"])
            t = e["choices"].get(chosen)
            ratios.append(t / min(e["choices"].values()) if t else MISSING_RATIO)
    return ratios


def evaluation(table, rule, rows):
    ratios = []
    for r in rows:
        ops, m, n, k = r["ops"], r["m"], r["n"], r["k"]
        size = 2 if r["types"] in ("bf16", "f16") else 4
        lds = (k if ops[0] == "N" else m, n if ops[1] == "N" else k, n)
        key = cls(ops, "row", True, all(x * size % 16 == 0 for x in lds), r["types"])
        pool = [e for e in table.entries if entry_class(e) == key]
        chosen = rule(pool, m, n, k)
        kernel = chosen[0] if chosen else None
        times = r["kernel_times_s"]
        ratios.append(times[kernel] / min(times.values()) if kernel in times else MISSING_RATIO)
    return ratios


def summary(label, ratios):
    if not ratios:
        return
    geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
    within = sum(x <= 1.05 for x in ratios)
    print(f"{label:34s} {len(ratios):4d} shapes  within 1.05x {within:4d} ({100 * within / len(ratios):3.0f} %)"
          f"  above 1.3x {sum(x > 1.3 for x in ratios):3d}  geomean {geo:.3f}")


def main(argv):
    if len(argv) < 3:
        sys.exit("usage:\n" + "\n".join(__doc__.strip().splitlines()[2:4]))
    table = Table(load_kernels(argv[1]), argv[2])
    rows = [r for f in argv[3:] for r in json.load(open(f))["rows"]]
    for name in ("nearest", "ensemble"):
        rule = getattr(table, name)
        for tag in ("f32", "bf16", "f32_tf32", "f32_3xtf32"):
            summary(f"{name} {tag} leave-one-out", leave_one_out(table, rule, tag))
            summary(f"{name} {tag} evaluation (sweep)", evaluation(table, rule, [r for r in rows if r["types"] == tag]))


if __name__ == "__main__":
    main(sys.argv)
