#!/usr/bin/env bash
# The message catalogues (src/unokit/i18n/locale): extracts both templates from the
# code, merges them into every language's .po (new ones made with `pybabel init`),
# and compiles the .mo files that unokit.i18n reads. `make catalogues` runs it; the
# translations themselves are written in the .po files, then this runs again.
# tests/test_i18n.py fails when a message lacks a language or a .mo is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
pybabel="${PYBABEL:-.venv/bin/pybabel}"
dir=src/unokit/i18n/locale
keywords=(-k N_ -k Reason -k KeySpec:6 -k translate:2 -k translate_plural:2,3
          -k pgettext:1c,2 -k translate_in:2c,3)
# A comment that starts with TRANSLATORS: just above a message goes to the translators
# (a `#.` line in the .po files), as does a message's context (pgettext, `msgctxt`).
comments=(-c TRANSLATORS:)

"$pybabel" -q extract -F babel.cfg "${keywords[@]}" "${comments[@]}" --no-location --sort-output \
    --project unokit --copyright-holder "unokit" -o "$dir/unokit.pot" src/unokit
"$pybabel" -q extract -F babel-web.cfg -k _ -k ngettext:1,2 -k pgettext:1c,2 \
    "${comments[@]}" --no-location --sort-output \
    --project unokit --copyright-holder "unokit" -o "$dir/web.pot" src/unokit/web/static

# A template or catalogue whose only change is its POT-Creation-Date keeps its old text,
# so that running this twice changes nothing.
keep_if_only_dated() {
    if git ls-files --error-unmatch "$1" >/dev/null 2>&1 \
            && git diff --quiet -I '^"POT-Creation-Date: ' -- "$1"; then
        git checkout --quiet -- "$1"
    fi
}

keep_if_only_dated "$dir/unokit.pot"
keep_if_only_dated "$dir/web.pot"
for domain in unokit web; do
    for lang in ru ka da; do
        if [[ -f "$dir/$lang/LC_MESSAGES/$domain.po" ]]; then
            "$pybabel" -q update -D "$domain" -i "$dir/$domain.pot" -d "$dir" -l "$lang" \
                --no-fuzzy-matching --ignore-obsolete
        else
            "$pybabel" -q init -D "$domain" -i "$dir/$domain.pot" -d "$dir" -l "$lang"
        fi
        keep_if_only_dated "$dir/$lang/LC_MESSAGES/$domain.po"
    done
    "$pybabel" -q compile -D "$domain" -d "$dir" --statistics
done
