"""cdmasim.pcap API and the `cdmasim pcap analyze` command on small captures
built here byte by byte (no root needed)."""

import json
import struct

import pytest

import cdmasim.cli as cli


def _csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def _pkt(src, dst, sport, dport, seq, ack, flags, payload=b"", win=65535, ipid=1):
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, win, 0, 0) + payload
    pseudo = bytes(src) + bytes(dst) + struct.pack("!BBH", 0, 6, len(tcp))
    tcp = tcp[:16] + struct.pack("!H", _csum(pseudo + tcp)) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), ipid, 0x4000, 64, 6, 0, bytes(src), bytes(dst))
    ip = ip[:10] + struct.pack("!H", _csum(ip)) + ip[12:]
    return ip + tcp


A, B = (10, 0, 0, 1), (10, 0, 0, 2)


def story():
    """(t seconds, packet): handshake, 3 x 1000 B, the 2nd retransmitted, FINs."""
    d = b"x" * 1000
    p = []
    t = 1.0
    for dt, args in [
        (0, (A, B, 1000, 80, 100, 0, 0x02)),
        (0.010, (B, A, 80, 1000, 900, 101, 0x12)),
        (0.001, (A, B, 1000, 80, 101, 901, 0x10)),
        (0.001, (A, B, 1000, 80, 101, 901, 0x18, d)),
        (0.001, (A, B, 1000, 80, 1101, 901, 0x18, d)),
        (0.001, (A, B, 1000, 80, 2101, 901, 0x18, d)),
        (0.010, (B, A, 80, 1000, 901, 1101, 0x10)),
        (0.001, (B, A, 80, 1000, 901, 1101, 0x10)),
        (0.200, (A, B, 1000, 80, 1101, 901, 0x18, d)),
        (0.010, (B, A, 80, 1000, 901, 3101, 0x10)),
        (0.001, (A, B, 1000, 80, 3101, 901, 0x11)),
        (0.001, (B, A, 80, 1000, 901, 3102, 0x11)),
        (0.001, (A, B, 1000, 80, 3102, 902, 0x10)),
    ]:
        t += dt
        p.append((t, _pkt(*args, ipid=len(p) + 1)))
    return p


def write_pcap(path, pkts, linktype=101, nanos=False):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D if nanos else 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))
        for t, data in pkts:
            sec = int(t)
            frac = round((t - sec) * (1e9 if nanos else 1e6))
            f.write(struct.pack("<IIII", sec, frac, len(data), len(data)) + data)


@pytest.fixture
def run_cli():
    return cli.main


def test_api_dataframes(tmp_path):
    import cdmasim.pcap as cp

    f = tmp_path / "s.pcap"
    write_pcap(f, story())
    r = cp.analyze(f)
    c = r.connections.set_index("dir")
    assert list(r.connections["conn"]) == [1, 1]
    a = c.loc["a2b"]
    assert (a["actual_data_pkts"], a["actual_data_bytes"], a["unique_bytes_sent"]) == (4, 4000, 3000)
    assert (a["rexmt_data_pkts"], a["rexmt_data_bytes"]) == (1, 1000)
    assert a["retrans_rate"] == pytest.approx(0.25)
    assert a["complete"] == "yes"
    assert a["cksum_bad"] == 0 and a["cksum_checked"] == 8
    # one loss period of one retransmission; CCDF P[X>=1] = 1
    assert len(r.loss_periods) == 1 and r.loss_periods["rexmits"].iloc[0] == 1
    assert r.loss_ccdf.values.tolist() == [[1, 1.0]]
    # the model: a 4-packet connection is left out by default (under 100
    # data packets); fitted on request, one point, so the fit is exact
    assert r.model is None
    r = cp.analyze(f, fit_min_packets=0)
    assert r.model is not None and r.model["rms_rel_error"] < 1e-9
    pt = r.model_points.iloc[0]
    assert pt["predicted_bps"] == pytest.approx(pt["throughput_bps"])
    # throughput = unique bytes / elapsed (tcptrace's definition)
    assert a["throughput_bps"] == pytest.approx(3000 / a["elapsed_s"])


def test_corrupted_checksum_is_counted(tmp_path):
    import cdmasim.pcap as cp

    pk = story()
    t, data = pk[4]
    data = bytearray(data)
    data[-1] ^= 0xFF
    pk[4] = (t, bytes(data))
    f = tmp_path / "c.pcap"
    write_pcap(f, pk, nanos=True)
    a = cp.analyze(f).connections.set_index("dir").loc["a2b"]
    assert a["cksum_bad"] == 1


