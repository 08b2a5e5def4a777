#!/usr/bin/env python3
"""Fits the detector's confidence model (calibration/vision.toml, [confidence]).

Input: evidence CSV files written by the ignored test `measure_rendered_sets`
(tests/detect_unseen.rs, SPOTTER_UNSEEN_CSV=...), one row per detection with
its model features (columns named as confidence::FEATURE_NAMES) and whether
the truth has a figure there (`real`). See fixtures/unseen/README.md.

Model: p = 1 / (1 + exp(-(bias + w . x))), fitted by Newton's method on the
mean log loss plus lam/2 |w|^2 (the bias not penalised). lam is chosen by
5-fold cross-validation from a fixed grid. A fold holds whole photo sets (a
photo's folder: one table and camera; folds in a fixed order, so the result
is reproducible), so the choice is judged on tables the fit did not see.
Prints the TOML lines and the calibration table (confidence bins against the
share of real figures) of the cross-validated and of the final fit.

    python3 scripts/fit-confidence.py [--lam L] tune.csv [more.csv ...]

--lam fits with that L2 weight instead of the one of least cross-validated
log loss (the grid's lines still print, to compare).
"""
import csv
import os
import sys

import numpy as np

FEATURES = [
    "score", "edge_share", "ln_rms_px", "ln_contrast", "band_width_off",
    "inside_band_like", "outside_band_like", "ln_px_per_in", "mounted", "faint",
]
GRID = [0.00003, 0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3]
FOLDS = 5
# calibration/vision.toml, confidence.min_report: figures under it are not reported.
MIN_REPORT = 0.5
BINS = [0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0001]


def load(paths):
    rows = []
    for p in paths:
        with open(p, newline="") as f:
            for r in csv.DictReader(f):
                rows.append((r["photo"], [float(r[n]) for n in FEATURES], int(r["real"])))
    return rows


def fit(x, y, lam, iters=100):
    n, k = x.shape
    a = np.hstack([np.ones((n, 1)), x])
    beta = np.zeros(k + 1)
    reg = np.full(k + 1, lam)
    reg[0] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(a @ beta)))
        g = a.T @ (p - y) / n + reg * beta
        h = (a.T * (p * (1 - p))) @ a / n + np.diag(reg) + 1e-9 * np.eye(k + 1)
        step = np.linalg.solve(h, g)
        beta -= step
        if np.abs(step).max() < 1e-10:
            break
    return beta


def predict(beta, x):
    return 1.0 / (1.0 + np.exp(-(beta[0] + x @ beta[1:])))


def log_loss(p, y):
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def table(p, y, title):
    print(title)
    print("confidence bin   figures  real  precision  mean conf")
    for lo, hi in zip(BINS, BINS[1:]):
        m = (p >= lo) & (p < hi)
        if m.sum():
            print(f"[{lo:.2f}, {min(hi, 1.0):.2f})     {m.sum():>6}  {int(y[m].sum()):>5}"
                  f"    {y[m].mean():.3f}      {p[m].mean():.3f}")


def cross_validated(x, y, folds, lam):
    """Each figure's probability from the fit on the other folds."""
    cv = np.zeros(len(y))
    for k in range(FOLDS):
        tr, te = folds != k, folds == k
        if te.sum():
            cv[te] = predict(fit(x[tr], y[tr], lam), x[te])
    return cv


def main():
    args = sys.argv[1:]
    forced = None
    if len(args) >= 2 and args[0] == "--lam":
        forced, args = float(args[1]), args[2:]
    rows = load(args)
    if not rows:
        sys.exit("usage: fit-confidence.py [--lam L] evidence.csv [...]")
    photos = sorted({r[0] for r in rows})
    sets = sorted({os.path.dirname(ph) for ph in photos})
    fold_of = {ph: sets.index(os.path.dirname(ph)) % FOLDS for ph in photos}
    x = np.array([r[1] for r in rows])
    y = np.array([r[2] for r in rows], dtype=float)
    folds = np.array([fold_of[r[0]] for r in rows])
    best = None
    for lam in GRID:
        cv = cross_validated(x, y, folds, lam)
        loss = log_loss(cv, y)
        lost = int(((cv < MIN_REPORT) & (y == 1)).sum())
        false = int(((cv >= MIN_REPORT) & (y == 0)).sum())
        print(f"lam {lam}: cross-validated log loss {loss:.4f}; "
              f"real under {MIN_REPORT}: {lost}, false at or over it: {false}")
        if best is None or loss < best[0]:
            best = (loss, lam, cv)
    if forced is not None:
        cv = cross_validated(x, y, folds, forced)
        best = (log_loss(cv, y), forced, cv)
    loss, lam, cv = best
    beta = fit(x, y, lam)
    print(f"\n{len(y)} figures ({int(y.sum())} real) of {len(photos)} photos "
          f"in {len(sets)} sets; L2 {lam}")
    print(f"bias = {beta[0]:.4f}")
    print("weights = [" + ", ".join(f"{w:.4f}" for w in beta[1:]) + "]")
    table(cv, y, "\ncross-validated:")
    table(predict(beta, x), y, "\nfinal fit, in sample:")


if __name__ == "__main__":
    main()
