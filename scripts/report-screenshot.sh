#!/usr/bin/env bash
# Takes a full-page PNG screenshot of a report (report.html) with headless Chromium, to check
# its layout without a desktop browser.
#
#   scripts/report-screenshot.sh REPORT.html OUT.png [WIDTHxHEIGHT]
#
# The window is 1400x5000 unless given; what lies below it is not captured.
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
    echo "usage: $0 REPORT.html OUT.png [WIDTHxHEIGHT]" >&2
    exit 2
fi
report=$1
out=$2
size=${3:-1400x5000}

if [[ ! -f $report ]]; then
    echo "error: no such file: $report" >&2
    exit 1
fi
if [[ ! $size =~ ^[0-9]+x[0-9]+$ ]]; then
    echo "error: the size must be WIDTHxHEIGHT, e.g. 1400x5000 (got: $size)" >&2
    exit 2
fi

browser=""
for name in chromium chromium-browser google-chrome; do
    if command -v "$name" >/dev/null 2>&1; then
        browser=$name
        break
    fi
done
if [[ -z $browser ]]; then
    echo "error: chromium is not installed; on Debian/Ubuntu: apt-get install -y chromium" >&2
    exit 1
fi

abs_report=$(realpath "$report")
abs_out=$(realpath -m "$out")
rm -f "$abs_out"
# Chromium logs harmless D-Bus and GPU complaints on a headless machine; keep them for errors.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! "$browser" --headless --disable-gpu --no-sandbox --hide-scrollbars \
    --screenshot="$abs_out" --window-size="${size/x/,}" "file://$abs_report" >"$log" 2>&1 \
    || [[ ! -s $abs_out ]]; then
    cat "$log" >&2
    echo "error: $browser did not write $out" >&2
    exit 1
fi
echo "wrote $out"
