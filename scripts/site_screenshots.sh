#!/usr/bin/env bash
# Screenshots of a leaderboard website (`index.html` and the first player page) with headless
# Chromium, and a check that the pages have their table and chart.
#
#   scripts/site_screenshots.sh SITE_DIR OUT_DIR
#
# Writes OUT_DIR/index.png and OUT_DIR/player.png (1280x900). The browser is the first of
# $CHROME, chromium, chromium-browser, google-chrome, headless_shell found; without one the
# screenshots are skipped (exit 0) and only the grep checks run. Exits non-zero when a page
# lacks what it must have or a screenshot is missing or empty.
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: $0 SITE_DIR OUT_DIR" >&2
    exit 2
fi
site=$1
out=$2

fail() {
    echo "error: $*" >&2
    exit 1
}

[[ -d $site ]] || fail "no such folder: $site"
index=$site/index.html
[[ -f $index ]] || fail "no index.html in $site"

# The first player page: the one the leaderboard's first row links to, else any.
player=""
first_link=$(grep -o 'href="players/[0-9]*/[0-9]*\.html"' "$index" | head -n 1 || true)
if [[ -n $first_link ]]; then
    player=$site/${first_link#href=\"}
    player=${player%\"}
fi
if [[ -z $player || ! -f $player ]]; then
    player=$(find "$site/players" -name '*.html' -type f 2>/dev/null | sort | head -n 1 || true)
fi
[[ -n $player && -f $player ]] || fail "no player page in $site/players"

grep -q '<table' "$index" || fail "$index has no <table"
grep -q '<svg' "$player" || fail "$player has no <svg"
grep -q '<polyline' "$player" || fail "$player has no <polyline"
echo "checked: $index has a table; $player has an svg chart with a polyline"

browser=""
for name in "${CHROME:-}" chromium chromium-browser google-chrome headless_shell; do
    if [[ -n $name ]] && command -v "$name" >/dev/null 2>&1; then
        browser=$name
        break
    fi
done
if [[ -z $browser ]]; then
    echo "skipped: no Chromium found"
    exit 0
fi

mkdir -p "$out"
log=$(mktemp)
profile=$(mktemp -d)
trap 'rm -rf "$log" "$profile"' EXIT

shoot() { # page png
    local page png
    page=$(realpath "$1")
    png=$(realpath -m "$2")
    rm -f "$png"
    # Chromium logs harmless D-Bus and GPU complaints on a headless machine; shown on failure.
    if ! "$browser" --headless --disable-gpu --no-sandbox --hide-scrollbars \
        --user-data-dir="$profile" --screenshot="$png" --window-size=1280,900 \
        "file://$page" >"$log" 2>&1; then
        cat "$log" >&2
        fail "$browser failed on $page"
    fi
    [[ -s $png ]] || { cat "$log" >&2; fail "$browser wrote no screenshot of $page"; }
    echo "wrote $png"
}

shoot "$index" "$out/index.png"
shoot "$player" "$out/player.png"

# The pages as the browser built them: the table has rows, the chart its line.
dom() { # page
    "$browser" --headless --disable-gpu --no-sandbox --user-data-dir="$profile" \
        --dump-dom "file://$(realpath "$1")" 2>"$log"
}
rows=$(dom "$index" | grep -o '<tr' | wc -l)
[[ $rows -gt 1 ]] || fail "the browser found no table rows in $index"
dom "$player" | grep -q '<polyline' || fail "the browser found no chart line in $player"
for png in "$out/index.png" "$out/player.png"; do
    [[ $(stat -c %s "$png") -gt 10000 ]] || fail "$png is too small to show a page"
done
echo "browser: $index shows $((rows - 1)) table rows; $player shows its chart"
