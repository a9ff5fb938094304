"""Parse `tcptrace -l -r -n` text output and compare it, field by field, with
cdmasim's analysis (the report dict of cdmasim.pcap / the Rust core).

Each tcptrace label maps to a report field and the printf format tcptrace
uses for it; a field agrees when our value, printed with tcptrace's format,
is the same string tcptrace printed.
"""

import ipaddress
import re
import subprocess

# tcptrace label (plus unit, where the label repeats) -> (report field, format).
# tcptrace keeps the SYN, FIN and RST counts of a direction in 8-bit
# counters (tcptrace.h, tcb: u_char syn_count, fin_count, reset_count), so
# it prints them modulo 256 ("u8"); ours counts them all. A Linux receiver
# that closed its socket answers each late segment with a RST, hundreds of
# them at the end of an iperf3 -R run.
FIELDS = {
    "total packets": ("total_packets", "d"),
    "resets sent": ("resets_sent", "u8"),
    "ack pkts sent": ("ack_pkts_sent", "d"),
    "pure acks sent": ("pure_acks_sent", "d"),
    "sack pkts sent": ("sack_pkts_sent", "d"),
    "dsack pkts sent": ("dsack_pkts_sent", "d"),
    "max sack blks/ack": ("max_sack_blks_ack", "d"),
    "unique bytes sent": ("unique_bytes_sent", "d"),
    "actual data pkts": ("actual_data_pkts", "d"),
    "actual data bytes": ("actual_data_bytes", "d"),
    "rexmt data pkts": ("rexmt_data_pkts", "d"),
    "rexmt data bytes": ("rexmt_data_bytes", "d"),
    "zwnd probe pkts": ("zwnd_probe_pkts", "d"),
    "zwnd probe bytes": ("zwnd_probe_bytes", "d"),
    "outoforder pkts": ("outoforder_pkts", "d"),
    "pushed data pkts": ("pushed_data_pkts", "d"),
    "SYN/FIN pkts sent": (("syn_pkts_sent", "fin_pkts_sent"), "slash_u8"),
    "req 1323 ws/ts": (("req_1323_ws", "req_1323_ts"), "yn2"),
    "adv wind scale": ("adv_wind_scale", "d"),
    "req sack": ("req_sack", "yn"),
    "sacks sent": ("sacks_sent", "d"),
    "urgent data pkts": ("urgent_data_pkts", "d"),
    "urgent data bytes": ("urgent_data_bytes", "d"),
    "mss requested": ("mss_requested", "d"),
    "max segm size": ("max_segm_size", "d"),
    "min segm size": ("min_segm_size", "d"),
    "avg segm size": ("avg_segm_size", "d"),
    "max win adv": ("max_win_adv", "d"),
    "min win adv": ("min_win_adv", "d"),
    "zero win adv": ("zero_win_adv", "d"),
    "avg win adv": ("avg_win_adv", "d"),
    "initial window/bytes": ("initial_window_bytes", "d"),
    "initial window/pkts": ("initial_window_pkts", "d"),
    "ttl stream length": ("ttl_stream_length", "d"),
    "missed data": ("missed_data", "d"),
    "truncated data": ("truncated_data", "d"),
    "truncated packets": ("truncated_packets", "d"),
    "hardware dups": ("hardware_dups", "d"),
    "data xmit time": ("data_xmit_time_s", "%.3f"),
    "idletime max": ("idletime_max_ms", "%.1f"),
    "throughput": ("throughput_bps", "%.0f"),
    "RTT samples": ("rtt_samples", "d"),
    "RTT min": ("rtt_min_ms", "%.1f"),
    "RTT max": ("rtt_max_ms", "%.1f"),
    "RTT avg": ("rtt_avg_ms", "%.1f"),
    "RTT stdev": ("rtt_stdev_ms", "%.1f"),
    "RTT from 3WHS": ("rtt_from_3whs_ms", "%.1f"),
    "RTT full_sz smpls": ("rtt_full_sz_smpls", "d"),
    "RTT full_sz min": ("rtt_full_sz_min_ms", "%.1f"),
    "RTT full_sz max": ("rtt_full_sz_max_ms", "%.1f"),
    "RTT full_sz avg": ("rtt_full_sz_avg_ms", "%.1f"),
    "RTT full_sz stdev": ("rtt_full_sz_stdev_ms", "%.1f"),
    "ambiguous acks": ("ambiguous_acks", "d"),
    "RTT min (last)": ("rtt_min_last_ms", "%.1f"),
    "RTT max (last)": ("rtt_max_last_ms", "%.1f"),
    "RTT avg (last)": ("rtt_avg_last_ms", "%.1f"),
    "RTT sdv (last)": ("rtt_sdv_last_ms", "%.1f"),
    "post-loss acks": ("post_loss_acks", "d"),
    "segs cum acked": ("segs_cum_acked", "d"),
    "duplicate acks": ("duplicate_acks", "d"),
    "triple dupacks": ("triple_dupacks", "d"),
    "max # retrans": ("max_retrans", "d"),
    "min retr time": ("min_retr_time_ms", "%.1f"),
    "max retr time": ("max_retr_time_ms", "%.1f"),
    "avg retr time": ("avg_retr_time_ms", "%.1f"),
    "sdv retr time": ("sdv_retr_time_ms", "%.1f"),
}

