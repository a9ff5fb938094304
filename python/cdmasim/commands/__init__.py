"""One module per CLI command group. Each defines `register(subparsers)`,
which adds its parser and sets `func`, and imports nothing heavy at module
level (the CLI imports every group at start-up)."""

GROUPS = ["run", "channel", "evdo", "pcap", "sweep", "reproduce", "model", "emulate", "examples", "docs"]
