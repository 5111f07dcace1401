#!/usr/bin/env python3
"""tests/e2e/free_ports.py: distinct ports below the ephemeral range, never one that is held."""
import pathlib
import random
import socket
import subprocess
import sys
import unittest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import free_ports  # noqa: E402


class FreePortsTest(unittest.TestCase):
    def test_never_picks_a_held_port(self):
        with socket.socket() as held:
            held.bind(("127.0.0.1", 0))  # a port the kernel says is free, now held
            port = held.getsockname()[1]
            low = port - 1 if port > 1024 else port
            # Only three ports to draw from, one of them held: the other two come back.
            got = free_ports.pick(3, low, low + 3, random.Random(1))
            self.assertNotIn(port, got)
            self.assertEqual(len(got), len(set(got)))
            self.assertLessEqual(len(got), 2)

    def test_prints_distinct_free_ports_below_the_ephemeral_range(self):
        out = subprocess.run([sys.executable, str(HERE / "free_ports.py"), "5"],
                             capture_output=True, text=True, check=True).stdout.split()
        ports = [int(p) for p in out]
        self.assertEqual(len(ports), 5)
        self.assertEqual(len(set(ports)), 5)
        for p in ports:
            self.assertGreaterEqual(p, free_ports.LOW)
            self.assertLess(p, free_ports.ephemeral_start())
            self.assertTrue(free_ports.bindable(p))

    def test_block_is_free_and_below_the_ephemeral_range(self):
        base = free_ports.block(12, random.Random(2))
        self.assertGreaterEqual(base, free_ports.LOW)
        self.assertLess(base + 12, free_ports.ephemeral_start())
        for p in range(base, base + 12):
            self.assertTrue(free_ports.bindable(p))

    def test_usage(self):
        r = subprocess.run([sys.executable, str(HERE / "free_ports.py"), "x"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("usage", r.stderr)


if __name__ == "__main__":
    unittest.main()
