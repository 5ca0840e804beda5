"""The generator of AgentVQA's generated pack: questions with certain answers, made with the household simulator.

Run `python -m suite_agentvqa.packgen --out DIR --seed N`. The pack is labelled everywhere as generated: it is
not, and never stands in for, the official AgentVQA data."""

#: Bumped whenever the generator's output changes for a given seed.
GENERATOR_VERSION = "4"
