#!/bin/sh
# tests/python/pandas_recipe.sh GPUSCHED SOURCE_DIR BUILD_DIR: runs the h5py + pandas
# recipe of analysis/SCHEMA.md ("Reading it elsewhere", between its recipe markers)
# on a 3-variant, 2-seed sweep and checks every run's swept values and its time series
# against the file and `gpusched export --table timeseries` (pandas_recipe_check.py),
# and that it loads the same jobs and time series from the schema 1.6 file
# of the same sweep (tests/data/results/schema16_sweep.h5). h5py and pandas go into a virtual environment in the
# build folder (made once). Exit 77 (ctest: skipped) when python3, venv or a
# package index is not there.
set -u
gpusched=$1 src=$2 build=$3
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: no python3 on PATH"
	exit 77
fi
venv=$build/pyvenv
if ! "$venv/bin/python" -c 'import h5py, pandas' >/dev/null 2>&1; then
	if ! python3 -m venv "$venv" >/dev/null 2>&1; then
		echo "SKIP: python3 -m venv failed (is python3-venv installed?)"
		exit 77
	fi
	if ! "$venv/bin/python" -m pip install -q --disable-pip-version-check --timeout 20 --retries 1 h5py pandas; then
		echo "SKIP: pip could not install h5py and pandas (no reachable package index?)"
		exit 77
	fi
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/gpusched-recipe.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
"$gpusched" run "$src/tests/data/configs/sweep3x2.json" -q -o "$work/sweep.h5" || exit 1
sed -n '/<!-- recipe:begin -->/,/<!-- recipe:end -->/p' "$src/analysis/SCHEMA.md" | sed '/^```/d;/^<!--/d' \
	>"$work/recipe.py"
if ! grep -q 'def load' "$work/recipe.py"; then
	echo "FAIL: no recipe between <!-- recipe:begin --> and <!-- recipe:end --> in analysis/SCHEMA.md"
	exit 1
fi
"$gpusched" export "$work/sweep.h5" --table timeseries -o "$work/timeseries.csv" || exit 1
"$venv/bin/python" "$src/tests/python/pandas_recipe_check.py" "$work/recipe.py" "$work/sweep.h5" \
	"$src/tests/data/results/schema16_sweep.h5" "$work/timeseries.csv"
