#!/bin/sh
# commit-id.sh — the commit v8walk is built from, for `v8walk --version`: git's short hash, with
# "-dirty" when tracked files differ from it; outside a git checkout, the COMMIT file (which
# `git archive` fills in: .gitattributes marks it export-subst); otherwise "unknown".
cd "$(dirname "$0")/.." || exit 1
if id=$(git describe --always --dirty --abbrev=7 --exclude='*' 2>/dev/null) && [ -n "$id" ]; then
	echo "$id"
elif [ -r COMMIT ] && id=$(tr -cd '0-9a-f-' <COMMIT | cut -c1-40) && [ -n "$id" ] &&
	! grep -q 'Format:' COMMIT; then
	echo "$id"
else
	echo unknown
fi
