"""The CLI's progress bar: silent for short runs and off terminals."""

import io

from cdmasim.progress import ProgressBar


class FakeTty(io.StringIO):
    def isatty(self):
        return True


def test_bar_waits_half_a_second_then_draws_and_clears():
    s = FakeTty()
    bar = ProgressBar(stream=s)
    assert bar(1.0, 10.0) is True
    assert s.getvalue() == ""  # too early: short runs print nothing
    bar.t0 -= 1.0
    bar(2.5, 10.0)
    text = s.getvalue()
    assert text.startswith("\r[" + "#" * 7 + "." * 23 + "]") and " 25.0%" in text
    assert "2.5/10.0 s simulated" in text
    bar.close()
    assert s.getvalue().endswith("\r")


def test_bar_is_silent_when_not_a_terminal():
    s = io.StringIO()
    bar = ProgressBar(stream=s)
    bar.t0 -= 10
    bar(5.0, 10.0)
    bar.close()
    assert s.getvalue() == ""
