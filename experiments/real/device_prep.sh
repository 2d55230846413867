#!/usr/bin/env bash
# experiments/real/device_prep.sh BUILD_DIR: gathers what the device machine (an H200
# with no package registry) needs to run experiments/real/device.sh: the gpusched
# binary of BUILD_DIR and every shared library it loads that is not glibc's, into
# .devbin/ (ignored by git: carry it). libcuda comes from the device's own driver.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
bin="$build/gpusched"
[ -x "$bin" ] || { echo "device_prep.sh: $bin not built" >&2; exit 2; }
grep -qx '/.devbin/' .git/info/exclude 2>/dev/null || echo '/.devbin/' >> .git/info/exclude
rm -rf .devbin && mkdir -p .devbin/lib
cp "$bin" .devbin/
cp "$build/gx_smoke" .devbin/ # the cuda backend's smoke test (tests/device/gx_smoke.c)
ldd "$bin" | awk '$3 ~ /^\// { print $3 }' | while read -r lib; do
	case "$(basename "$lib")" in
	libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) ;;
	*) cp -L "$lib" .devbin/lib/ ;;
	esac
done
du -sh .devbin
