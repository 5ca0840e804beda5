"""Which data a benchmark runs on: data directories, `suite data pull`, the official-data check, seeded sampling.
May import `suite.contract`."""
