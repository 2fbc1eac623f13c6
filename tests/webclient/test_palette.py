"""The palette for colour-blind players keeps the six seat colours apart.

Each colour is passed through a simulation of protanopia, deuteranopia and
tritanopia (Machado, Oliveira and Fernandes 2009, severity 1, applied in linear
sRGB), converted to CIELAB (D65) and compared pairwise with CIEDE2000 (Sharma,
Wu and Dalal 2005): every pair differs by at least 20. The palette is read from
the one place the colours are declared, ``webclient/static/js/ships.js``.
"""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import pytest

SHIPS = Path(__file__).resolve().parents[2] / "webclient" / "static" / "js" / "ships.js"
SEATS = ("yellow", "orange", "red", "green", "blue", "purple")
LEAST = 20.0

Vector = tuple[float, float, float]
Matrix = tuple[Vector, Vector, Vector]

#: Machado et al. 2009, Table 1, severity 1.0 (linear RGB in, linear RGB out).
MACHADO: dict[str, Matrix] = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}


def palettes() -> dict[str, dict[str, str]]:
    """``PALETTES`` of ships.js: palette name -> seat colour -> "#rrggbb"."""
    text = SHIPS.read_text(encoding="utf-8")
    block = text[text.index("export const PALETTES") :]
    block = block[: block.index("\n};")]
    found: dict[str, dict[str, str]] = {}
    for name, body in re.findall(r"(\w+): \{([^}]*)\}", block):
        found[name] = dict(re.findall(r'(\w+): "(#[0-9a-fA-F]{6})"', body))
    return found


def linear(hex_colour: str) -> Vector:
    """sRGB "#rrggbb" to linear RGB in 0..1."""

    def one(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return one(r), one(g), one(b)


def simulate(rgb: Vector, matrix: Matrix) -> Vector:
    """What a dichromat sees of linear ``rgb`` (clipped to the gamut)."""
    r, g, b = (
        min(1.0, max(0.0, row[0] * rgb[0] + row[1] * rgb[1] + row[2] * rgb[2])) for row in matrix
    )
    return r, g, b


def lab(rgb: Vector) -> Vector:
    """Linear sRGB to CIELAB (D65 white)."""
    r, g, b = rgb
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def ciede2000(one: Vector, two: Vector) -> float:
    """The CIEDE2000 colour difference of two CIELAB colours (kL = kC = kH = 1)."""
    l1, a1, b1 = one
    l2, a2, b2 = two
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl, dc = l2 - l1, c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    elif abs(h2p - h1p) <= 180:
        dh = h2p - h1p
    else:
        dh = h2p - h1p - 360 if h2p - h1p > 180 else h2p - h1p + 360
    big_dh = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_mean, cp_mean = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_mean = (h1p + h2p) / 2
    else:
        h_mean = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_mean - 30))
        + 0.24 * math.cos(math.radians(2 * h_mean))
        + 0.32 * math.cos(math.radians(3 * h_mean + 6))
        - 0.20 * math.cos(math.radians(4 * h_mean - 63))
    )
    rotation = 30 * math.exp(-(((h_mean - 275) / 25) ** 2))
    rc = 2 * math.sqrt(cp_mean**7 / (cp_mean**7 + 25**7))
    sl = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    sc = 1 + 0.045 * cp_mean
    sh = 1 + 0.015 * cp_mean * t
    rt = -math.sin(math.radians(2 * rotation)) * rc
    return math.sqrt(
        (dl / sl) ** 2 + (dc / sc) ** 2 + (big_dh / sh) ** 2 + rt * (dc / sc) * (big_dh / sh)
    )


@pytest.mark.parametrize(
    ("one", "two", "expected"),
    [  # Sharma, Wu and Dalal's test data, pairs 1, 7, 17, 25 and 34.
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
        ((22.7233, 20.0904, -46.694), (23.0331, 14.973, -42.5619), 2.0373),
    ],
)
def test_ciede2000_matches_the_published_test_data(
    one: Vector, two: Vector, expected: float
) -> None:
    assert ciede2000(one, two) == pytest.approx(expected, abs=1e-4)
    assert ciede2000(two, one) == pytest.approx(expected, abs=1e-4)


def test_the_simulation_keeps_grey_grey_and_merges_red_and_green_for_deuteranopes() -> None:
    for name, matrix in MACHADO.items():
        grey = simulate(linear("#808080"), matrix)
        assert max(grey) - min(grey) < 0.01, name
    red, green = (lab(simulate(linear(c), MACHADO["deuteranopia"])) for c in ("#c0392b", "#27ae60"))
    assert ciede2000(red, green) < 20


def test_both_palettes_declare_the_six_seat_colours() -> None:
    found = palettes()
    assert set(found) == {"standard", "distinct"}
    for name, colours in found.items():
        assert tuple(colours) == SEATS, name


@pytest.mark.parametrize("vision", sorted(MACHADO))
def test_the_distinct_palette_keeps_every_pair_apart(vision: str) -> None:
    colours = palettes()["distinct"]
    seen = {c: lab(simulate(linear(value), MACHADO[vision])) for c, value in colours.items()}
    close = [
        (a, b, round(ciede2000(seen[a], seen[b]), 1))
        for a, b in itertools.combinations(SEATS, 2)
        if ciede2000(seen[a], seen[b]) < LEAST
    ]
    assert not close, f"{vision}: pairs closer than {LEAST}: {close}"


def test_the_distinct_palette_keeps_every_pair_apart_for_normal_vision() -> None:
    colours = {c: lab(linear(value)) for c, value in palettes()["distinct"].items()}
    assert (
        min(ciede2000(colours[a], colours[b]) for a, b in itertools.combinations(SEATS, 2)) >= LEAST
    )
