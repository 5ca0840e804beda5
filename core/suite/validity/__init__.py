"""Shortcut baselines (the generic ones and a benchmark's own) and the audit that holds each to its ceiling. May
import everything up to `suite.launch`."""
