"""The HTML report: a static site with plots, detail tables and an episode viewer (see docs/report.md)."""

from suite.report.html.episodes import observation_diff
from suite.report.html.site import build_site, open_in_browser

__all__ = ["build_site", "observation_diff", "open_in_browser"]
