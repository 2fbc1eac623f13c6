"""axe-core in a page: inject it (from tests/webclient/node_modules, ``make axe``) and
list the violations of serious or critical impact, each as one readable line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"

#: Impacts that fail a test; "minor" and "moderate" ones are reported by axe but allowed.
FAILING = ("serious", "critical")


def violations(page: Page, impacts: tuple[str, ...] = FAILING) -> list[str]:
    """axe-core's violations on ``page`` as it is now, of the given impacts."""
    assert AXE.exists(), "axe-core is needed: make axe (npm ci under tests/webclient)"
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate(
        """async () => (await axe.run(document, { resultTypes: ["violations"] })).violations
          .map((v) => ({ id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map((n) => n.target.join(" ") + ": " + n.failureSummary) }))"""
    )
    return [
        f"{v['impact']} {v['id']} ({v['help']}): " + " | ".join(v["nodes"][:4])
        for v in found
        if v["impact"] in impacts
    ]
