#!/usr/bin/env bash
# The same iperf3 download (-R, 5 s) through a 5 Gb/s link with 1 ms each
# way, relayed by `cdmasim emulate` and by Rattan (cargo install rattan), in
# the same run; prints both rates and their ratio. Needs root and iperf3.
# Rattan's far end is the namespace it is started in: it runs inside a
# network namespace made here (unshare), so no traffic reaches the host's.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v rattan >/dev/null || { echo "rattan not installed (cargo install rattan)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/link.toml" <<'TOML'
[simulation]
duration = "600s"
[[node]]
name = "server"
[[node]]
name = "ue"
[[link]]
name = "pipe"
from = "server"
to = "ue"
rate = "5Gbps"
delay = "1ms"
queue = { kind = "droptail", limit = "2000pkt" }
TOML
rate() { grep -E "receiver" | tail -1 | awk '{for (i = 1; i <= NF; i++) if ($i ~ /bits\/sec/) print $(i-1), $i}'; }
ours=$(.venv/bin/cdmasim emulate "$dir/link.toml" --server 'iperf3 -s -1' \
       --user 'ue=sleep 0.2; iperf3 -c $CDMASIM_SERVER -t 5 -R' 2>/dev/null | rate)
# In a PID namespace of its own too (--kill-child, with its own /proc, which
# rattan reads): when the shell ends, the kernel ends every process in it,
# the daemonized iperf3 server included.
theirs=$(unshare --net --pid --fork --kill-child --mount-proc sh -c 'ip link set lo up; iperf3 -s -1 -D; sleep 0.3; rattan link --downlink-bandwidth 5Gbps \
         --uplink-bandwidth 5Gbps --uplink-delay 1ms --downlink-delay 1ms -- sh -c "iperf3 -c \$RATTAN_BASE -t 5 -R" \
         2>/dev/null' | rate)
echo "cdmasim emulate: $ours"
echo "rattan link:     $theirs"
python3 -c "
import sys
def bps(s):
    v, u = s.split(); return float(v) * {'Kbits/sec': 1e3, 'Mbits/sec': 1e6, 'Gbits/sec': 1e9}[u]
print(f'ratio cdmasim / rattan: {bps(sys.argv[1]) / bps(sys.argv[2]):.2f}')" "$ours" "$theirs"
