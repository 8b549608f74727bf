"""Placing the items of one rank as near their wished positions as the gaps allow."""

from __future__ import annotations

import itertools

__all__ = ["spaced_isotonic"]


def spaced_isotonic(desired: list[float], weights: list[float], gaps: list[float]) -> list[float]:
    """Positions closest to ``desired`` (weighted least squares) with ``x[i+1] - x[i] >= gaps[i]``.

    Shifting out the gaps turns this into isotonic regression, solved exactly by the pool
    adjacent violators algorithm in linear time.
    """
    offsets = list(itertools.accumulate(gaps, initial=0.0))
    # Blocks of pooled items, as parallel stacks: total weight, weighted sum, item count.
    block_weight: list[float] = []
    block_sum: list[float] = []
    block_count: list[int] = []
    for want, weight, offset in zip(desired, weights, offsets, strict=True):
        w, total, count = weight, weight * (want - offset), 1
        while block_weight and block_sum[-1] * w >= total * block_weight[-1]:
            w += block_weight.pop()
            total += block_sum.pop()
            count += block_count.pop()
        block_weight.append(w)
        block_sum.append(total)
        block_count.append(count)
    out: list[float] = []
    for w, total, count in zip(block_weight, block_sum, block_count, strict=True):
        out += [total / w] * count
    return [value + offset for value, offset in zip(out, offsets, strict=True)]
