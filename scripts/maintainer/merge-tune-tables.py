#!/usr/bin/env python3
"""merge-tune-tables.py — merge tilekit tune caches into one shipped table.

    scripts/maintainer/merge-tune-tables.py OUT.json IN.json [IN.json ...]
    scripts/maintainer/merge-tune-tables.py --anchored OUT.json TABLE.json FRESH.json
    scripts/maintainer/merge-tune-tables.py --winners TABLE.json TYPES
    scripts/maintainer/merge-tune-tables.py --drop-refused TABLE.json

Reads tune cache files (schema "tilekit-tune-cache", version 2) of one device and writes their
entries into OUT.json, which may be one of the inputs (the write is atomic). An entry is keyed
as TuneCache::put keys it: its class (types, layout, ops, alignment, log2 buckets) and its
measured m, n, k; a later file's entry replaces an earlier one's. The header (build, device) is
the first file's. Times are kept to 4 significant digits (the tuner's medians are not more
precise than that), and each entry is written on one line, so a retrained shape is a one-line
diff.

--anchored adds kernels to a table without retraining it: FRESH is a cache from
`tilekit tune --kernels` over the new kernels and the anchors (`--winners` lists them) at the
table's shapes, made in another run, whose clocks may differ by a few per cent. For each
FRESH entry whose shape TABLE has, the candidates fully measured in both (same kernel and split)
are its anchors; where there are none, those fully measured in TABLE and only screened in FRESH
(a new kernel more than the screen's margin faster). FRESH's times are scaled by the median of
TABLE's time over FRESH's for the anchors, so they join the entry in its own run's units.
They replace the candidates measured again (a screened time never replaces a fully measured
one), the others stay, and the fastest fully measured candidate becomes the choice, as
TuneCache::add_candidates does. A FRESH entry without an anchor leaves its TABLE entry as it
was and is reported; one whose shape TABLE lacks is added as it is.

--winners prints the kernels that TABLE's entries of TYPES (a, or a:compute: f32, f32:tf32,
bf16) choose, comma-separated: the anchors for a `tilekit tune --kernels` run.

--drop-refused rewrites TABLE without the candidates whose kernels now refuse the entry's shape:
Hopper's split-tiles kernels (gemm.cuda.sm90.*.split_tiles.*) where their tiles would get
fewer than 2 k-pieces each on the table's SMs (registry.hpp's split_tile_pieces; the kernel's can_implement). Where such a
candidate was the choice, the fastest fully measured one left becomes it.

Used for src/core/tune_tables/nvidia-h200.json (docs/tuning.md, "Making the shipped table").
"""
import json
import os
import re
import sys
import tempfile

NOT_KEY = {"candidates", "kernel", "split_k", "time_s"}


def entry_key(e):
    return json.dumps({k: v for k, v in e.items() if k not in NOT_KEY}, sort_keys=True)


def rounded(e):
    e = dict(e)
    e["time_s"] = float(f"{e['time_s']:.4g}")
    if "candidates" in e:
        e["candidates"] = [dict(c, time_s=float(f"{c['time_s']:.4g}")) for c in e["candidates"]]
    return e


def load_tables(inputs):
    tables = [json.load(open(p)) for p in inputs]
    head = tables[0]
    for path, t in zip(inputs, tables):
        if t.get("schema") != "tilekit-tune-cache" or t.get("version") != head.get("version"):
            sys.exit(f"{path}: not a tilekit tune cache of version {head.get('version')}")
        if t["device"]["name"] != head["device"]["name"] or \
                t["device"]["sm_count"] != head["device"]["sm_count"]:
            sys.exit(f"{path}: another device ({t['device']['name']}) than {inputs[0]}")
    return tables


def choice(c):
    return c["kernel"], c.get("split_k", 0)


def measured(e):
    return {choice(c): c["time_s"] for c in e.get("candidates", []) if not c.get("screened")}


def add_anchored(old, fresh):
    """old with fresh's candidates scaled into its units; None when no anchor joins them."""
    table_times, fresh_times = measured(old), measured(fresh)
    if not table_times.keys() & fresh_times.keys():
        # A new kernel more than the screen's margin faster leaves the old choices screened
        # only in the fresh run: their one cold sample is anchor enough for a choice that clear.
        fresh_times = {choice(c): c["time_s"] for c in fresh.get("candidates", [])}
    ratios = sorted(table_times[c] / fresh_times[c] for c in table_times.keys() & fresh_times.keys())
    if not ratios:
        return None, 0.0
    mid = len(ratios) // 2
    scale = ratios[mid] if len(ratios) % 2 else (ratios[mid - 1] + ratios[mid]) / 2
    # A screened time (one cold sample) does not replace a fully measured one.
    added = [dict(c, time_s=c["time_s"] * scale) for c in fresh.get("candidates", [])
             if not (c.get("screened") and choice(c) in table_times)]
    again = {choice(c) for c in added}
    kept = [c for c in old.get("candidates", []) if choice(c) not in again]
    candidates = sorted(added + kept, key=lambda c: (bool(c.get("screened")), c["time_s"]))
    out = dict(old, candidates=candidates)
    if candidates and not candidates[0].get("screened"):
        best = candidates[0]
        out.update(kernel=best["kernel"], split_k=best.get("split_k", 0), time_s=best["time_s"])
    return out, scale


