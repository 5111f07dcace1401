#!/usr/bin/env python3
"""Prints N distinct TCP ports that are free on 127.0.0.1, for an end-to-end test's servers.

usage: free_ports.py N

Ports are drawn at random from below the kernel's ephemeral range
(/proc/sys/net/ipv4/ip_local_port_range), so no outgoing connection of a test running beside
this one can be given the same port between this check and the server's bind (a port number
derived from the process id, as the tests used to, landed inside that range and was once taken
that way). Each port is checked by binding it, and the ports of tests running at the same time
are drawn independently, so they rarely meet; a port someone holds is never printed.
"""
import random
import socket
import sys

LOW = 10000  # above the well-known and most registered services' ports


def ephemeral_start() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def pick(n: int, low: int, high: int, rng: random.Random) -> list[int]:
    """Up to n distinct bindable ports from [low, high), drawn at random."""
    ports: list[int] = []
    for _ in range(1000 * n):
        p = rng.randrange(low, high)
        if p not in ports and bindable(p):
            ports.append(p)
            if len(ports) == n:
                break
    return ports


def block(width: int, rng: random.Random) -> int:
    """The first of `width` consecutive ports below the ephemeral range, all bindable now (for
    a test that numbers its servers' ports from one base, as tests/soak does)."""
    high = ephemeral_start()
    for _ in range(1000):
        base = rng.randrange(LOW, high - width)
        if all(bindable(base + i) for i in range(width)):
            return base
    raise RuntimeError(f"free_ports: no {width} consecutive free ports below {high}")


def main() -> int:
    if len(sys.argv) != 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        print("usage: free_ports.py N", file=sys.stderr)
        return 2
    n = int(sys.argv[1])
    high = ephemeral_start()
    if high - LOW < 100 * n:
        print(f"free_ports: the ephemeral range starts at {high}: too few ports below it",
              file=sys.stderr)
        return 1
    ports = pick(n, LOW, high, random.SystemRandom())
    if len(ports) < n:
        print(f"free_ports: found only {len(ports)} of {n} free ports", file=sys.stderr)
        return 1
    print(" ".join(map(str, ports)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