_UNITS = r"(?:pkts|bytes|times|secs|ms|Bps|segs)"
_LINE = re.compile(
    r"^\s+(?P<l1>[A-Za-z][^:]*?):\s+(?P<v1>\S+)(?: (?P<u1>" + _UNITS + r"))?"
    r"\s+(?P<l2>[A-Za-z][^:]*?):\s+(?P<v2>\S+)(?: (?P<u2>" + _UNITS + r"))?\s*$"
)


def run_tcptrace(path):
    out = subprocess.run(["tcptrace", "-l", "-r", "-n", str(path)], capture_output=True, text=True, check=True)
    return parse(out.stdout)


def parse(text):
    """-> list of connections: {'index', 'host_a', 'port_a', 'host_b', 'port_b',
    'complete', 'a2b': {label: str}, 'b2a': {label: str}}"""
    conns = []
    cur = None
    for line in text.splitlines():
        m = re.match(r"^TCP connection (\d+):", line)
        if m:
            cur = {"index": int(m.group(1)), "a2b": {}, "b2a": {}, "hosts": []}
            conns.append(cur)
            continue
        if cur is None:
            continue
        m = re.match(r"^\thost \w+:\s+(\S+):(\d+)$", line)
        if m:
            cur["hosts"].append((m.group(1), int(m.group(2))))
            continue
        m = re.match(r"^\tcomplete conn: (\w+)", line)
        if m:
            cur["complete"] = m.group(1)
            continue
        m = _LINE.match(line)
        if m:
            for side, l, v, u in (("a2b", "l1", "v1", "u1"), ("b2a", "l2", "v2", "u2")):
                label = m.group(l).strip()
                if label == "initial window":
                    label += "/" + (m.group(u) or "")
                cur[side][label] = m.group(v)
    for c in conns:
        (c["host_a"], c["port_a"]), (c["host_b"], c["port_b"]) = c["hosts"][:2]
        # tcptrace prints IPv6 addresses unabbreviated (fd77:0001::0001)
        for k in ("host_a", "host_b"):
            c[k] = str(ipaddress.ip_address(c[k]))
    return conns


def fmt(value, how):
    if how == "d":
        return "NA" if value is None else str(int(value))
    if how == "u8":
        return "NA" if value is None else str(int(value) % 256)
    if how == "slash_u8":
        return f"{value[0] % 256}/{value[1] % 256}"
    if how == "yn":
        return "Y" if value else "N"
    if how == "yn2":
        return ("Y" if value[0] else "N") + "/" + ("Y" if value[1] else "N")
    return "NA" if value is None else how % value


def compare(ours_conns, theirs_conns):
    """Return a list of (conn index, direction, label, ours, theirs) that differ
    (an empty list means full agreement on every field tcptrace printed)."""
    diffs = []
    if len(ours_conns) != len(theirs_conns):
        diffs.append((0, "-", "connection count", len(ours_conns), len(theirs_conns)))
    for o, t in zip(ours_conns, theirs_conns):
        if (o["host_a"], o["port_a"], o["host_b"], o["port_b"]) != (t["host_a"], t["port_a"], t["host_b"], t["port_b"]):
            diffs.append((o["index"], "-", "endpoints", (o["host_a"], o["port_a"]), (t["host_a"], t["port_a"])))
            continue
        if o["complete"] != t.get("complete"):
            diffs.append((o["index"], "-", "complete conn", o["complete"], t.get("complete")))
        for side in ("a2b", "b2a"):
            for label, text in t[side].items():
                if label not in FIELDS:
                    continue
                field, how = FIELDS[label]
                if isinstance(field, tuple):
                    val = tuple(o[side][f] for f in field)
                else:
                    val = o[side][field]
                mine = fmt(val, how)
                if mine != text:
                    diffs.append((o["index"], side, label, mine, text))
    return diffs
