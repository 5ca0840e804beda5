"""The core's default configuration (default.yaml), shipped as package data of `suite.configs`; each benchmark's
section ships with its plugin (`BenchmarkSpec.config_defaults`)."""
