#!/usr/bin/env python3
"""scripts/maintainer/sass_control.py on a made-up listing whose control bits are known (CPU
test)."""
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "maintainer"))
import sass_control  # noqa: E402


def high_word(stall, reuse=0, wait_mask=0):
    """The upper 64 bits of an instruction with these control fields (no barriers, yield set)."""
    control = stall | (1 << 4) | (7 << 5) | (7 << 8) | (wait_mask << 11) | (reuse << 17)
    return control << 41


def listing(instructions):
    lines = ["\t\tFunction : kernel_under_test"]
    for address, text, stall, reuse in instructions:
        lines.append(f"        /*{address:04x}*/                   {text} ;   /* 0x{0:016x} */")
        lines.append(f"                                                  /* 0x{high_word(stall, reuse):016x} */")
    return "\n".join(lines) + "\n"


# A prologue, a loop of four FFMAs (two with stall 2) and an LDS, closed by a backward branch.
PROGRAM = [
    (0x00, "MOV R1, c[0x0][0x28]", 1, 0),
    (0x10, "FFMA R9, R9, R9, R9", 6, 0),  # outside the loop
    (0x20, "LDS.128 R4, [R2]", 4, 0),
    (0x30, "FFMA R8, R4.reuse, R5, R8", 1, 1),
    (0x40, "FFMA R9, R4, R6, R9", 2, 0),
    (0x50, "FFMA R10, R4.reuse, R7, R10", 1, 1),
    (0x60, "FFMA R11, R4, R5, R11", 2, 0),
    (0x70, "@P0 BRA 0x20", 5, 0),
    (0x80, "EXIT", 5, 0),
]


class SassControl(unittest.TestCase):
    def parsed(self):
        return list(sass_control.parse(listing(PROGRAM).splitlines()))

    def test_control_bits_round_trip(self):
        bits = sass_control.control_bits(high_word(3, reuse=5, wait_mask=0x21))
        self.assertEqual((bits["stall"], bits["yield"], bits["reuse"], bits["wait_mask"]), (3, 1, 5, 0x21))
        self.assertEqual((bits["write_barrier"], bits["read_barrier"]), (7, 7))

    def test_parse_keeps_address_text_and_stall(self):
        [(function, body)] = self.parsed()
        self.assertEqual(function, "kernel_under_test")
        self.assertEqual(len(body), len(PROGRAM))
        self.assertEqual([(a, c["stall"]) for a, _, c in body], [(a, s) for a, _, s, _ in PROGRAM])

    def test_main_loop_is_the_backward_branch_range(self):
        [(_, body)] = self.parsed()
        loop = sass_control.main_loop(body)
        self.assertEqual([a for a, _, _ in loop], [0x20, 0x30, 0x40, 0x50, 0x60, 0x70])

    def test_report_counts_stalls_reuse_and_cycles(self):
        with tempfile.NamedTemporaryFile("w", suffix=".sass", delete=False) as f:
            f.write(listing(PROGRAM))
        try:
            out = subprocess.run([sys.executable, sass_control.__file__, f.name],
                                 check=True, capture_output=True, text=True).stdout
        finally:
            os.unlink(f.name)
        loop = out.split("main loop:")[1]
        self.assertIn("FFMA 4 (66.7% of instructions); stall counts 1: 2 (50.0%), 2: 2 (50.0%)", loop)
        self.assertIn("FFMA with a .reuse operand 2 (50.0%)", loop)
        # R4 in slot 0 is served by the cache twice (after each .reuse): 12 sources - 2 = 10 reads.
        self.assertIn("register-file reads per FFMA 2.50 of 3", loop)
        self.assertIn("issue cycles by stall counts 15: 0.267 FFMA per cycle at best", loop)
        # First FFMA to last: 0x30-0x60, stalls 1 + 2 + 1 + 2, the LDS before it outside.
        self.assertIn("FFMA block (first FFMA to last): 4 instructions, 6 stall cycles; 0 LDS in it, "
                      "their stall counts 0", loop)


if __name__ == "__main__":
    unittest.main()