def test_cli_text_json_csv_plot(tmp_path, run_cli, capsys):
    f = tmp_path / "s.pcap"
    write_pcap(f, story())
    assert run_cli(["pcap", "analyze", str(f), "--fit-min-packets", "0"]) == 0
    out = capsys.readouterr().out
    assert "TCP connection 1: 10.0.0.1:1000 <-> 10.0.0.2:80" in out
    assert "C = " in out
    assert run_cli(["pcap", "analyze", str(f), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["connections"][0]["a2b"]["rexmt_data_pkts"] == 1
    assert run_cli(["pcap", "analyze", str(f), "--csv"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3 and lines[0].startswith("conn,dir,")
    d = tmp_path / "plots"
    assert run_cli(["pcap", "analyze", str(f), "--plot", str(d)]) == 0
    names = sorted(p.name for p in d.iterdir())
    assert "conn1_a2b_tsg.png" in names and "conn1_a2b_tput.png" in names and "conn1_a2b_rtt.png" in names


def test_peer_one_way_delay(tmp_path, run_cli, capsys):
    import cdmasim.pcap as cp

    pk = story()
    # the receiver side sees A's packets 5 ms later (+ clock offset 100 s),
    # B's packets 5 ms earlier; it never sees A's 3rd data segment
    rcv = []
    for i, (t, data) in enumerate(pk):
        from_a = data[12:16] == bytes(A)
        if i == 5:
            continue
        rcv.append((t + 100 + (0.005 if from_a else -0.005) + (0.002 if i == 8 else 0), data))
    fa, fb = tmp_path / "a.pcap", tmp_path / "b.pcap"
    write_pcap(fa, pk)
    write_pcap(fb, rcv)
    r = cp.analyze(fa, peer=fb)
    o = r.owd.set_index("dport")
    fwd = o.loc[80]
    assert fwd["sender_capture"] == "a"
    assert (fwd["sent"], fwd["matched"], fwd["lost"]) == (8, 7, 1)
    assert fwd["loss_rate"] == pytest.approx(1 / 8)
    assert fwd["min_delay_ms"] == pytest.approx(100005.0, abs=0.002)
    ex = r.owd_samples[r.owd_samples["dport"] == 80]["excess_ms"]
    assert ex.max() == pytest.approx(2.0, abs=0.002) and ex.min() == 0
    rev = o.loc[1000]
    assert rev["sender_capture"] == "b" and rev["lost"] == 0
    assert run_cli(["pcap", "analyze", str(fa), "--peer", str(fb)]) == 0
    assert "loss 12.5000%" in capsys.readouterr().out


@pytest.mark.parametrize("content,msg", [
    (b"", "too short"),
    (b"hello world, not a capture at all", "bad magic number"),
    (struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1) + b"\xff" * 40, "record 1 at byte 24"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, run_cli, capsys, content, msg):
    f = tmp_path / "bad.pcap"
    f.write_bytes(content)
    assert run_cli(["pcap", "analyze", str(f)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cdmasim: error: ") and msg in err[0] and str(f) in err[0]
    assert run_cli(["pcap", "analyze", str(tmp_path / "missing.pcap")]) == 2


def test_truncated_file_warns_and_analyses_the_rest(tmp_path, run_cli, capsys):
    f = tmp_path / "cut.pcap"
    write_pcap(f, story())
    data = f.read_bytes()
    f.write_bytes(data[:-10])
    assert run_cli(["pcap", "analyze", str(f), "--json"]) == 0
    cap = capsys.readouterr()
    assert "cdmasim: warning:" in cap.err and "record 13 at byte" in cap.err
    assert json.loads(cap.out)["packets_seen"] == 12


@pytest.mark.skipif(__import__("shutil").which("tcptrace") is None, reason="tcptrace not installed")
@pytest.mark.parametrize("linktype", [1, 101])
def test_crafted_story_agrees_with_tcptrace(tmp_path, linktype):
    """The hand-made story plus one packet captured twice (a 'hardware
    duplicate': same IP id and sequence number): every tcptrace figure agrees."""
    import cdmasim.pcap as cp
    import pcap_tcptrace as tt

    pk = story()
    pk.insert(5, (pk[4][0] + 0.0001, pk[4][1]))
    if linktype == 1:
        eth = b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00"
        pk = [(t, eth + d) for t, d in pk]
    f = tmp_path / "s.pcap"
    write_pcap(f, pk, linktype=linktype)
    ours = cp.analyze_raw(f)[0]
    assert ours["connections"][0]["a2b"]["hardware_dups"] == 1
    theirs = tt.run_tcptrace(f)
    assert "hardware dups" in theirs[0]["a2b"]
    assert tt.compare(ours["connections"], theirs) == []
