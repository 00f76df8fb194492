#!/usr/bin/env python3
"""merge-tune-tables.py — merge tilekit tune caches into one shipped table.

    scripts/merge-tune-tables.py OUT.json IN.json [IN.json ...]

Reads tune cache files (schema "tilekit-tune-cache", version 2) of one device and writes their
entries into OUT.json, which may be one of the inputs (the write is atomic). An entry is keyed
as TuneCache::put keys it: its class (types, layout, ops, alignment, log2 buckets) and its
measured m, n, k; a later file's entry replaces an earlier one's. The header (build, device) is
the first file's. Times are kept to 4 significant digits (the tuner's medians are not more
precise than that), and each entry is written on one line, so a retrained shape is a one-line
diff.

Used for src/core/tune_tables/nvidia-h200.json (docs/tuning.md, "Making the shipped table").
"""
import json
import os
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


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    out_path, inputs = argv[1], argv[2:]
    tables = [json.load(open(p)) for p in inputs]
    head = tables[0]
    for path, t in zip(inputs, tables):
        if t.get("schema") != "tilekit-tune-cache" or t.get("version") != head.get("version"):
            sys.exit(f"{path}: not a tilekit tune cache of version {head.get('version')}")
        if t["device"]["name"] != head["device"]["name"] or \
                t["device"]["sm_count"] != head["device"]["sm_count"]:
            sys.exit(f"{path}: another device ({t['device']['name']}) than {inputs[0]}")
    merged = {}
    for t in tables:
        for e in t["entries"]:
            merged[entry_key(e)] = rounded(e)
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
    print(f"{out_path}: {len(merged)} entries from {len(inputs)} files")


if __name__ == "__main__":
    main(sys.argv)
