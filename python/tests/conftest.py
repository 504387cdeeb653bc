"""Fixtures of the Python package's tests: the program to compare with, and the shared data
sets (tests that need them say that they skipped when ``../shared/datasets`` is absent)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "datasets"


def _cli() -> Path:
    """The rate-batch program: $RATE_BATCH_CLI, else the newest build under the target folder
    ($CARGO_TARGET_DIR or the repository's target/)."""
    if os.environ.get("RATE_BATCH_CLI"):
        return Path(os.environ["RATE_BATCH_CLI"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    found = [target / p / "rate-batch" for p in ("release", "debug")]
    found = [p for p in found if p.exists()]
    if not found:
        pytest.fail(
            f"no rate-batch program under {target}: build it (cargo build) or set RATE_BATCH_CLI"
        )
    return max(found, key=lambda p: p.stat().st_mtime)


@pytest.fixture(scope="session")
def cli():
    program = _cli()

    def run(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run([str(program), *map(str, args)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done

    return run


@pytest.fixture(scope="session")
def shared() -> Path:
    if not SHARED.is_dir():
        print(f"\nSKIPPED: {SHARED} is absent: the tests on the shared data sets did not run")
        pytest.skip(f"{SHARED} is absent")
    return SHARED


@pytest.fixture(scope="session")
def codeforces(shared: Path, tmp_path_factory) -> Path:
    """The first 150 contests of the shared Codeforces folder (the whole set takes minutes in
    a debug build; these are its files as published)."""
    folder = tmp_path_factory.mktemp("codeforces")
    for i in range(150):
        shutil.copy(shared / "codeforces" / f"{i}.json", folder / f"{i}.json")
    return folder
