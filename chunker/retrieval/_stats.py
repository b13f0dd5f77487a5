"""Is a difference between two settings real? Means, spreads and a paired bootstrap, standard
library only (the page has no numpy).

Spread
    The standard deviation over the questions is the population one (divided by n, not n - 1),
    as numpy's ``std`` and Chroma's ``*_std`` report it. It says how much questions differ
    from one another, not how sure the mean is.

Paired bootstrap
    Two settings scored on the same questions give, per question, the difference
    d_i = b_i - a_i. The observed difference is the mean of the d_i. A resample draws n
    question indices with replacement; the same draw applies to both settings (the pairing:
    a hard question stays hard in both), so it is the d_i that are resampled. The interval is
    the percentile interval of the resamples' means: the (1 - confidence) / 2 and
    (1 + confidence) / 2 quantiles, linearly interpolated between order statistics (numpy's
    default, Hyndman and Fan's type 7).

    The draws are ``random.Random(seed).choices(range(n), k=n)``, one list per resample, in
    order: the same seed gives the same interval in CPython and in the page's Pyodide, and
    every comparison of a sweep uses the same draws. Identical settings give d_i = 0, so every
    resample's mean is 0 and the interval is exactly [0, 0]. A bound (or the difference)
    within 1e-12 of 0 is 0: what is left of sums that cancel, not a difference.

    An interval that does not contain 0 says the difference is larger than the questions'
    noise; one that contains 0 says these questions cannot tell the two settings apart (more
    questions would narrow it).
"""

from __future__ import annotations

import math
import random
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import ChunkerError, shown

__all__ = ["Interval", "mean_std", "paired_bootstrap", "Resamples", "RESAMPLES", "CONFIDENCE", "SEED"]

RESAMPLES = 2000
CONFIDENCE = 0.95
SEED = 0
_ZERO = 1e-12  # far below any difference a metric over characters can show
_KEEP = 4_000_000  # indices kept between comparisons: 16 MB


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the population standard deviation; (0.0, 0.0) for no values.

    >>> mean_std([1.0, 0.0, 1.0, 0.0])
    (0.5, 0.5)
    """
    n = len(values)
    if n == 0:
        return 0.0, 0.0
    mean = math.fsum(values) / n
    return mean, math.sqrt(math.fsum((v - mean) ** 2 for v in values) / n)


@dataclass(frozen=True)
class Interval:
    """A paired bootstrap interval on the mean difference of a metric, b minus a."""

    metric: str
    difference: float
    low: float
    high: float
    confidence: float = CONFIDENCE

    @property
    def excludes_zero(self) -> bool:
        """True when the interval lies wholly above or below 0: the difference is real at this
        confidence, not the questions' noise."""
        return self.low > 0 or self.high < 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "difference": self.difference,
            "low": self.low,
            "high": self.high,
            "excludes_zero": self.excludes_zero,
        }


MAX_RESAMPLES = 1_000_000
"""A bootstrap's time grows with its resamples: 10**20 would never end, and past a few
thousand an interval's bounds no longer move."""


def _checked(resamples: int, confidence: float, seed: int) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, int) or not 1 <= resamples <= MAX_RESAMPLES:
        raise ChunkerError(
            f"resamples must be a whole number from 1 to {MAX_RESAMPLES:,} ({RESAMPLES:,} is the default), "
            f"got {shown(resamples, 40)}"
        )
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise ChunkerError(f"confidence must be a number between 0 and 1 (0.95 for 95%), got {confidence!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ChunkerError(f"seed must be a whole number, got {seed!r}")


def _snapped(x: float) -> float:
    """0 for a value within `_ZERO` of it: sums of differences that cancel leave a rounding
    residue (0.3 - 0.1 - 0.2 is -2.8e-17), which must not read as an interval that excludes 0."""
    return 0.0 if abs(x) < _ZERO else x


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Type 7: linear between the order statistics either side of q * (m - 1)."""
    at = q * (len(ordered) - 1)
    lo = math.floor(at)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (at - lo)


class Resamples:
    """The bootstrap draws for n questions, made once and shared by every comparison of the
    same questions (a sweep compares each of its rows with the best on the same draws)."""

    def __init__(self, n: int, *, resamples: int = RESAMPLES, seed: int = SEED) -> None:
        _checked(resamples, CONFIDENCE, seed)
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ChunkerError(f"a bootstrap needs at least one question, got {n!r}")
        self.n, self.resamples, self.seed = n, resamples, seed
        # Kept while they are small (4 bytes an index); past that each comparison draws them
        # again from the seed, the same draws, so memory stays bounded whatever n is.
        self._kept = list(self._draw()) if n * resamples <= _KEEP else None

    def _draw(self) -> Iterator[array[int]]:
        rng, population, n = random.Random(self.seed), range(self.n), self.n
        for _ in range(self.resamples):
            yield array("i", rng.choices(population, k=n))

    def draws(self) -> Iterator[array[int]] | list[array[int]]:
        """The resamples' question indices, one array per resample, in drawing order."""
        return self._kept if self._kept is not None else self._draw()

    def interval(self, metric: str, a: Sequence[float], b: Sequence[float], *, confidence: float = CONFIDENCE) -> Interval:
        """The interval on mean(b) - mean(a), paired by question."""
        _checked(self.resamples, confidence, 0)
        if len(a) != self.n or len(b) != self.n:
            raise ChunkerError(
                f"a paired comparison needs both settings scored on the same {self.n} questions, got {len(a)} and {len(b)}"
            )
        d = [y - x for x, y in zip(a, b)]
        n = self.n
        take = d.__getitem__
        means = sorted(sum(map(take, draw)) / n for draw in self.draws())
        tail = (1 - confidence) / 2
        low, high = _quantile(means, tail), _quantile(means, 1 - tail)
        return Interval(metric, _snapped(sum(d) / n), _snapped(low), _snapped(high), confidence)


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    *,
    metric: str = "",
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Interval:
    """The paired bootstrap interval on mean(b) - mean(a), where a[i] and b[i] are the same
    question's scores under two settings.

    >>> iv = paired_bootstrap([0.0, 0.5, 1.0, 0.5], [0.5, 0.5, 1.0, 1.0], metric="recall")
    >>> iv.difference, iv.low <= iv.difference <= iv.high
    (0.25, True)
    >>> paired_bootstrap([0.2, 0.7], [0.2, 0.7])  # the same scores: no difference at all
    Interval(metric='', difference=0.0, low=0.0, high=0.0, confidence=0.95)
    """
    _checked(resamples, confidence, seed)
    if len(a) != len(b):
        raise ChunkerError(f"a paired comparison needs the same questions on both sides, got {len(a)} and {len(b)} scores")
    return Resamples(len(a), resamples=resamples, seed=seed).interval(metric, a, b, confidence=confidence)
