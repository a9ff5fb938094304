"""Numbered UDP datagrams, for the emulator's tests: `send HOST PORT N SIZE
RATE` sends N datagrams of SIZE bytes whose first 4 bytes number them, RATE
a second; `receive PORT N OUT IDLE` writes the numbers it received, in the
order they came, one a line, to OUT when it has N or nothing came for IDLE
seconds."""

import socket
import struct
import sys
import time


def send(host, port, n, size, rate):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    start = time.monotonic()
    for k in range(n):
        time.sleep(max(0.0, start + k / rate - time.monotonic()))
        s.sendto(struct.pack("!I", k) + bytes(size - 4), (host, port))


def receive(port, n, out, idle):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    s.settimeout(idle)
    got = []
    try:
        while len(got) < n:
            data, _ = s.recvfrom(65536)
            got.append(struct.unpack("!I", data[:4])[0])
    except socket.timeout:
        pass
    with open(out, "w") as f:
        f.write("".join(f"{k}\n" for k in got))


if __name__ == "__main__":
    what, *args = sys.argv[1:]
    if what == "send":
        send(args[0], int(args[1]), int(args[2]), int(args[3]), float(args[4]))
    else:
        receive(int(args[0]), int(args[1]), args[2], float(args[3]))
