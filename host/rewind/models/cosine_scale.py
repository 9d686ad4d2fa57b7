"""One model's cosines on the reference scale, MiniLM's: the scale the answer's thresholds
and the relevance gate were fitted on.

multilingual-e5-small packs every pair into 0.7-1.0 where MiniLM spreads them over -0.1-0.8;
a threshold fitted on one says nothing on the other. The map is linear, through each model's
own "medium" and "high" confidence points (models.json): on the answer fixtures' questions and
passages least squares between the two models' cosines gave the same line (docs/benchmarks.md).
This module must never read anything but the numbers it is given.
"""

from __future__ import annotations

from .specs import Confidence

REFERENCE = Confidence(high=0.55, medium=0.40)  # all-minilm-l6-v2-int8's (models.json)


def calibrated(scale: Confidence | None, cosine):
    """`cosine` (a float or an array) of the model whose confidence points are `scale`, on
    the reference scale; unchanged for the reference model and when the scale is unknown."""
    if scale is None or scale == REFERENCE:
        return cosine
    slope = (REFERENCE.high - REFERENCE.medium) / (scale.high - scale.medium)
    return REFERENCE.medium + (cosine - scale.medium) * slope
