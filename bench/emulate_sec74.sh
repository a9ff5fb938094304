#!/usr/bin/env bash
# Liu et al. section 7.4 with real programs (needs root and iperf3): in one
# user's queue of a 2-user PF sector (1228.8 and 614.4 kb/s constant
# channels), a bulk download (iperf3 -R) under cubic, then bbr, and a
# 9.6 kb/s UDP stream of 24-byte datagrams (iperf3 -u); the stream's delay
# through the sector, from the emulator's log (its packets are the 52-byte ones).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
sed -n '/^TWO_USERS = """/,/^"""/p' tests/test_emulate.py | sed '1d;$d' > "$dir/two.toml"
for cc in cubic bbr; do
  .venv/bin/cdmasim emulate "$dir/two.toml" --server 'iperf3 -s -p 5201 & iperf3 -s -p 5202' \
    --user "ue1=sleep 0.2; (iperf3 -c \$CDMASIM_SERVER -p 5201 -t 12 -R -C $cc >/dev/null &); sleep 2; iperf3 -c \$CDMASIM_SERVER -p 5202 -u -b 9600 -l 24 -t 8 -R >/dev/null; wait" \
    --log "$dir/$cc" >/dev/null
  python3 - "$dir/$cc/ue1.down.log" "$cc" <<'PY'
import sys
d = sorted(int(l.split()[3]) for l in open(sys.argv[1]) if l.split()[1] == "-" and int(l.split()[2]) <= 60)
print(f"{sys.argv[2]}: {len(d)} stream packets, delay median {d[len(d) // 2]} ms, p90 {d[int(len(d) * 0.9)]} ms")
PY
done
