# tune-shapes.sh — the autotuner's shape sets, sourced (not run) by tune-h200.sh (the
# evaluation sets are also bench/suites/auto-vs-cublas.json's shapes). Training sets feed the shipped table; the evaluation sets are
# shapes none of the training sets holds, so a measurement there tests what the table carries.
# shellcheck disable=SC2034  # the sourcing scripts read these
# Training: squares at every half power of two from 256 to 8192 (the selector scales the
# candidates' times of the nearest shapes, so it needs them between the powers of two too), odd
# squares and odd shapes (another class: ld not in 16-byte units), skinny, wide, k-heavy and
# k-light shapes. None is an evaluation shape.
TRAIN="256,384,512,768,1024,1408,2048,2816,4096,8192,255,513,769,1025,2049,3073,4097,\
64x4096x4096,4096x64x4096,8x8192x2048,1x4096x4096,256x8192x8192,8192x8192x256,4096x4096x64,\
2048x2048x256,128x128x16384,512x512x8192,1024x1024x4096,1024x4096x1024,4096x1024x2048,\
63x4097x4097,4097x4097x63,257x257x8193,4097x1025x2049"
# Training, added after the first evaluation (see docs/results.md): sizes that are multiples of
# 8 but not of 16, where the cp.async steps leave their fast path; their own training call.
TRAIN_NOT16="600,1000,1720,2360,3400,5000,200x3000x3000,3000x3000x200,1000x1000x7000"
# Training, added after the ensemble's evaluation (docs/results.md): a coarse grid between the
# others, since auto's accuracy grew with the table's density in the offline replay (now
# `tilekit tune --replay`; on half the table: bf16 38 -> 33 of 48). Squares at the half powers
# past 4096; sizes that are multiples of 4 but not of 8 (rows not in 16-byte units for bf16:
# that class had 11 or 12 shapes an op, and 4 of bf16's 5 misses fell in it), squares and
# rectangles of them; wide, skinny, k-heavy and k-light aligned rectangles. None is an
# evaluation shape.
TRAIN_GRID="5792,11584,452,1156,2892,5788,6145,452x2892x1156,2892x452x8188,1156x8188x452,\
8188x1156x2892,116x8188x2892,8188x116x2892,2892x2892x116,116x116x16388,1024x8192x2048,\
8192x1024x1024,2048x2048x8192,32x8192x4096,8192x32x4096,6144x6144x128"
# Evaluation, per ops (48 shapes a type): squares from 200 to 12000 with primes, skinny, k-heavy,
# wide and odd shapes; none is a training shape, and none was in the first evaluation set
# (the set of commit 1d08643's script), whose every kernel time the tile model's design saw.
EVAL_NN="216,700,1009,1800,2500,3300,4800,6500,9500,80x5000x5000,5000x5000x80,2000x6000x1500"
EVAL_NT="320,888,1300,2200,3700,5200,7100,10500,3x9000x3000,400x400x16000,7000x200x3000,\
1500x1500x500"
EVAL_TN="500,1100,1601,2700,4400,6007,8500,11500,48x8000x8000,8000x8000x48,900x3000x9000,\
2048x512x512"
EVAL_TT="650,1250,2100,3301,3900,6200,9100,100x100x30000,6x10000x4000,6000x1000x1000,\
1300x2600x700,2400x2400x64"
# Training, added with the narrow tiles: short sides against wide operands (decode rows and
# LLM-like projections, m = 1-96 or n = 8-16 against 2048-32768), where the nearest shapes of the
# other sets lay too far for the tile model to carry a narrow tile's time. None is an evaluation
# shape.
TRAIN_SHORT="2x16384x8192,4x24576x4096,8x12288x12288,16x20480x6144,48x24576x8192,1x32768x4096,\
3x8192x24576,12x6144x16384,32x32768x2048,96x12288x4096,16384x16x4096,24576x8x6144"
