"""The HTML report: a static site with plots, detail tables and an episode viewer (see docs/report.md)."""

from suite.report.html.panels import curve, images, observation_diff
from suite.report.html.site import build_site, open_in_browser

__all__ = ["build_site", "curve", "images", "observation_diff", "open_in_browser"]
