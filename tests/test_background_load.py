"""A loaded 1xEV-DO sector (`[[sector]] background`): background users that
have data all the time (full buffers) or a share of it (`busy`), served by
the scheduler like any user. On equal constant channels the slots they get
follow from who is busy: with two users each busy half the time in
independent periods, the sector is busy 1 - (1 - 0.5)^2 = 0.75 of its
slots and each user gets 0.5 * 0.5 + 0.25 * 0.5 = 0.375."""

import cdmasim

SCENARIO = """
[simulation]
duration = "600s"
seed = 1
[[node]]
name = "server"
[[node]]
name = "bs"
[[link]]
name = "internet"
from = "server"
to = "bs"
rate = "100Mbps"
delay = "10ms"
[[sector]]
name = "s1"
node = "bs"
background = { users = 2, drc = { constant = "1228.8kbps" }%s }
[[user]]
name = "phone"
sector = "s1"
drc = { constant = "1228.8kbps" }
"""


def _shares(extra):
    r = cdmasim.run(SCENARIO % extra)
    sector = r.sectors.iloc[0]
    served = r.users.set_index("name").slots_served
    return sector.utilisation, served["s1.bg1"] / sector.traffic_slots, served["s1.bg2"] / sector.traffic_slots


def test_users_busy_half_the_time_load_three_quarters_of_the_slots():
    # 600 s of 200 ms periods: 1500 cycles per user, the share's standard
    # error about 0.009 (docs/scenario.md): tolerance 0.03.
    busy, bg1, bg2 = _shares(', busy = 0.5, busy_period = "200ms"')
    assert abs(busy - 0.75) < 0.03
    assert abs(bg1 - 0.375) < 0.03 and abs(bg2 - 0.375) < 0.03


def test_full_buffers_take_every_slot_and_split_it():
    busy, bg1, bg2 = _shares("")
    assert busy == 1.0
    assert abs(bg1 - 0.5) < 0.01 and abs(bg2 - 0.5) < 0.01


def test_a_measured_download_gets_more_of_a_sector_whose_load_comes_and_goes():
    """The point of the option: a download shares the slots with the
    background only while it is busy."""
    flow = '\n[[flow]]\nname = "d"\nfrom = "server"\nto = "phone"\ntcp = { rcv_buffer = "256KiB" }\n'
    full = cdmasim.run(SCENARIO % "" + flow).flows.iloc[0].goodput_bps
    light = cdmasim.run(SCENARIO % ', busy = 0.2, busy_period = "500ms"' + flow).flows.iloc[0].goodput_bps
    assert light > 1.5 * full