def split_tile_pieces(slots, tiles, k_tiles):
    """registry.hpp's split_tile_pieces."""
    pieces = min(slots // tiles, k_tiles // 4) if tiles > 0 else 1
    return pieces if pieces >= 2 else 1


def refused(kernel, e, sms):
    """Whether `kernel` refuses e's shape now: split tiles where a tile would get one k-piece."""
    if ".split_tiles." not in kernel and ".sm90_10_split_tiles." not in kernel:
        return False
    bm, bn, bk = (int(x) for x in re.search(r"\.(\d+)x(\d+)x(\d+)_s", kernel).groups())
    tiles = -(-e["m"] // bm) * -(-e["n"] // bn)
    return split_tile_pieces(sms, tiles, -(-e["k"] // bk)) < 2


def drop_refused(e, sms):
    """e without the candidates refused at its shape (re-chosen if the choice was one)."""
    kept = [c for c in e.get("candidates", []) if not refused(c["kernel"], e, sms)]
    if len(kept) == len(e.get("candidates", [])):
        return e
    out = dict(e, candidates=kept)
    if refused(e["kernel"], e, sms):
        best = min((c for c in kept if not c.get("screened")), key=lambda c: c["time_s"])
        out.update(kernel=best["kernel"], split_k=best.get("split_k", 0), time_s=best["time_s"])
    return out


def types_match(e, spec):
    a, _, compute = spec.partition(":")
    return e["types"]["a"] == a and e["types"]["compute"] == (compute or a)


def main(argv):
    if len(argv) == 4 and argv[1] == "--winners":
        [table] = load_tables([argv[2]])
        winners = dict.fromkeys(e["kernel"] for e in table["entries"] if types_match(e, argv[3]))
        if not winners:
            sys.exit(f"{argv[2]}: no entry of types {argv[3]}")
        print(",".join(winners))
        return
    if len(argv) == 3 and argv[1] == "--drop-refused":
        [table] = load_tables([argv[2]])
        sms = table["device"]["sm_count"]
        entries = [drop_refused(e, sms) for e in table["entries"]]
        changed = sum(a is not b for a, b in zip(entries, table["entries"]))
        rechosen = sum(a["kernel"] != b["kernel"] for a, b in zip(entries, table["entries"]))
        write_table(argv[2], table, {entry_key(e): e for e in entries})
        print(f"{changed} entries lost a refused candidate; {rechosen} chose anew")
        return
    anchored = len(argv) == 5 and argv[1] == "--anchored"
    if len(argv) < 3 or (argv[1].startswith("--") and not anchored):
        sys.exit("usage:\n" + "\n".join(__doc__.strip().splitlines()[2:6]))
    out_path, inputs = (argv[2], argv[3:]) if anchored else (argv[1], argv[2:])
    tables = load_tables(inputs)
    head = tables[0]
    merged = {}
    for e in tables[0]["entries"]:
        merged[entry_key(e)] = rounded(e)
    if anchored:
        scales, unanchored = [], []
        for e in tables[1]["entries"]:
            key = entry_key(e)
            if key not in merged:
                merged[key] = rounded(e)
                continue
            joined, scale = add_anchored(merged[key], e)
            if joined is None:
                unanchored.append(f"{e['op_a']}{e['op_b']} {e['m']}x{e['n']}x{e['k']}")
                continue
            merged[key] = rounded(joined)
            scales.append(scale)
        if scales:
            print(f"{len(scales)} entries joined; scale (table / fresh) {min(scales):.3f} to {max(scales):.3f}")
        if unanchored:
            print(f"{len(unanchored)} entries without an anchor, left as they were: " + ", ".join(unanchored))
    else:
        for t in tables[1:]:
            for e in t["entries"]:
                merged[entry_key(e)] = rounded(e)
    write_table(out_path, head, merged)
    print(f"{out_path}: {len(merged)} entries from {len(inputs)} files")


def write_table(out_path, head, merged):
    """Writes head's fields and merged's entries, one line each, atomically."""
    lines = ["{"]
    for field in ("build", "device", "schema", "version"):
        lines.append(f' "{field}": {json.dumps(head[field], sort_keys=True)},')
    lines.append(' "entries": [')
    body = [json.dumps(e, sort_keys=True, separators=(",", ":")) for e in merged.values()]
    lines.append(",\n".join(body))
    lines += [" ]", "}"]
    folder = os.path.dirname(os.path.abspath(out_path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".merge-")
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, out_path)


if __name__ == "__main__":
    main(sys.argv)
