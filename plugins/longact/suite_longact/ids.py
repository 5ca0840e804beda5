"""Opaque instance ids: the pack's ids (AI2-THOR style, `Mug|+01.20|+00.90|-00.30`) hold the object's starting
coordinates, which the paper's segmentation does not give. The env shows each instance under a per-episode id
`<Type>_<n>` (n counts the instances of that type in the order the agent first meets them) and maps it back when
an action names it, so the pack keeps its ids and the agent never sees them."""

from __future__ import annotations

from collections.abc import Iterable


class OpaqueIds:
    """The two-way map between the pack's instance ids and the ids the agent sees, for one episode."""

    def __init__(self, type_of: dict[str, str]) -> None:
        self.type_of = type_of
        self.public_of: dict[str, str] = {}
        self.private_of: dict[str, str] = {}
        self.count: dict[str, int] = {}

    def public(self, private: str) -> str:
        """The id the agent sees for a pack id (given on first use)."""
        found = self.public_of.get(private)
        if found is None:
            kind = self.type_of.get(private) or "Object"
            self.count[kind] = self.count.get(kind, 0) + 1
            found = f"{kind}_{self.count[kind]}"
            self.public_of[private], self.private_of[found] = found, private
        return found

    def private(self, public: str) -> str | None:
        """The pack id of an id the agent was shown, or None for an id it never saw."""
        return self.private_of.get(public)

    def scrub(self, text: str, known: Iterable[str]) -> str:
        """The text with every pack id of `known` that it names replaced by its public id (longest first)."""
        for private in sorted((k for k in known if k in text), key=len, reverse=True):
            if private in text:  # a shorter id may have gone with a longer one that holds it
                text = text.replace(private, self.public(private))
        return text
