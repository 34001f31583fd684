#!/bin/sh
# Regenerates the engine-export goldens in tests/golden/export/ from the
# current src/emit/export.c: builds $BUILD/tests/test_export (BUILD defaults
# to build) and runs it with UPDATE_GOLDEN=1, which makes every golden case
# write its export instead of comparing it.  Run it when an export changes on
# purpose, then read `git diff tests/golden/export` against
# docs/reference/engines-and-formats.md before committing.
#
#   sh tests/update-golden-export.sh
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
mkdir -p tests/golden/export
make BUILD="$BUILD" "$BUILD/tests/test_export"
UPDATE_GOLDEN=1 "$BUILD/tests/test_export"
# and once more comparing, so a case that does not reproduce its own output fails here
"$BUILD/tests/test_export"
