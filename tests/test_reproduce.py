"""`cdmasim reproduce`: every item says what it is to the model (prediction,
calibration, input, model check), tolerances follow what the paper's number
is by one rule, the items the model cannot fail and the model checks are
never counted, every difference says why, items
come from several seeds and report their spread, a null model stands beside
each figure, duplicates are refused, alias ids answer for their items, and
the --json shape (one object per paper)."""

import json
import pathlib
import shutil
import subprocess
import sys

import pytest

from cdmasim.reproduce import Context, figure_score, summary
from cdmasim.reproduce.items import BASES, VERDICTS, Item, Tolerance, null_score
from cdmasim.reproduce.why import REASONS, UNEXPLAINED, explain, needs_reason

ROOT = pathlib.Path(__file__).resolve().parent.parent
KEYS = ["paper", "title", "items", "figures", "wall_s", "summary", "aliases"]
ITEM_KEYS = ["id", "what", "published", "measured", "unit", "tolerance", "verdict", "basis", "basis_note", "source",
             "spread", "seeds", "pooled", "aliases", "reason", "also", "ns2", "ns2_spread", "origin", "by_construction",
             "target", "why"]


def reproduce(paper, out, *extra):
    p = subprocess.run([sys.executable, "-m", "cdmasim.cli", "reproduce", paper, "--out", str(out), "--json", *extra],
                       cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    reports = [json.loads(line) for line in p.stdout.strip().splitlines()]
    return (reports if paper == "all" else reports[-1]), p


def check_shape(r, paper):
    assert list(r) == KEYS and r["paper"] == paper and r["title"]
    ids = [it["id"] for it in r["items"]]
    assert len(ids) == len(set(ids))
    assert not set(r["aliases"]) & set(ids)
    sources = [it["source"] for it in r["items"] if it["published"] is not None]
    assert len(sources) == len(set(sources)), "one claim, one scored item"
    for it in r["items"]:
        assert list(it) == ITEM_KEYS
        assert not it["id"].startswith(paper + "."), "ids are the paper's own names, unprefixed"
        assert it["verdict"] in VERDICTS and it["basis"] in BASES
        if it["verdict"] == "not modelled":
            assert it["measured"] is None and it["reason"]
            continue
        assert isinstance(it["measured"], float)
        if it["basis"] != "prediction":
            assert it["verdict"] == it["basis"] and it["basis_note"]
            assert it["target"] in ((None,) if it["published"] is None else ("hit", "missed", "inconclusive"))
        elif it["published"] is None:
            assert it["verdict"] == "no published value"
        elif it["by_construction"]:
            assert it["verdict"] == "by construction" and it["target"] in ("hit", "missed", "inconclusive")
        else:
            assert it["verdict"] in ("agrees", "differs", "inconclusive") and it["tolerance"] and it["source"]
        # Every difference, and every target missed, says why.
        if it["verdict"] in ("differs", "inconclusive") or it["target"] in ("missed", "inconclusive"):
            assert it["why"] and it["why"] != UNEXPLAINED, (paper, it["id"], it["verdict"], it["target"])
        else:
            assert not it["why"], (paper, it["id"])
        if it["spread"] is not None:
            assert it["spread"][0] <= it["measured"] <= it["spread"][1]
    s = r["summary"]["predictions"]
    assert s["total"] == sum(s[v] for v in ("agrees", "differs", "inconclusive", "not modelled", "no published value",
                                            "by construction"))
    assert s["judged"] == s["agrees"] + s["differs"] + s["inconclusive"] == r["summary"]["headline"]["judged"]
    assert r["summary"]["headline"]["agree"] <= s["agrees"]
    for f in r["figures"]:
        assert set(f["score"]) == {"predictions", "agree", "null", "null_answer", "uninformative"}


# -- the rules, without simulation ------------------------------------------------

@pytest.mark.parametrize("words, value, inside, outside", [
    ("less than 5%", 1.05, [1.0, 1.0499], [1.05, 1.06]),            # a bound is the bound: < 1.05
    ("over 100%", 1.0, [1.0001, 1.5], [1.0, 0.98]),                  # "over 100 %" is > 1.00
    ("could be greater than 0.96 KB", 960, [961], [960, 900]),        # not at exactly 960 B
    ("at least 60%", 0.6, [0.6, 0.9], [0.59]),
    ("up to 0.2", 0.2, [0.2, 0.0], [0.21]),
    ("limited to 4.8 KB", 4800, [4800, 100], [4801]),
    ("could not achieve more throughput than", 1.0, [1.0, 0.5], [1.01]),
    ("around 20%", 20, [18, 22], [17.9, 22.1]),                      # "about X" is ±10 %
    ("about 120 ms", 0.12, [0.108, 0.132], [0.107, 0.133]),
    ("nearly 20 percent", 20, [18.5], [17.5]),
    ("up to about 20 %", 20, [18, 22], [23]),                         # the largest value is about 20 %
    ("572.5", 572.5, [520, 629], [510, 640]),                         # a number as measured: ±10 %
    ("20 - 30 secs", None, [20, 30], [19.9, 30.1]),                  # a range is the range
    ("does not incur any packet loss", 0, [0], [1]),
])
def test_the_tolerance_rule_on_the_papers_phrases(words, value, inside, outside):
    t = Tolerance.from_wording(words, value)
    assert all(t.passes(x) for x in inside), (words, t.text)
    assert not any(t.passes(x) for x in outside), (words, t.text)


def test_a_value_read_off_a_figure_is_ten_percent_or_fifteen_where_coarse():
    fine, coarse = Tolerance.from_wording("read off", 100, figure=True), Tolerance.from_wording("x", 100, figure=True,
                                                                                              coarse=True)
    assert fine.passes(110) and not fine.passes(111) and coarse.passes(115) and not coarse.passes(116)


def item(samples, published=1.0, tol=None, **kw):
    return Item("x.y", "what", "u", samples, published=published, tolerance=tol or Tolerance.about(published),
                source="§1: 'x'" if published is not None else "", **kw)


def test_an_item_whose_seeds_spread_wider_than_its_tolerance_is_inconclusive():
    assert item([1.0, 1.02, 0.98]).verdict == "agrees"
    # Every seed within ±10 % is impossible when they spread over 0.3: never "agrees".
    assert item([0.85, 1.0, 1.15]).verdict == "inconclusive"
    # Seeds straddling a bound: some pass, some do not.
    assert item([0.9, 1.2], tol=Tolerance.below(1.05)).verdict == "inconclusive"
    # Every seed outside: a difference, whatever the spread.
    assert item([2.0, 2.5, 3.0]).verdict == "differs"
    # An ordering that holds in some seeds only.
    assert item([1.0, 0.0, 1.0], tol=Tolerance.holds()).verdict == "inconclusive"


def test_calibration_and_inputs_are_never_agreement():
    assert item([1.0] * 5, basis="calibration", basis_note="fitted to it").verdict == "calibration"
    assert item([1.0] * 5, basis="input", basis_note="set from it").verdict == "input"
    with pytest.raises(ValueError, match="says what was fitted"):
        item([1.0], basis="calibration")


def test_a_figure_whose_null_model_scores_as_well_is_flagged_uninformative():
    bounds = [Item(f"f.{i}", "w", "fraction", [0.01] * 5, published=0.2, tolerance=Tolerance.below(0.2),
                   source=f"§{i}") for i in range(3)]
    score = figure_score(bounds)
    # All zeros passes every "less than 20 %": cdmasim's three agreements tell nothing.
    assert (score["agree"], score["null"], score["null_answer"], score["uninformative"]) == (3, 3, "zeros", True)
    about = [Item(f"g.{i}", "w", "kb/s", [100.0 * (i + 1)] * 5, published=100.0 * (i + 1),
                  tolerance=Tolerance.about(100.0 * (i + 1)), source=f"§{i}") for i in range(3)]
    score = figure_score(about)
    assert score["agree"] == 3 and score["null"] == 1 and not score["uninformative"]   # the mean, 200, passes one
    # Lee's retransmission rates: the loss rate set in the run passes as it is.
    inputs = [Item(f"h{x}", "w", "%", [x] * 5, published=x, tolerance=Tolerance.about(x), source=f"§t{x}",
                   null_input=x) for x in (0.2, 4.7)]
    assert null_score(inputs) == {"answer": "input unchanged", "passes": 2, "of": 2}


@pytest.mark.parametrize("paper, words, tolerance, inside, outside", [
    # A number printed to a precision is held to half its last digit.
    ("paliwal", "dead period 'between 51s and 62s': 1 s after the switch at 50 s", Tolerance.precision(1, "51s"),
     [0.5, 1.5], [0.0, 1.6]),
    ("paliwal", "Table II's '19.84'", Tolerance.precision(19.84, "19.84"), [19.835, 19.845], [19.83, 19.85]),
    # A range is the range: "minimal gain (4 - 5%)", where "less than 5 %" is the looser phrasing.
    ("liu", "'minimal gain (4 - 5%)'", Tolerance.within(1.04, 1.05), [1.04, 1.05], [1.0, 1.039, 1.051]),
    # A bounded index by its distance from the bound: Jain's "0.99" is 1 - J = 0.01 ± 0.005.
    ("liu", "Jain's index 'values of 0.99'", Tolerance.index(0.99), [0.985, 0.995], [0.984, 0.996, 1.0]),
    # An effect is held to half its size: neither no effect nor twice it passes.
    ("liu", "'dropped to around 80 %' from 0.8667", Tolerance.change(-0.0667), [-0.0667, -0.04, -0.1],
     [0.0, -0.02, -0.134]),
    ("jung", "'96 %' of Reno's throughput, a 4 % loss", Tolerance.change(0.96, 1.0), [0.94, 0.98], [0.93, 0.99, 1.0]),
    # Table II prints some cells to one decimal: "0.0" is ±0.05.
    ("paliwal", "Table II's '0.0'", Tolerance.precision(0.0, "0.0"), [0.0, 0.05], [0.06]),
    ("paliwal", "Table II's '4.5'", Tolerance.precision(4.5, "4.5"), [4.45, 4.55], [4.44, 4.56]),
    ("dziong", "'56%' of the power, as a fraction", Tolerance.precision(0.56, "only 56%"), [0.555, 0.565], [0.554]),
    ("dziong", "'about 78%' keeps ±10 %", Tolerance.from_wording("about 78%", 0.78, simulated=True), [0.702, 0.858],
     [0.70]),
])
def test_the_rule_by_what_the_number_is(paper, words, tolerance, inside, outside):
    assert all(tolerance.passes(x) for x in inside), (paper, words, tolerance.text)
    assert not any(tolerance.passes(x) for x in outside), (paper, words, tolerance.text)


def test_a_simulated_number_is_one_run_of_its_simulator():
    """Paliwal's and Dziong's numbers are single simulation runs: one agrees
    when it lies among our single runs, their range widened by its stated
    precision, however far the mean is (and never 'inconclusive')."""
    tol = Tolerance.precision(11, "11 s")
    sim = lambda samples: Item("s.x", "w", "s", samples, published=11, tolerance=tol, source="§s",  # noqa: E731
                               origin="simulation")
    assert sim([9.0, 10.6, 14.0]).verdict == "agrees"      # 11 lies among the runs
    assert sim([11.4]).verdict == "agrees"                  # one run, within half the last digit
    assert sim([12.0, 13.0]).verdict == "differs"           # every run above it
    # The same seeds against a measured number: the mean and every seed must pass.
    assert item([9.0, 10.6, 14.0], published=11, tol=tol).verdict == "inconclusive"
    # An exact claim of a simulation ("halts", "does not halt") is judged seed
    # by seed: a mix of seeds cannot agree with a claim and its opposite.
    for claim in (0.0, 1.0):
        halts = Item("h.x", "halted", "fraction", [1.0, 0.0, 1.0], published=claim,
                     tolerance=Tolerance.exactly(claim), source=f"§h{claim}", origin="simulation")
        assert halts.verdict == "inconclusive"
    # The tolerance shown says how a simulated number was judged.
    assert "the paper's one run" in sim([11.4]).as_dict()["tolerance"]


def test_the_no_effect_null_model_answers_a_claim_of_an_effect():
    """A claim of an effect scored by a bound that "no effect" passes tells
    nothing; scored by the paper's range, no effect fails it."""
    bound = Item("fig6.gain", "PF/RR", "ratio", [1.017] * 5, published=1.05, tolerance=Tolerance.below(1.05),
                 source="§6: 'less than 5%'", no_effect=1.0)
    score = figure_score([bound])
    assert (score["agree"], score["null"], score["null_answer"], score["uninformative"]) == (1, 1, "no effect", True)
    ranged = Item("fig6.gain", "PF/RR", "ratio", [1.045] * 5, published=1.045, tolerance=Tolerance.within(1.04, 1.05),
                  source="§8: 'minimal gain (4 - 5%)'", no_effect=1.0)
    score = figure_score([ranged])
    assert (score["agree"], score["null"], score["uninformative"]) == (1, 0, False)
    # A change: no effect is a change of 0.
    drop = Item("sec7.drop", "change", "fraction", [0.0], pooled=20, published=-0.0667,
                tolerance=Tolerance.change(-0.0667), source="§7.3", no_effect=0.0)
    assert drop.verdict == "differs" and not drop.null_passes(drop.no_effect)


def test_an_ordering_is_scored_against_the_chance_of_holding_by_luck():
    """The null model answers an ordering with the chance that it holds in
    every seed by luck: 1/2 per seed for two things, 1/k! for k in order."""
    two = Item("o.two", "A above B", "holds", [1.0] * 5, published=1.0, tolerance=Tolerance.holds(), source="§o2")
    four = Item("o.four", "Vegas < Westwood < Reno < Cubic", "holds", [1.0] * 5, published=1.0,
                tolerance=Tolerance.holds(1 / 24), source="§o4")
    null = null_score([two, four])
    assert null["passes"] == pytest.approx(0.5 ** 5 + (1 / 24) ** 5, abs=1e-3)
    assert null["answer"].endswith("orderings by chance")
    # One deterministic run: a coin's chance, still below one agreement.
    once = Item("o.once", "A above B", "holds", [1.0], published=1.0, tolerance=Tolerance.holds(), source="§o1")
    score = figure_score([once])
    assert score["null"] == 0.5 and not score["uninformative"]


def test_model_checks_and_passes_by_construction_are_not_counted_as_agreement():
    check = Item("fig4a.loss", "packet sim against eq. 6", "packets", [3.0], published=3.1,
                 tolerance=Tolerance.about(3.1), source="eq. 6 at W = 8 kB", basis="model check",
                 basis_note="the reference is our own evaluation of eq. 6")
    built = Item("fig2.w64", "W64 over W32", "ratio", [1.0] * 5, published=1.0, tolerance=Tolerance.at_most(1.0),
                 source="§3", by_construction="a lossless link of a fixed rate")
    real = Item("fig5.r", "two flows", "ratio", [1.01] * 5, published=1.0, tolerance=Tolerance.above(1.0),
                source="§5")
    assert (check.verdict, check.target) == ("model check", "hit")
    assert (built.verdict, built.target) == ("by construction", "hit") and not built.judged
    s = summary([check, built, real], [])
    assert s["predictions"]["agrees"] == 1 and s["predictions"]["judged"] == 1 and s["headline"]["agree"] == 1
    assert s["predictions"]["by construction"] == 1 and s["model_check"] == {"total": 1, "hit": 1}
    # One that fails is a bug, and a finding.
    broken = Item("fig2.w64", "W64 over W32", "ratio", [1.2] * 5, published=1.0, tolerance=Tolerance.at_most(1.0),
                  source="§3", by_construction="a lossless link of a fixed rate")
    assert broken.target == "missed" and needs_reason(broken) and summary([broken], [])["targets_missed"] == ["fig2.w64"]
    with pytest.raises(ValueError, match="by_construction"):
        Item("c.x", "w", "u", [1.0], basis="calibration", basis_note="n", by_construction="why")


def test_a_missed_calibration_is_a_finding_with_its_reason():
    mobile = Item("sec5.mobile_mean_kbps", "mobile mean", "kb/s", [1243.0] * 5, published=1000,
                  tolerance=Tolerance.about(1000), source="§5", basis="calibration", basis_note="the mobile preset")
    assert (mobile.verdict, mobile.target) == ("calibration", "missed") and needs_reason(mobile)
    assert explain("liu", mobile)
    s = summary([mobile], [])
    assert s["targets_missed"] == ["sec5.mobile_mean_kbps"]


def test_the_headline_leaves_out_figures_the_null_model_answers_as_well():
    zeros = [Item(f"f.{i}", "w", "fraction", [0.01] * 5, published=0.2, tolerance=Tolerance.below(0.2),
                  source=f"§{i}") for i in range(2)]
    told = Item("g.1", "w", "kb/s", [100.0] * 5, published=100.0, tolerance=Tolerance.about(100.0), source="§g")
    figures = [{"id": "f", "items": ["f.0", "f.1"], "score": figure_score(zeros)},
               {"id": "g", "items": ["g.1"], "score": figure_score([told])}]
    s = summary(zeros + [told], figures)
    assert s["predictions"]["agrees"] == 3 and s["headline"] == {"agree": 1, "judged": 3}


def test_every_reason_pattern_names_a_paper_and_reads_as_one_line():
    for paper, reasons in REASONS.items():
        assert paper in ("liu", "lee", "paliwal", "jung", "dziong")
        for pattern, reason in reasons:
            assert reason and "\n" not in reason and not reason.endswith("."), (paper, pattern)
    agrees = item([1.0] * 5)
    agrees.id = "fig7.max_utilisation"
    assert explain("liu", agrees) == ""        # nothing to explain
    differs = item([2.0] * 5)
    differs.id = "fig7.max_utilisation"
    assert explain("liu", differs).startswith("on the commercial sector")
    # An item no pattern matches says so, rather than nothing.
    differs.id = "fig99.nothing"
    assert explain("liu", differs) == UNEXPLAINED


def test_duplicates_min_seeds_and_aliases(tmp_path):
    ctx = Context("jung", str(tmp_path))
    ctx.item("a.b", "w", "u", samples=[1.0] * 5, published=1.0, tolerance=Tolerance.about(1.0), source="§2: 'one claim'",
             aliases=["old.a_b", ("old.a_b_ms", 1000)])
    with pytest.raises(ValueError, match="scores the claim"):
        ctx.item("a.c", "w", "u", samples=[1.0] * 5, published=1.0, tolerance=Tolerance.about(1.0),
                 source="§2:  'one  claim'")
    with pytest.raises(ValueError, match="added twice"):
        ctx.item("a.b", "w", "u", samples=[1.0] * 5)
    with pytest.raises(ValueError, match="another item's alias"):
        ctx.item("old.a_b", "w", "u", samples=[1.0] * 5)
    with pytest.raises(ValueError, match="at least 5"):
        ctx.item("a.d", "w", "u", samples=[1.0, 2.0])
    ctx.item("a.e", "w", "u", measured=3.0, deterministic=True)      # a scenario without randomness: one run
    assert ctx._aliases == {"old.a_b": {"id": "a.b", "scale": 1.0}, "old.a_b_ms": {"id": "a.b", "scale": 1000.0}}


def test_the_jung_link_is_the_1x_air_link_with_rlp_behind_the_pdsn_buffer_and_its_seeds_matter():
    import cdmasim
    from cdmasim.reproduce.jung import DEFAULT_FER, FERS, _scenario

    doc = _scenario(2, 10, 20)
    assert not [link for link in doc["link"] if link["name"] == "radio"], "no stall-schedule link left"
    (air,) = doc["radio_link"]
    assert air["name"] == "radio" and air["queue"] == {"kind": "droptail", "limit": "120pkt"}
    assert air["fer"] == DEFAULT_FER == FERS[0] and air["fading"] == "rayleigh"
    a, b, c = cdmasim.run(doc, seed=1), cdmasim.run(doc, seed=1), cdmasim.run(doc, seed=2)
    assert a.flows.equals(b.flows) and a.queues.equals(b.queues)
    # The frame errors are drawn: another seed is another run.
    assert not a.radio_links.equals(c.radio_links)
    assert set(a.queues.link) >= {"radio"}


# -- the papers, --quick (3 seeds), from one `reproduce all --quick` (conftest.py) --

def test_all_prints_one_json_object_per_paper_and_a_report(quick_reproduction):
    out, reports, p = quick_reproduction
    assert [json.loads(line)["paper"] for line in p.stdout.strip().splitlines()] == \
        ["liu", "lee", "paliwal", "jung", "dziong"]
    # Analysed before liu (whose calls run from the start), reported after it.
    assert all(f"cdmasim: {paper}: " in p.stderr for paper in ("lee", "paliwal", "jung", "dziong"))
    assert p.stderr.count("reported after liu") == 4
    for paper, r in reports.items():
        check_shape(r, paper)
    assert "not built yet" not in p.stderr
    html = (out / "report.html").read_text()
    assert "predictions agree" in html and "null model passes" in html and "Calibration targets (not counted" in html


def test_the_terminal_and_the_page_count_the_same_things_in_the_same_words(quick_reproduction):
    """One paper's line on the terminal is report.html's row for it; with
    --items every item with a published value follows, and every
    difference's reason beneath it."""
    import html as html_lib
    import re

    from cdmasim.reproduce.report import tally

    # jung's runs are in the quick reproduction's store: running it again
    # there rewrites the same report.
    out, reports, _ = quick_reproduction
    mine = out
    p = subprocess.run([sys.executable, "-m", "cdmasim.cli", "reproduce", "jung", "--quick", "--out", str(mine),
                        "--items"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    r = json.loads((mine / "jung" / "report.json").read_text())
    counts = tally(r["summary"])
    for value, words in counts[:3]:
        assert f"{words}: {value}" in lines[0]
    page = (mine / "report.html").read_text()
    header = re.search(r"<table><tr><th>paper</th>(.*?)</tr>", page).group(1)
    row = re.search(r'<tr><td><a href="#jung">jung</a></td>(.*?)</tr>', page).group(1)
    assert [html_lib.unescape(h) for h in re.findall(r"<th>(.*?)</th>", header)][:len(counts)] == \
        [w for _, w in counts]
    assert [html_lib.unescape(c) for c in re.findall(r'<td class="num">(.*?)</td>', row)][:len(counts)] == \
        [v for v, _ in counts]
    scored = [it for it in r["items"] if it["published"] is not None]
    for it in scored:
        assert any(line.startswith(f"  {it['id']}: ") for line in lines), it["id"]
        if it["why"]:
            assert f"      {it['why']}" in lines, it["id"]


def test_the_status_page_is_generated_from_the_reports(quick_reproduction, tmp_path):
    from cdmasim.reproduce import status

    out, reports, _ = quick_reproduction
    dest = tmp_path / "status.md"
    assert status.main([str(out), str(dest)]) == 0
    text = dest.read_text()
    assert "--quick" in text and "do not edit by hand" in text
    for paper, r in reports.items():
        assert f"## {paper}: " in text
        for it in r["items"]:
            if it["published"] is not None:
                assert f"`{it['id']}`" in text, it["id"]
            if it["why"]:
                assert it["why"] in text
    # Nothing to read: one line and status 2, nothing written.
    assert status.main([str(tmp_path / "empty"), str(tmp_path / "x.md")]) == 2
    assert not (tmp_path / "x.md").exists()


def test_jung_items_and_caching(quick_reproduction, tmp_path):
    out, reports, _ = quick_reproduction
    r = reports["jung"]
    items = {it["id"]: it for it in r["items"]}
    assert items["fig3.flow2_starved_until_flow1_stops"]["verdict"] == "agrees"
    assert items["fig5.throughput_ratio_two_flows"]["tolerance"] == "> 1"      # "over 100 %"
    # Over RLP's link a larger window can carry more (it covers recoveries):
    # Fig. 2's claims are predictions now, not true by construction.
    for i in ("fig2.goodput_w64_over_w32", "fig2.queue_grows_with_window"):
        assert items[i]["verdict"] in ("agrees", "differs", "inconclusive") and not items[i]["by_construction"], i
    # "96 %" is a loss of 4 % ± 2 %: the ratio 1 (no loss) does not pass.
    assert items["fig4.throughput_ratio_one_flow"]["tolerance"].startswith("in [0.94, 0.98]")
    # "same bandwidth" is scored on the share ratio, Jain's index shown beside it.
    assert items["fig5.jain_rbsmq_two_flows"]["published"] is None
    assert items["fig5.share_ratio_rbsmq_two_flows"]["tolerance"] == "≥ 0.9"
    # Every item is measured on every seed, and the FER the paper leaves
    # open is shown at 5 and 10 % beside the scored 1 %, unscored.
    assert all(it["seeds"] == 3 for it in items.values()), [it["id"] for it in items.values() if it["seeds"] != 3]
    for fer in ("0.05", "0.1"):
        side = items[f"sensitivity.fer_{fer}.fig1.interarrival_below_mean_fraction"]
        assert side["published"] is None and side["verdict"] == "no published value"
    # More frame errors, more recoveries: more gaps fall below the mean.
    below = [items[i]["measured"] for i in ("fig1.interarrival_below_mean_fraction",
                                            "sensitivity.fer_0.05.fig1.interarrival_below_mean_fraction",
                                            "sensitivity.fer_0.1.fig1.interarrival_below_mean_fraction")]
    assert below == sorted(below), below
    # Reno-64 builds the standing queue of Fig. 2(a) (~60 of 64 segments).
    assert items["fig4.queue_reno64_pkts"]["measured"] > 40
    assert {f["id"] for f in r["figures"]} >= {"fig1", "sensitivity_fer"}
    assert all((out / f["file"]).stat().st_size > 0 for f in r["figures"])
    # A second run takes every experiment from the store and gives the same
    # items (in a copy: the other test worker may be reading the original).
    shutil.copytree(out, tmp_path / "out")
    r2, _ = reproduce("jung", tmp_path / "out", "--quick")
    assert r2["items"] == r["items"]


def test_dziong_fits_nothing_and_runs_the_capped_workload_as_a_named_variant(quick_reproduction):
    """Table 2's workload as stated: no item is a calibration; the 12 KB
    object-size cap runs beside it as `variant.cap_12kb.*`, unscored, and
    offers less than Table 2's law at every number of users; §2's other
    reading of a denial is a sensitivity item."""
    _, reports, _ = quick_reproduction
    items = {it["id"]: it for it in reports["dziong"]["items"]}
    assert [it["id"] for it in items.values() if it["basis"] != "prediction"] == []
    assert items["fig13.aggregate_kbps.u16"]["verdict"] in ("agrees", "differs", "inconclusive")
    for n in (16, 32, 60):
        capped = items[f"variant.cap_12kb.u{n}.aggregate_kbps"]
        assert capped["published"] is None
        assert capped["measured"] < items[f"fig13.aggregate_kbps.u{n}"]["measured"]
    assert "sensitivity.after_denial_continue.u60.aggregate_kbps" in items


def test_lee_labels_its_inputs_and_calibration(quick_reproduction, tmp_path):
    out, reports, _ = quick_reproduction
    items = {it["id"]: it for it in reports["lee"]["items"]}
    assert items["table1.downlink_rtt_min_ms"]["basis"] == "calibration"
    # The sector's load is set from the downlink's throughput; the uplink's is predicted.
    assert items["table1.downlink_throughput_kbps"]["basis"] == "calibration"
    assert items["table1.uplink_throughput_kbps"]["basis"] == "prediction"
    # The loss below PPP is liu's residual loss: the retransmission rates are predicted.
    assert items["table1.downlink_retrans_pct"]["basis"] == items["table1.uplink_retrans_pct"]["basis"] == "prediction"
    # VJ header compression: the receiver sees checksum failures, and
    # timestamps lower the retransmission rate (Figs. 7-8; the loss-period
    # shares need the full run's connections).
    assert items["fig7.checksum_failures"]["measured"] > 0
    assert items["fig8.retrans_pct.ts_on"]["measured"] < items["table1.downlink_retrans_pct"]["measured"]
    assert not any(it["verdict"] == "not modelled" for it in items.values())
    assert items["table1.downlink_throughput_kbps"]["seeds"] == 3 and items["table1.downlink_throughput_kbps"]["spread"]
    # The captures are in the store, and the analysis runs on a user's
    # capture too (in a copy: the other test worker may be reading the original).
    shutil.copytree(out, tmp_path / "out")
    caps = sorted((tmp_path / "out" / "store" / "runs").glob("*/pcap/internet.pcap"))
    assert caps
    r2, _ = reproduce("lee", tmp_path / "out", "--quick", "--pcap", str(caps[0]))
    mine = {it["id"]: it for it in r2["items"] if it["id"].startswith("pcap.")}
    assert mine["pcap.throughput_kbps"]["measured"] > 0
    assert mine["pcap.throughput_kbps"]["verdict"] == "no published value"


def test_liu_quick_labels_the_presets_and_scores_each_claim_once(quick_reproduction):
    r = quick_reproduction[1]["liu"]
    items = {it["id"]: it for it in r["items"]}
    # The presets were fitted to section 5's statistics: calibration, not agreement.
    for i in ("sec5.mobile_std_kbps", "sec5.stationary_modal_fraction", "sec5.mobile_entropy_bits"):
        assert items[i]["basis"] == "calibration", i
    assert items["sec5.mobile_handoff_interval_s"]["basis"] == "input"
    # One claim, one item: the trace model and the TCP sector measure Fig. 6's gains together.
    gain = items["fig6.gain_mobile_4users"]
    assert gain["also"] and gain["also"][0]["how"].startswith("TCP users")
    assert items["fig6.gain.mobile.4"]["published"] is None
    assert sum(it["published"] is not None and it["id"].startswith(("fig6.jain", "sec6.jain")) for it in r["items"]) == 1
    # "minimal gain (4 - 5%)", the tighter of the paper's two phrasings, and a
    # simulation: the paper's number among our runs.
    assert items["fig6.gain_stationary_4users"]["tolerance"].startswith("in [1.04, 1.05]: the paper's one run")
    assert items["fig6.gain_stationary_4users"]["origin"] == "simulation"
    # Jain's "0.99" by its distance from 1; the drop on excellent channels as a change.
    assert items["sec6.jain_pf_rr"]["tolerance"].startswith("in [0.985, 0.995]")
    assert items["sec7.utilisation_drop_excellent"]["published"] < 0 and \
        items["sec7.utilisation_excellent"]["published"] is None
    for i in ("fig4.markov_rmse", "fig5.stationary_cond_entropy_n1", "fig5.mobile_cond_entropy_n1"):
        assert items[i]["verdict"] == "by construction", i
    # Headline results the model cannot produce yet exist, with the reason.
    # The erasure rate is the RLP's input; the loss it leaves is predicted.
    assert items["fig9.fer"]["basis"] == "input" and abs(items["fig9.fer"]["measured"] - 0.01) < 0.002
    loss = items["sec7.channel_loss_rate"]
    assert loss["basis"] == "prediction" and 0 < loss["measured"] < 0.01
    # Fig. 1: the location presets were set on the locations' means and modal
    # fractions; the spread over days and the hourly SINR-DRC correlation are predicted.
    for i in ("fig1.location1_mean_mbps", "fig1.locations23_mean_mbps", "fig1.location2_modal_fraction",
              "fig1.location3_modal_fraction", "fig5.stationary_lag_entropy_d100", "fig5.mobile_lag_entropy_d100"):
        assert items[i]["basis"] == "calibration", i
    for i in ("fig1.daily_mean_range_kbps", "fig1.sinr_drc_corr_hourly"):
        assert items[i]["basis"] == "prediction" and items[i]["measured"] is not None, i
    assert items["fig5.stationary_lag_entropy_d100"]["also"][0]["how"].startswith("Location 1-3")
    for i in ("fig7.max_utilisation", "fig8.delay_std_lowest_vegas", "fig10.retransmissions_order",
              "fig6.gain_rises_with_users", "fig11.stream_delay_order", "fig6.gain_interlace4.mobile.4"):
        assert i in items
    assert items["fig11.stream_delay_s.vegas"]["measured"] < items["fig11.stream_delay_s.cubic"]["measured"] / 3


def test_paliwal_quick(quick_reproduction):
    r = quick_reproduction[1]["paliwal"]
    items = {it["id"]: it for it in r["items"]}
    # Fig. 4's reference is eq. 6 as cdmasim evaluates it: a model check, not agreement.
    fig4 = [it for it in r["items"] if it["id"].startswith("fig4") and it["published"] is not None]
    assert len(fig4) >= 12 and all(it["basis"] == "model check" and it["verdict"] == "model check" for it in fig4)
    assert sum(it["target"] == "hit" for it in fig4) >= len(fig4) - 2
    assert r["summary"]["model_check"]["total"] == len(fig4)
    assert not any(it["id"].startswith("fig4") for it in r["items"] if it["verdict"] == "agrees")
    for i in ("fig5.window_pkts", "fig5.drops", "fig5.dead_start_s", "fig5.dead_end_s", "fig5.dead_start_after_switch_s",
              "fig5.dead_length_s", "fig6.dead_s",
              "fig7.halted_fraction.tr_1", "fig7.dead_s.tr_5", "table2.mean", "table2.spearman", "table2.tb_5.td_5",
              "table2.max_pct", "table2.dead_period_s"):
        assert i in items, i
    # Published items carry the paper's numbers, not ours; a table cell is
    # held to the digits it is printed with.
    assert items["fig5.window_pkts"]["published"] == 915 and items["fig5.drops"]["published"] == 729
    assert items["table2.tb_8.td_5"]["published"] == 19.84
    assert items["table2.tb_8.td_5"]["tolerance"].startswith("±0.005")
    assert items["table2.tb_1.td_1"]["tolerance"].startswith("±0.05 ")      # printed "1.7"
    assert items["table2.tb_5.td_5"]["tolerance"].startswith("±0.005 ")     # printed "7.10"
    # The dead period: an offset from the switch and a length, not clock readings.
    assert items["fig5.dead_start_after_switch_s"]["published"] == 1
    assert items["fig5.dead_length_s"]["published"] == 11
    assert items["fig5.dead_start_s"]["published"] is None and items["fig5.red_avg_change_while_dead_pkts"]["verdict"] \
        == "by construction"
    assert items["fig5.window_pkts"]["seeds"] == 3
    # The mechanism the paper describes holds: a dead period after the
    # simultaneous switch, none when users join instead, RED frozen.
    assert items["fig5.dead_end_s"]["measured"] - items["fig5.dead_start_s"]["measured"] > 5
    assert items["fig6.dead_s"]["verdict"] == "agrees"
    assert items["fig5.red_avg_change_while_dead_pkts"]["measured"] == 0
    assert {"fig5", "fig6", "fig7", "table2"} <= {f["id"] for f in r["figures"]}
    # Table II's runs start their bursts after 50 s on the FCH alone, and
    # rho_dead (over the whole run) is the sum of its three parts.
    parts = [items[f"table2.{p}_dead_pct"]["measured"] for p in ("fch_phase", "first_allocations", "later")]
    assert sum(parts) == pytest.approx(items["table2.mean"]["measured"], abs=1e-9)
    assert "50 s on the FCH alone" in items["table2.fch_phase_dead_pct"]["what"]


def test_table2_dead_time_is_split_by_when_its_period_starts():
    from cdmasim.reproduce.paliwal_cell import BURST_START_S, FIRST_ALLOCATIONS_S, _dead_by_phase

    t0, t1 = BURST_START_S, BURST_START_S + FIRST_ALLOCATIONS_S
    # One run of 100 s: 2 s dead in the FCH phase, a period running over the
    # first burst (split there), one in the first allocations that ends
    # after them (all of it theirs), and one later.
    run = [(10.0, 12.0), (t0 - 1, t0 + 3), (t1 - 1, t1 + 9), (t1 + 20, t1 + 21)]
    assert _dead_by_phase([run], 100.0) == pytest.approx([2 + 1, 3 + 10, 1])
    # Two runs: the mean of each part.
    assert _dead_by_phase([run, []], 100.0) == pytest.approx([1.5, 6.5, 0.5])


def test_dziong_quick_and_alias_ids(quick_reproduction):
    r = quick_reproduction[1]["dziong"]
    items = {it["id"]: it for it in r["items"]}
    times = [items[f"objects.time_s.c{c}.fer_{f}"] for c in (1, 4) for f in ("0.01", "0.05", "0.1")]
    # Numbers of the paper's simulation, held to their printed precision.
    assert all(it["published"] and it["origin"] == "simulation" and it["tolerance"].startswith("±0.005")
               for it in times[:5]) and times[5]["tolerance"].startswith("±0.05")     # "5.0 s"
    c1, c4 = [it["measured"] for it in times[:3]], [it["measured"] for it in times[3:]]
    assert c1 == sorted(c1) and all(a < b for a, b in zip(c1, c4))
    assert items["sec5.1.4.rtx_max_bytes.c1.fer_0"]["measured"] == 960.0
    # "could be greater than 0.96 KB" does not pass at exactly 960 B.
    assert items["sec5.1.4.rtx_max_bytes.c4.fer_0"]["tolerance"] == "> 960"
    for alias in ("sec5.1.object_delay_s.c1.fer_0.01", "sec5.1.object_delay_s.c1.fer_0.05",
                  "sec5.1.object_delay_s.c1.fer_0.10", "sec5.1.object_delay_s.c4.fer_0.01",
                  "sec5.1.object_delay_s.c4.fer_0.10", "sec5.1.4.max_rtx_buffer_bytes", "sec5.2.throughput_kbps.users_16",
                  "sec5.2.throughput_kbps.users_60", "sec5.2.power.users_32", "sec5.2.power.users_60",
                  "sec5.2.page_delay_s.1_10kb.users_16", "sec5.2.page_delay_s.1_10kb.users_60",
                  "sec5.2.on_time_median_ms"):
        assert r["aliases"][alias]["id"] in items, alias
    assert r["aliases"]["sec5.2.on_time_median_ms"] == {"id": "fig17.on_time_median_s.u60", "scale": 1000.0}
    agg = [items[f"fig13.aggregate_kbps.u{n}"]["measured"] for n in (16, 32, 60)]
    assert agg == sorted(agg)


def _dumbbell_spec(name, n):
    root = pathlib.Path(__file__).resolve().parent.parent
    return {"sweep": {"name": name, "scenario": str(root / "examples" / "dumbbell.toml"), "seeds": list(range(1, n + 1))},
            "set": {"simulation.duration": "20s", "dumbbell.flows": 2}}


def test_ahead_runs_every_plan_and_a_stop_records_nothing_it_cut_short(tmp_path):
    """reproduce all's sweeps ahead of the analysis (reproduce.Ahead): done,
    each paper's reports are those of sweep_many; stopped in the middle,
    no run is recorded as failed (the killed ones run again next time)."""
    import cdmasim
    from cdmasim.reproduce import Ahead, _spec_key
    from cdmasim.store import Store

    a, b = _dumbbell_spec("ahead_a", 2), _dumbbell_spec("ahead_b", 3)
    ahead = Ahead([("p1", [a]), ("p2", [b])], str(tmp_path / "st"), 2)
    try:
        reports = ahead.wait("p2")
        assert reports[_spec_key(b)]["runs_done"] == 3 and ahead.wait("p1")[_spec_key(a)]["runs_done"] == 2
    finally:
        ahead.close()

    long = _dumbbell_spec("ahead_long", 8)
    long["set"]["simulation.duration"] = "300s"
    ahead = Ahead([("p", [long])], str(tmp_path / "st2"), 2)
    import time

    deadline = time.monotonic() + 60
    while not any(w.task for w in list(ahead.pool.workers)) and time.monotonic() < deadline:
        time.sleep(0.01)
    ahead.close()   # the workers are in 300 s runs
    with pytest.raises(RuntimeError, match="stopped"):
        ahead.wait("p")
    with Store(tmp_path / "st2", mode="r") as st:
        assert st.keys("failed") == set()
    again = cdmasim.sweep(long, tmp_path / "st2", jobs=2)
    assert again["runs_done"] == 8 and again["runs_failed"] == 0


def test_ahead_hands_over_a_done_paper_whatever_a_later_paper_meets(tmp_path):
    """A later paper's sweeps failing (here: a sweep file naming a path the
    scenario does not have) does not take away an earlier paper whose runs
    are done; the failing paper gets the error."""
    from cdmasim.reproduce import Ahead, _spec_key
    from cdmasim.sweep_spec import SweepError

    good = _dumbbell_spec("ahead_good", 1)
    bad = _dumbbell_spec("ahead_bad", 1)
    bad["set"]["dumbbell.no_such_field"] = 1
    ahead = Ahead([("p1", [good]), ("p2", [bad])], str(tmp_path / "st"), 1)
    try:
        ahead.thread.join()
        assert ahead.wait("p1")[_spec_key(good)]["runs_done"] == 1
        with pytest.raises(SweepError):
            ahead.wait("p2")
    finally:
        ahead.close()


def test_ahead_runs_declared_tasks_and_compute_takes_them(tmp_path):
    """A paper's declared calls (`tasks(ctx)`) run on the Ahead's own pool
    from the start; `Context.compute` takes their results and sends only
    the calls the paper did not declare to its pool; a call that failed
    there fails the paper's compute with its name."""
    from cdmasim.reproduce import Ahead, Context

    class MainPool:
        """Stands for the main pool: records what it is asked."""
        asked = []

        def map_unordered(self, tasks):
            for t in tasks:
                self.asked.append(t)
                yield t, ("ok", t[1][0] - t[1][1])

    declared = [("operator:add", (1, 2)), ("operator:mul", (3, 4)), ("math:sqrt", ("not a number",))]
    ahead = Ahead([("p", [])], str(tmp_path / "st"), 2, tasks=[("p", declared)])
    try:
        ctx = Context("p", str(tmp_path / "out"), pool=MainPool())
        ctx.ahead = ahead
        assert ctx.compute("operator:add", [(1, 2), (5, 5)]) == [3, 0]
        assert ctx.pool.asked == [("operator:add", (5, 5))]
        assert ctx.compute("operator:mul", [[3, 4]]) == [12]
        with pytest.raises(RuntimeError, match="math:sqrt"):
            ctx.compute("math:sqrt", [("not a number",)])
        assert ahead.computed("another paper") == {}
    finally:
        ahead.close()


class _CountingPool:
    """Stands for a worker pool: computes in place and records each call."""

    def __init__(self):
        self.asked = []

    def map_unordered(self, tasks):
        from cdmasim.workers import call

        for t in tasks:
            self.asked.append(t)
            yield t, ("ok", call(*t))


def test_compute_keeps_its_results_and_a_second_run_takes_them(tmp_path):
    """What `Context.compute` computes is kept in OUT/calls, and a later
    context over the same folder takes it from there (the value as it was,
    NaN and None included) instead of computing it; a damaged file is
    computed again and replaced; a value JSON would not give back as it was
    (a tuple) is computed every time."""
    from cdmasim.reproduce.calls import CallCache

    out = str(tmp_path / "out")
    first = Context("p", out, pool=_CountingPool())
    assert first.compute("operator:add", [(0.1, 0.2), (1.5, 0)]) == [0.30000000000000004, 1.5]
    assert first.compute("json:loads", [('{"a": [NaN, null, 1e-300]}',)])[0]["a"][1:] == [None, 1e-300]
    assert first.compute("builtins:divmod", [(7, 2)]) == [(3, 1)]
    assert len(first.pool.asked) == 4 and len(list((tmp_path / "out" / "calls").iterdir())) == 3

    second = Context("p", out, pool=_CountingPool())
    assert second.compute("operator:add", [(1.5, 0), (0.1, 0.2)]) == [1.5, 0.30000000000000004]
    back = second.compute("json:loads", [('{"a": [NaN, null, 1e-300]}',)])[0]["a"]
    assert back[0] != back[0] and back[1:] == [None, 1e-300]
    assert second.compute("builtins:divmod", [(7, 2)]) == [(3, 1)]
    assert second.pool.asked == [("builtins:divmod", (7, 2))]

    # Another argument is another call; a damaged file is computed again.
    cache = CallCache(out)
    assert cache.get("operator:add", (0.1, 0.2)) == (True, 0.30000000000000004)
    assert cache.get("operator:add", (0.1, 0.3)) == (False, None)
    for p in (tmp_path / "out" / "calls").iterdir():
        if json.loads(p.read_text())["target"] == "operator:add":
            p.write_text(p.read_text()[:-3])
    third = Context("p", out, pool=_CountingPool())
    assert third.compute("operator:add", [(1.5, 0)]) == [1.5]
    assert third.pool.asked == [("operator:add", (1.5, 0))]
    assert CallCache(out).get("operator:add", (1.5, 0)) == (True, 1.5)


def test_a_kept_call_is_one_of_this_build(tmp_path, monkeypatch):
    """A call's key holds cdmasim's build and its Python sources: after
    either changes, the call is computed again."""
    from cdmasim.reproduce import calls

    cache = calls.CallCache(tmp_path)
    cache.keep(("math:sqrt", (4.0,)), ("ok", 2.0))
    assert cache.get("math:sqrt", (4.0,)) == (True, 2.0)
    monkeypatch.setattr(calls, "_SOURCES", "another")
    assert cache.get("math:sqrt", (4.0,)) == (False, None)
    monkeypatch.undo()
    assert cache.get("math:sqrt", (4.0,)) == (True, 2.0)
    monkeypatch.setattr(calls, "build_version", lambda: "0.0.0+core.another")
    assert cache.get("math:sqrt", (4.0,)) == (False, None)
    monkeypatch.undo()
    # A file under the call's name that holds another call is not taken.
    (path,) = (tmp_path / "calls").iterdir()
    path.write_text(path.read_text().replace('"math:sqrt"', '"math:exp"'))
    assert cache.get("math:sqrt", (4.0,)) == (False, None)


def test_the_sources_fingerprint_follows_every_python_file(tmp_path):
    """The fingerprint in a call's key changes with a Python file's
    content or name, or a new one; not with another kind of file."""
    from cdmasim.reproduce.calls import fingerprint

    (tmp_path / "sub").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub" / "b.py").write_text("y = 2\n")
    (tmp_path / "notes.txt").write_text("n")
    seen = {fingerprint(tmp_path)}
    (tmp_path / "notes.txt").write_text("m")
    assert fingerprint(tmp_path) in seen
    for change in (lambda: (tmp_path / "sub" / "b.py").write_text("y = 3\n"),
                   lambda: (tmp_path / "c.py").write_text(""),
                   lambda: (tmp_path / "c.py").rename(tmp_path / "d.py")):
        change()
        assert fingerprint(tmp_path) not in seen
        seen.add(fingerprint(tmp_path))


def test_a_call_with_arguments_json_cannot_hold_is_computed_every_time(tmp_path):
    """Arguments JSON would not give back as they are (a numpy integer, a
    tuple inside) make a call that is computed, never kept."""
    import numpy as np

    ctx = Context("p", str(tmp_path / "out"), pool=_CountingPool())
    for _ in range(2):
        assert ctx.compute("operator:add", [(np.int64(2), 3), ((1,), (2,))]) == [5, (1, 2)]
    assert len(ctx.pool.asked) == 4 and not (tmp_path / "out" / "calls").exists()


def test_ahead_takes_kept_calls_and_keeps_the_ones_it_computes(tmp_path):
    """reproduce all's task thread computes only the declared calls that
    OUT/calls does not hold, and keeps what it computes."""
    from cdmasim.reproduce import Ahead, CallCache

    kept = CallCache(tmp_path / "out")
    # A value no worker would give: taken from the file, it shows.
    kept.keep(("operator:add", (1, 2)), ("ok", 99))
    declared = [("operator:add", (1, 2)), ("operator:mul", (3, 4))]
    ahead = Ahead([("p", [])], str(tmp_path / "st"), 1, tasks=[("p", declared)], kept=kept)
    try:
        assert ahead.computed("p") == {("operator:add", (1, 2)): ("ok", 99), ("operator:mul", (3, 4)): ("ok", 12)}
    finally:
        ahead.close()
    assert kept.get("operator:mul", (3, 4)) == (True, 12)


def test_ahead_closes_its_calls_in_progress_and_after(tmp_path):
    """Closed at once, with calls that would take minutes (some not yet
    started, none begun when the stop comes perhaps): both threads end,
    every worker goes, and the paper hears its calls were stopped."""
    from cdmasim.reproduce import Ahead

    ahead = Ahead([("p", [])], str(tmp_path / "st"), 2, tasks=[("p", [("time:sleep", (300 + i,)) for i in range(4)])])
    ahead.close()
    assert not ahead.thread.is_alive() and not ahead.task_thread.is_alive()
    assert ahead.task_pool.workers == [] and ahead.pool.workers == []
    with pytest.raises(RuntimeError, match="stopped"):
        ahead.computed("p")


def test_ahead_names_the_paper_whose_calls_could_not_run(tmp_path, monkeypatch):
    from cdmasim.reproduce import Ahead

    def no_workers(self, calls):
        raise OSError("cannot start a worker")

    monkeypatch.setattr(Ahead, "_calls", no_workers)
    ahead = Ahead([("p", [])], str(tmp_path / "st"), 1, tasks=[("p", [("operator:add", (1, 2))])])
    try:
        with pytest.raises(RuntimeError, match="p: its tasks could not run: cannot start a worker"):
            ahead.computed("p")
        assert ahead.wait("p") == {}
    finally:
        ahead.close()


def test_liu_declares_its_calls_and_is_analysed_last(tmp_path):
    """`reproduce all` analyses the papers that declare calls last, and
    liu's declaration covers its four kinds of call over every seed."""
    from cdmasim import reproduce as rp

    assert rp.analysis_order(list(rp.PAPERS)) == ["lee", "paliwal", "jung", "dziong", "liu"]
    (paper, calls), = rp.tasks(list(rp.PAPERS), str(tmp_path), quick=True)
    targets = [t for t, _ in calls]
    assert paper == "liu" and targets[0] == "cdmasim.reproduce.liu:campaign_task"
    assert {t: targets.count(t) for t in targets} == {"cdmasim.reproduce.liu:location_task": 9,
                                                      "cdmasim.reproduce.liu:campaign_task": 3,
                                                      "cdmasim.reproduce.liu:fig6_task": 12,
                                                      "cdmasim.reproduce.liu:channel_task": 6}


def test_reports_go_out_in_the_papers_order_and_an_error_flushes_the_done_ones(capsys):
    import argparse

    from cdmasim.commands.reproduce import Printer
    from cdmasim.progress import StatusLine

    def report(paper):
        return {"paper": paper, "title": "", "items": [{"id": "x"}], "figures": [], "wall_s": 1.0, "summary": {},
                "aliases": {}, "pending": []}

    def printed():
        return [json.loads(line)["paper"] for line in capsys.readouterr().out.splitlines()]

    p = Printer(["liu", "lee", "jung"], argparse.Namespace(json=True, quiet=False), StatusLine(str, enabled=False))
    p.done(report("lee"))
    out = capsys.readouterr()
    assert out.out == "" and "cdmasim: lee: 1 items, 1.0 s; reported after liu" in out.err
    p.done(report("liu"))
    assert printed() == ["liu", "lee"]
    p = Printer(["liu", "lee", "jung"], argparse.Namespace(json=True, quiet=False), StatusLine(str, enabled=False))
    p.done(report("jung"))
    capsys.readouterr()
    p.flush()               # liu failed: what is done still goes out, in order
    assert printed() == ["jung"]


def test_ctrl_c_during_liu_still_prints_the_papers_done(tmp_path, monkeypatch, capsys):
    """`reproduce all`: a Ctrl-C (or any error) while liu, analysed last,
    runs still prints the reports already done, in the papers' order."""
    from cdmasim import cli
    from cdmasim import reproduce as rp

    class NoAhead:
        def __init__(self, *a, **k):
            pass

        def close(self):
            pass

    def run(paper, out, **k):
        if paper == "liu":
            raise KeyboardInterrupt
        return {"paper": paper, "title": "", "items": [{"id": "x"}], "figures": [], "wall_s": 1.0, "summary": {},
                "aliases": {}, "pending": []}

    monkeypatch.setattr(rp, "Ahead", NoAhead)
    monkeypatch.setattr(rp, "run", run)
    assert cli.main(["reproduce", "all", "--json", "--out", str(tmp_path / "out")]) == 130
    out = capsys.readouterr()
    assert [json.loads(line)["paper"] for line in out.out.splitlines()] == ["lee", "paliwal", "jung", "dziong"]
    assert out.err.rstrip().endswith("cdmasim: interrupted")
