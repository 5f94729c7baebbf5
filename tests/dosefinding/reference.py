"""An independent plain-NumPy reading of CLINICAL.md §1–§3: one trial at a time, Python loops, no JAX.

Written from the text, not from the JAX code: boundaries from SciPy's Beta, BOIN's isotonic fit as the
BOIN package's ``pava`` (leftmost violation first, pooled over the level set), the CRM's grid posterior
term by term. Each function takes one trial's tolerances ``u`` and returns (mtd, n, y).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import stats


def three_plus_three(u: np.ndarray, p: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    K = len(p)
    n, y = np.zeros(K, int), np.zeros(K, int)
    d, i = 0, 0
    while True:
        y[d] += sum(u[i + k] < p[d] for k in range(3))
        n[d] += 3
        i += 3
        if y[d] >= 2:
            return d, n, y  # MTD = (d+1) − 1
        if (n[d] == 3 and y[d] == 0) or (n[d] == 6 and y[d] <= 1):
            if d == K - 1:
                return K, n, y
            d += 1


def over(target: float, y: int, n: int) -> float:
    return 1.0 - stats.beta.cdf(target, y + 1, n - y + 1)


@functools.cache
def boin_bounds(target: float, N: int) -> tuple[dict[int, int], dict[int, int], dict[int, int | None]]:
    p1, p2 = 0.6 * target, 1.4 * target
    le = math.log((1 - p1) / (1 - target)) / math.log(target * (1 - p1) / (p1 * (1 - target)))
    ld = math.log((1 - target) / (1 - p2)) / math.log(p2 * (1 - target) / (target * (1 - p2)))
    e, b, x = {}, {}, {}
    for n in range(1, N + 1):
        e[n] = math.floor(le * n)
        r = round(ld * n)
        b[n] = r + 1 if abs(r - ld * n) < 1e-12 else math.ceil(ld * n)
        x[n] = None
        if n >= 3:
            for yy in range(1, n + 1):
                if over(target, yy, n) > 0.95:
                    x[n] = yy
                    break
        if x[n] is not None:
            b[n] = min(b[n], x[n])
    return e, b, x


def pava(x: np.ndarray, wt: np.ndarray) -> np.ndarray:
    x = np.array(x, dtype=float)
    levels = np.arange(len(x))
    while True:
        viol = np.nonzero(np.diff(x) < 0)[0]
        if viol.size == 0:
            return x
        i = viol[0]
        pooled = (levels == levels[i]) | (levels == levels[i + 1])
        x[pooled] = np.sum(x[pooled] * wt[pooled]) / np.sum(wt[pooled])
        levels[pooled] = levels[i]


def boin_select(n: np.ndarray, y: np.ndarray, target: float) -> int:
    K = len(n)
    E = K + 1
    for j in range(K):
        if n[j] >= 3 and over(target, y[j], n[j]) > 0.95:
            E = j + 1
            break
    if E == 1:
        return 0
    A = [j for j in range(E - 1) if n[j] > 0]
    q = np.array([(y[j] + 0.05) / (n[j] + 0.1) for j in A])
    v = np.array([(y[j] + 0.05) * (n[j] - y[j] + 0.05) / ((n[j] + 0.1) ** 2 * (n[j] + 1.1)) for j in A])
    fit = pava(q, 1.0 / v)
    best, where = math.inf, 0
    for k in range(len(A)):
        score = abs(fit[k] + (k + 1) * 1e-10 - target)
        if score < best:
            best, where = score, k
    return A[where] + 1


def boin(u: np.ndarray, p: np.ndarray, target: float, c: int, M: int, stop_at: int | None = None
         ) -> tuple[int, np.ndarray, np.ndarray]:
    K = len(p)
    e, b, x = boin_bounds(target, c * M)
    n, y = np.zeros(K, int), np.zeros(K, int)
    gone = np.zeros(K, bool)
    d = 0
    for m in range(M):
        y[d] += sum(u[m * c + k] < p[d] for k in range(c))
        n[d] += c
        if m == M - 1:
            break
        nd, yd = n[d], y[d]
        if x[nd] is not None and yd >= x[nd]:
            gone[d:] = True
            if d == 0:
                return 0, n, y
        up_blocked = d == K - 1 or gone[d + 1]
        if stop_at is not None and nd >= stop_at:
            if (e[nd] < yd < b[nd]) or (d == 0 and yd >= b[nd]) or (up_blocked and yd <= e[nd]):
                break
        if yd <= e[nd] and d < K - 1:
            if not gone[d + 1]:
                d += 1
        elif yd >= b[nd] and d > 0:
            d -= 1
    return boin_select(n, y, target), n, y


def skeleton(target: float, K: int, halfwidth: float = 0.05) -> np.ndarray:
    nu = math.ceil(K / 2)
    r = math.log(target - halfwidth) / math.log(target + halfwidth)
    s = [0.0] * K
    s[nu - 1] = target
    for k in range(nu - 1, 0, -1):
        s[k - 1] = math.exp(r * math.log(s[k]))
    for k in range(nu - 1, K - 1):
        s[k + 1] = math.exp(math.log(s[k]) / r)
    return np.array(s)


def crm_weights(n: np.ndarray, y: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = -10 + 0.01 * np.arange(2001)
    t = np.ones(2001)
    t[0] = t[-1] = 0.5
    logw = np.log(t) - a**2 / 2.68
    for j in range(len(s)):
        z = np.exp(a) * math.log(s[j])
        logw = logw + y[j] * z + (n[j] - y[j]) * np.log(-np.expm1(z))
    w = np.exp(logw - logw.max())
    return a, w / w.sum()


def crm(u: np.ndarray, p: np.ndarray, target: float, c: int, M: int, s: np.ndarray, start: int = 1,
        stop: bool = False, mean: bool = False) -> tuple[int, np.ndarray, np.ndarray]:
    K = len(p)
    n, y = np.zeros(K, int), np.zeros(K, int)
    d = start - 1
    rec = 0
    a_star = math.log(math.log(target) / math.log(s[0]))
    for m in range(M):
        dlt = sum(u[m * c + k] < p[d] for k in range(c))
        y[d] += dlt
        n[d] += c
        a, w = crm_weights(n, y, s)
        if mean:
            est = np.array([np.sum(w * s[j] ** np.exp(a)) for j in range(K)])
        else:
            est = s ** math.exp(np.sum(w * a))
        dist = np.abs(est - target)
        rec = int(np.argmin(dist))
        if stop and np.sum(w[a < a_star]) > 0.9:
            return 0, n, y
        nxt = min(rec, d + 1)
        if dlt / c >= target:
            nxt = min(nxt, d)
        d = nxt
    return rec + 1, n, y
