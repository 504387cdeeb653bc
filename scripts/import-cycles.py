#!/usr/bin/env python3
"""Import circles between the Rust files of one folder.

Reads every `.rs` file under the crates' source folders, finds the paths each names
(`use crate::a::b`, `super::b`, `crate::a::b::f(...)` written inline), resolves them to the
file that defines that module, and lists every circle among the files of one folder (a file
that names a sibling which, directly or through other siblings, names it back). A module's
`mod.rs` naming its own children is not an import. Exits 1 when there is a circle.

    python3 scripts/import-cycles.py            # every crate of the workspace
    python3 scripts/import-cycles.py src        # one source folder
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_GROUP = re.compile(r"\buse\s+(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\}", re.S)


def source_roots(args):
    if args:
        return [ROOT / a for a in args]
    roots = [ROOT / "src"]
    roots += sorted(p for p in (ROOT / "crates").glob("*/src"))
    roots += [ROOT / "python" / "src"] if (ROOT / "python" / "src" / "lib.rs").exists() else []
    return roots


def module_of(path, root):
    """The module path of a file: src/jobs/tune.rs -> ["jobs", "tune"], src/jobs/mod.rs -> ["jobs"]."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return parts


def code_of(text):
    """The text without comments and the test module (from its `#[cfg(test)]`)."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    cut = re.search(r"^#\[cfg\(test\)\]", text, re.M)
    return text[: cut.start()] if cut else text


def named_paths(code, here):
    """Absolute module paths (lists of names) that the code names."""
    found = []

    def absolute(head, tail):
        if head == "crate":
            return tail
        if head == "self":
            return here + tail
        base = here[:-1]
        while tail and tail[0] == "super":
            base, tail = base[:-1], tail[1:]
        return base + tail

    for m in PATH.finditer(code):
        tail = [t for t in m.group(2).split("::") if t]
        found.append(absolute(m.group(1), tail))
    for m in USE_GROUP.finditer(code):
        prefix = [t for t in m.group(2).split("::") if t]
        for item in re.split(r",", m.group(3)):
            first = item.strip().split("::")[0].split(" ")[0]
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", first or ""):
                found.append(absolute(m.group(1), prefix + [first]))
    return found


def main():
    circles = []
    for root in source_roots(sys.argv[1:]):
        files = {tuple(module_of(p, root)): p for p in root.rglob("*.rs")}
        edges = {}
        for mod, path in files.items():
            deps = set()
            for target in named_paths(code_of(path.read_text()), list(mod)):
                # The longest prefix that is a file's module.
                for k in range(len(target), 0, -1):
                    t = tuple(target[:k])
                    if t in files:
                        break
                else:
                    continue
                if t == mod or t == mod[: len(t)]:
                    continue  # itself, or a module it lies in
                deps.add(t)
            edges[mod] = deps
        # Per folder: the files whose module's parent is that folder's module.
        folders = {}
        for mod in files:
            if mod:
                folders.setdefault(mod[:-1], []).append(mod)
        for folder, members in sorted(folders.items()):
            inside = set(members)

            def sibling(t):
                # A module within a sibling counts as the sibling.
                for m in inside:
                    if t[: len(m)] == m:
                        return m
                return None

            graph = {m: {s for t in edges[m] if (s := sibling(t)) and s != m} for m in members}
            circles += [(root, c) for c in strongly_connected(graph) if len(c) > 1]
    for root, c in circles:
        names = sorted("/".join(m) for m in c)
        print(f"import circle in {root.relative_to(ROOT)}: " + " <-> ".join(names))
    if circles:
        return 1
    print("no import circle between the files of any folder")
    return 0


def strongly_connected(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    sys.exit(main())
