"""The cross-benchmark report: summary statistics, then rendering as a table, Markdown, CSV or JSON."""

from suite.report.render import render
from suite.report.summary import REPORT_FORMAT, summarize

__all__ = ["REPORT_FORMAT", "render", "summarize"]
