"""Landing arrangements (R8).

A group of ships lands on an island whose beaches have ``free`` moorings. An
arrangement says which colours each beach receives; ships in no beach's share
do not fit and go back to supply. Colours are kept as sorted tuples, so two
arrangements that differ only in which of two same-coloured ships went where
are the same arrangement.

:func:`arrangements` is the plain statement of R8.2 on colours. The engine
itself lands groups through :mod:`engine.cycles`, which deals colour counts
instead (faster, and packed for the R11 search); the tests hold the two to the
same arrangements in the same order.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations

Colours = tuple[str, ...]
Arrangement = tuple[Colours, ...]


def arrangements(group: Colours, free: Sequence[int]) -> Iterator[Arrangement]:
    """Every legal landing of ``group`` (sorted colours) on beaches with ``free`` moorings (R8.2).

    Exactly ``min(m, F)`` ships land, no beach gets more than its free moorings,
    and the number of beaches receiving a ship is ``min(min(m, F), |B|)``.
    """
    total = sum(free)
    landing = min(len(group), total)
    if landing == 0:
        yield tuple(() for _ in free)
        return
    counts: list[tuple[str, int]] = []
    for colour in group:
        if counts and counts[-1][0] == colour:
            counts[-1] = (colour, counts[-1][1] + 1)
        else:
            counts.append((colour, 1))
    for sizes in landing_sizes(free, landing):
        yield from _fill(sizes, 0, counts)


def landing_sizes(free: Sequence[int], landing: int) -> Iterator[tuple[int, ...]]:
    """How many ships each beach receives: every beach with room first, then any (R8.2)."""
    open_beaches = [i for i, f in enumerate(free) if f > 0]
    if landing <= len(open_beaches):
        for chosen in combinations(open_beaches, landing):
            sizes = [0] * len(free)
            for i in chosen:
                sizes[i] = 1
            yield tuple(sizes)
        return
    extra = [free[i] - 1 for i in open_beaches]
    for spread in _spread(extra, 0, landing - len(open_beaches)):
        sizes = [0] * len(free)
        for i, more in zip(open_beaches, spread, strict=True):
            sizes[i] = 1 + more
        yield tuple(sizes)


def _spread(room: list[int], at: int, left: int) -> Iterator[tuple[int, ...]]:
    """Ways to share ``left`` ships among ``room[at:]`` without exceeding any."""
    if at == len(room) - 1:
        if left <= room[at]:
            yield (left,)
        return
    for here in range(min(left, room[at]), -1, -1):
        if left - here <= sum(room[at + 1 :]):
            for rest in _spread(room, at + 1, left - here):
                yield (here, *rest)


def _fill(sizes: tuple[int, ...], at: int, counts: list[tuple[str, int]]) -> Iterator[Arrangement]:
    """Deal the colours in ``counts`` to the beaches from ``at`` on, ``sizes[i]`` each."""
    if at == len(sizes):
        yield ()
        return
    for share, rest in _take(counts, sizes[at]):
        for tail in _fill(sizes, at + 1, rest):
            yield (share, *tail)


def _take(
    counts: list[tuple[str, int]], size: int
) -> Iterator[tuple[Colours, list[tuple[str, int]]]]:
    """Every sub-multiset of ``size`` ships from ``counts``, with what remains."""
    if size == 0:
        yield (), counts
        return
    if not counts:
        return
    (colour, have), tail = counts[0], counts[1:]
    if sum(n for _, n in tail) + have < size:
        return
    for used in range(min(have, size), -1, -1):
        for share, rest in _take(tail, size - used):
            left = [(colour, have - used), *rest] if have > used else rest
            yield (colour,) * used + share, left
