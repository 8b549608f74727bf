from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from graphnb.diagram.ordering import by_barycenter, crossings, transpose
from graphnb.diagram.placement import spaced_isotonic


@st.composite
def two_ranks(draw: st.DrawFn) -> tuple[list[list[int]], list[list[int]], list[int]]:
    """Two ranks of items and random segments between them."""
    top = draw(st.integers(1, 7))
    bottom = draw(st.integers(1, 7))
    upper = list(range(top))
    lower = list(range(top, top + bottom))
    down: list[list[int]] = [[] for _ in range(top + bottom)]
    for a in upper:
        down[a] = draw(st.lists(st.sampled_from(lower), max_size=3, unique=True))
    pos = [0] * (top + bottom)
    for row in (draw(st.permutations(upper)), draw(st.permutations(lower))):
        for p, item in enumerate(row):
            pos[item] = p
    ranks = [sorted(upper, key=pos.__getitem__), sorted(lower, key=pos.__getitem__)]
    return ranks, down, pos


def brute_crossings(ranks: list[list[int]], down: list[list[int]], pos: list[int]) -> int:
    segments = [(pos[a], pos[b]) for a in ranks[0] for b in down[a]]
    return sum(
        1 for (a1, b1), (a2, b2) in itertools.combinations(segments, 2) if (a1 - a2) * (b1 - b2) < 0
    )


@settings(max_examples=80, deadline=None)
@given(two_ranks())
def test_crossing_count_matches_counting_every_pair(
    case: tuple[list[list[int]], list[list[int]], list[int]],
) -> None:
    ranks, down, pos = case
    assert crossings(ranks, down, pos) == brute_crossings(ranks, down, pos)


@settings(max_examples=60, deadline=None)
@given(two_ranks())
def test_transpose_never_adds_crossings(
    case: tuple[list[list[int]], list[list[int]], list[int]],
) -> None:
    ranks, down, pos = case
    before = crossings(ranks, down, pos)
    up: list[list[int]] = [[] for _ in pos]
    for a in ranks[0]:
        for b in down[a]:
            up[b].append(a)
    items = sorted(ranks[1])
    transpose(ranks[1], up, down, pos)
    assert sorted(ranks[1]) == items
    assert [pos[i] for i in ranks[1]] == list(range(len(ranks[1])))
    assert crossings(ranks, down, pos) <= before


def test_barycenter_orders_by_neighbour_positions_and_keeps_free_slots() -> None:
    pos = [0, 1, 2, 0, 0, 0]
    neighbours = [[], [], [], [2], [], [0]]
    assert by_barycenter([3, 4, 5], neighbours, pos) == [5, 4, 3]


gaps_and_wishes = st.integers(1, 8).flatmap(
    lambda n: st.tuples(
        st.lists(st.floats(-500, 500), min_size=n, max_size=n),
        st.lists(st.floats(0.5, 50), min_size=n, max_size=n),
        st.lists(st.floats(0, 100), min_size=n - 1, max_size=n - 1),
    )
)


@settings(max_examples=100, deadline=None)
@given(gaps_and_wishes)
def test_spaced_placement_keeps_every_gap_and_beats_the_packed_row(
    case: tuple[list[float], list[float], list[float]],
) -> None:
    desired, weights, gaps = case
    xs = spaced_isotonic(desired, weights, gaps)
    for i, gap in enumerate(gaps):
        assert xs[i + 1] - xs[i] >= gap - 1e-6

    def cost(points: list[float]) -> float:
        return sum(w * (x - d) ** 2 for x, d, w in zip(points, desired, weights, strict=True))

    # The best packed row (every gap at its least) is feasible, so it cannot do better.
    offsets = list(itertools.accumulate(gaps, initial=0.0))
    shift = sum(w * (d - o) for d, o, w in zip(desired, offsets, weights, strict=True)) / sum(
        weights
    )
    assert cost(xs) <= cost([o + shift for o in offsets]) + 1e-6


def test_spaced_placement_leaves_a_feasible_wish_alone() -> None:
    assert spaced_isotonic([0.0, 50.0, 200.0], [1.0, 1.0, 1.0], [40.0, 40.0]) == [0.0, 50.0, 200.0]
    assert spaced_isotonic([0.0, 10.0], [1.0, 1.0], [40.0]) == [-15.0, 25.0]
