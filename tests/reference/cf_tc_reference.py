#!/usr/bin/env python3
"""Independent reference computations for the tests of src/systems/codeforces.rs and
src/systems/topcoder.rs: a literal transcription of the published formulas (Codeforces blog
entry 20762 and its code; Topcoder's "Algorithm Competition Rating System" page), with plain
loops, Python's math.erf and statistics.NormalDist (Wichura's AS 241). Run: python3 <this file>.
"""
import math
from statistics import NormalDist


def java_div(a, b):
    """Java's integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def elo(ra, rb):
    """P(a beats b)."""
    return 1.0 / (1 + 10 ** ((rb - ra) / 400.0))


def codeforces(ratings, ranks, counts_self=False):
    """ratings: ints; ranks: 1-based Codeforces ranks (a tie at its worst place).
    counts_self: the seed of a candidate rating counts the player's own old rating, as the
    2015 published getSeed does (later re-implementations, and the default, leave it out)."""
    n = len(ratings)
    seeds = [1 + sum(elo(ratings[j], ratings[i]) for j in range(n) if j != i) for i in range(n)]

    def seed_of(r, me):
        return 1 + sum(elo(ratings[j], r) for j in range(n) if counts_self or j != me)

    needs, raw = [], []
    for i in range(n):
        mid = math.sqrt(ranks[i] * seeds[i])
        left, right = 1, 8000
        while right - left > 1:
            m = (left + right) // 2
            if seed_of(m, i) < mid:
                right = m
            else:
                left = m
        needs.append(left)
        raw.append(java_div(left - ratings[i], 2))
    inc = java_div(-sum(raw), n) - 1
    d1 = [d + inc for d in raw]
    order = sorted(range(n), key=lambda i: -ratings[i])  # stable
    count = min(n, 4 * round(math.sqrt(n)))
    inc2 = min(max(java_div(-sum(d1[i] for i in order[:count]), count), -10), 0)
    final = [d + inc2 for d in d1]
    return dict(seeds=seeds, needs=needs, raw=raw, inc=inc, inc2=inc2, delta=final,
                new=[r + d for r, d in zip(ratings, final)])


def topcoder(coders, aranks):
    """coders: (rating, volatility, times_played); aranks: 1-based, ties averaged."""
    n = len(coders)
    inv = NormalDist().inv_cdf
    ave = sum(c[0] for c in coders) / n
    cf = math.sqrt(sum(c[1] ** 2 for c in coders) / n
                   + sum((c[0] - ave) ** 2 for c in coders) / (n - 1))
    out = []
    for (r, v, t), arank in zip(coders, aranks):
        # WP of coder j over this one, summed over all coders (this one included).
        erank = 0.5 + sum(0.5 * (math.erf((rj - r) / math.sqrt(2 * (vj ** 2 + v ** 2))) + 1)
                          for rj, vj, _ in coders)
        eperf = -inv((erank - 0.5) / n)
        aperf = -inv((arank - 0.5) / n)
        perf_as = r + cf * (aperf - eperf)
        w = 1 / (1 - (0.42 / (t + 1) + 0.18)) - 1
        if 2000 <= r <= 2500:
            w *= 0.9
        elif r > 2500:
            w *= 0.8
        cap = 150 + 1500 / (t + 2)
        tried = (r + w * perf_as) / (1 + w)
        new = min(max(tried, r - cap), r + cap)
        vol = math.sqrt((tried - r) ** 2 / w + v ** 2 / (w + 1))
        out.append(dict(erank=erank, eperf=eperf, aperf=aperf, perf_as=perf_as, w=w, cap=cap,
                        tried=tried, new=new, vol=vol))
    return ave, cf, out


def show(title, d):
    print(title)
    for k, v in d.items():
        print(f"  {k}: {v!r}")


if __name__ == "__main__":
    show("CF fresh 1500 x3, ranks 1 2 3", codeforces([1500] * 3, [1, 2, 3]))
    show("CF fresh, counts_self (2015 code)", codeforces([1500] * 3, [1, 2, 3], True))
    show("CF 2000 1600 1400, ranks 2 3 1", codeforces([2000, 1600, 1400], [2, 3, 1]))
    show("CF 2000 1600 1400, ranks 2 3 1, counts_self",
         codeforces([2000, 1600, 1400], [2, 3, 1], True))
    show("CF 2000 1600 1400, ranks 3 3 1 (tie), counts_self",
         codeforces([2000, 1600, 1400], [3, 3, 1], True))
    for counts_self in (True, False):
        r = codeforces([4000] + [1500] * 300, list(range(1, 302)), counts_self)
        print("CF 4000 among 300 x 1500 wins, counts_self", counts_self, r["needs"][0], r["delta"][0])
    r = codeforces([1500] * 20 + [1510] * 40 + [1500] * 40, list(range(1, 101)))
    print("CF adjustments 1", r["inc"], r["inc2"], sum(r["raw"]),
          [r["delta"][i] for i in (0, 19, 20, 59, 60, 99)], sum(r["delta"]))
    r = codeforces([1600] * 40 + [1500] * 60, list(range(1, 101)))
    print("CF adjustments 2", r["inc"], r["inc2"], [r["delta"][i] for i in (0, 39, 40, 99)])
    r = codeforces([7900, 7800, 7700], [1, 2, 3])
    print("CF beyond 8000 (the published search would stop at 7999):", r["needs"][0])
    for title, coders, ar in [
        ("TC newcomers x3, ranks 1 2 3", [(1200, 535, 0)] * 3, [1, 2, 3]),
        ("TC given, ranks 3 1 2", [(2100, 300, 10), (1500, 400, 3), (2600, 250, 20)], [3, 1, 2]),
        ("TC given, tie", [(2100, 300, 10), (1500, 400, 3), (2600, 250, 20)], [2.5, 1, 2.5]),
        ("TC cap", [(1000, 600, 50), (2400, 100, 60), (2450, 100, 60)], [1, 2, 3]),
    ]:
        ave, cf, out = topcoder(coders, ar)
        print(title, "ave", repr(ave), "cf", repr(cf))
        for o in out:
            print("  ", {k: v for k, v in o.items()})
