"""Ordering the items of each rank to reduce edge crossings (step 4 of the layout).

Items are ints; ``up[i]``/``down[i]`` list the items joined to ``i`` in the rank above and
below, ``pos[i]`` is ``i``'s index in its rank.
"""

from __future__ import annotations

import bisect

__all__ = ["by_barycenter", "crossings", "transpose"]


def by_barycenter(row: list[int], neighbours: list[list[int]], pos: list[int]) -> list[int]:
    """``row`` reordered by the mean position of each item's neighbours.

    Items without neighbours keep their slot; ties keep their current order.
    """
    keyed: list[tuple[float, int, int]] = []
    free: list[int] = []
    for p, item in enumerate(row):
        around = neighbours[item]
        if len(around) == 1:
            keyed.append((pos[around[0]], p, item))
        elif around:
            keyed.append((sum([pos[n] for n in around]) / len(around), p, item))
        else:
            free.append(p)
    keyed.sort()
    if not free:
        return [item for _, _, item in keyed]
    moved = iter([item for _, _, item in keyed])
    kept = set(free)
    return [row[p] if p in kept else next(moved) for p in range(len(row))]


def transpose(row: list[int], up: list[list[int]], down: list[list[int]], pos: list[int]) -> None:
    """Swap neighbours of ``row`` (in place) while a swap removes crossings."""
    for _ in range(4):
        improved = False
        for p in range(len(row) - 1):
            a, b = row[p], row[p + 1]
            before = after = 0
            for side in (up, down):
                for x in side[a]:
                    for y in side[b]:
                        if pos[x] > pos[y]:
                            before += 1
                        elif pos[x] < pos[y]:
                            after += 1
            if after < before:
                row[p], row[p + 1] = b, a
                pos[a], pos[b] = p + 1, p
                improved = True
        if not improved:
            return


def crossings(ranks: list[list[int]], down: list[list[int]], pos: list[int]) -> int:
    """How many pairs of segments cross between consecutive ranks.

    Segments are taken left to right by their upper end; each crosses every earlier one
    whose lower end lies strictly right of its own (an inversion count, kept with a sorted
    list: ``bisect`` and ``insort`` run in C, faster here than a tree in Python).
    """
    total = 0
    for row in ranks[:-1]:
        ends: list[int] = []
        for item in row:
            below = down[item]
            for p in (pos[below[0]],) if len(below) == 1 else sorted([pos[n] for n in below]):
                total += len(ends) - bisect.bisect_right(ends, p)
                bisect.insort(ends, p)
    return total
