#!/usr/bin/env python3
"""Lines of product code: the Rust of `src/`, `crates/` (but the lab, `crates/lab`, which is not
the product) and `python/src`, without the items under `#[cfg(test)]` (test modules and
test-only helpers) and without `tests/`, `benches/` and `examples/` folders. Comments and
blank lines count: they are code to read.

    python3 scripts/product-lines.py           # the total
    python3 scripts/product-lines.py --files   # per file, largest first
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRS = {"tests", "benches", "examples", "lab"}


def product_files():
    for base in ("src", "crates", "python/src"):
        for p in sorted((ROOT / base).rglob("*.rs")):
            rel = p.relative_to(ROOT)
            if base == "crates" and (set(rel.parts[2:3]) & SKIP_DIRS or rel.parts[1] == "lab"):
                continue
            yield p


def without_test_items(lines):
    """The lines left once every item after a `#[cfg(test)]` attribute is dropped."""
    out, i = [], 0
    while i < len(lines):
        if re.match(r"\s*#\[cfg\(test\)\]", lines[i]):
            # Skip the attribute, further attributes, then the item: to its `;` at depth 0 or
            # the end of its first braced block.
            i += 1
            depth, opened = 0, False
            while i < len(lines):
                code = re.sub(r"//.*", "", lines[i])
                code = re.sub(r'"(?:\\.|[^"\\])*"', '""', code)
                depth += code.count("{") - code.count("}")
                opened |= "{" in code
                i += 1
                if (opened and depth <= 0) or (not opened and code.rstrip().endswith(";")):
                    break
            continue
        out.append(lines[i])
        i += 1
    return out


def main():
    counts = []
    for p in product_files():
        n = len(without_test_items(p.read_text().splitlines()))
        counts.append((n, p.relative_to(ROOT)))
    if "--files" in sys.argv[1:]:
        for n, p in sorted(counts, reverse=True):
            print(f"{n:6} {p}")
    print(sum(n for n, _ in counts))


if __name__ == "__main__":
    main()
