"""A calibrated logistic model as data: p = sigmoid(bias + weights · (x - mean) / scale).

The relevance gate (search/relevance.py) and the content check (capture/sensitive.py) keep
their fitted models in JSON beside them; benchmark scripts fit them (bench/), the host only
applies them. Fitting is here too, so every script and test fits the same way.
This module must never read a file: callers load the JSON and pass the dict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Logistic:
    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """One probability per row of `x` (its columns: `features`)."""
        z = self.bias + ((np.atleast_2d(x) - self.mean) / self.scale) @ self.weights
        return 1.0 / (1.0 + np.exp(-np.clip(z, -60.0, 60.0)))

    def row(self, values: Mapping[str, float]) -> np.ndarray:
        return np.array([float(values[f]) for f in self.features])

    def probability(self, values: Mapping[str, float]) -> float:
        return float(self.probabilities(self.row(values))[0])

    def contributions(self, values: Mapping[str, float]) -> dict[str, float]:
        """What each feature adds to the logit (to say why)."""
        parts = self.weights * (self.row(values) - self.mean) / self.scale
        return dict(zip(self.features, parts.tolist(), strict=True))

    def to_dict(self) -> dict:
        return {"features": list(self.features), "mean": self.mean.round(6).tolist(),
                "scale": self.scale.round(6).tolist(),
                "weights": self.weights.round(6).tolist(), "bias": round(self.bias, 6)}

    @classmethod
    def from_dict(cls, d: Mapping) -> Logistic:
        return cls(tuple(d["features"]), np.asarray(d["mean"], float),
                   np.asarray(d["scale"], float), np.asarray(d["weights"], float),
                   float(d["bias"]))


def fit(x: np.ndarray | Sequence[Mapping[str, float]], labels: Sequence[int],
        features: Sequence[str], *, sample_weight: Sequence[float] | None = None,
        class_weight: bool = False, l2: float = 1.0) -> Logistic:
    """Weighted logistic regression with an L2 penalty (Newton's method, standardised
    features; the bias is not shrunk). `x`: a matrix (columns `features`) or rows of
    named values; `class_weight`: each class weighs as much as the other in all."""
    if not isinstance(x, np.ndarray):
        x = np.array([[float(r[f]) for f in features] for r in x])
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    sw = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, np.float64)
    if class_weight and 0 < y.sum() < len(y):
        sw = sw * np.where(y == 1, len(y) / (2 * y.sum()), len(y) / (2 * (len(y) - y.sum())))
    mean = np.average(x, axis=0, weights=sw)
    scale = np.sqrt(np.average((x - mean) ** 2, axis=0, weights=sw))
    scale[scale < 1e-9] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    w = np.zeros(z.shape[1])
    penalty = np.eye(z.shape[1]) * l2
    penalty[0, 0] = 0.0
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -60, 60)))
        grad = z.T @ (sw * (p - y)) + penalty @ w
        hess = z.T @ (z * (sw * p * (1 - p))[:, None]) + penalty
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return Logistic(tuple(features), mean, scale, w[1:], float(w[0]))
