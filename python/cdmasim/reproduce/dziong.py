"""Dziong et al.: web browsing over an IS-2000 (cdma2000) system, page
download times and sector throughput from a detailed system simulation.

Not built yet: cdmasim has no IS-2000 cell (supplemental-channel
assignment, radio resource management, many users with a web traffic
model). Rather than print numbers from a model that does not exist, the
report has no items and says so; the IS-2000 issue adds its items here
(ids `dziong.<figure or table>.<quantity>`)."""

TITLE = "Wireless Internet Access Using IS-2000 Third Generation System: A Performance and Capacity Study"
CITATION = ("Z. Dziong, F. Khan, K. Medepalli, S. Nanda, \"Wireless Internet Access Using IS-2000 Third Generation "
            "System: A Performance and Capacity Study\", Bell Labs, Lucent Technologies.")
PENDING = ["the IS-2000 system model (web browsing users, supplemental channels, radio resource management) "
           "is not built yet: it lands with the IS-2000 issue, which adds this paper's items"]


def reproduce(ctx):
    # Nothing runs: see the module docstring. The report shows PENDING.
    return None
