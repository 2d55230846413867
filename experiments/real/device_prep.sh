#!/usr/bin/env bash
# experiments/real/device_prep.sh BUILD_DIR: gathers what the device machine (an H200
# with no package registry) needs to run experiments/real/device.sh, into .devbin/
# (ignored by git: carry it; DEVBIN=DIR puts it elsewhere):
#   - BUILD_DIR's gpusched and gx_smoke (tests/device/gx_smoke.c, the cuda backend's
#     smoke test), from a Release build without MPI only: a Debug build's decision
#     latency and host overheads would be measured as the scheduler's, and real mode
#     never uses MPI, whose libraries (libmpi, open-pal, hwloc, libevent) need not
#     travel. Make it with
#       cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=Release -DSIM_MPI=OFF
#       cmake --build build-dev -j 2 --target gpusched gx_smoke
#   - lib/: the shared libraries gpusched loads (HDF5, GSL, cJSON, ...; Debian's HDF5
#     brings curl and TLS libraries: about 25 MB in all), except glibc's
#     own (the libc6 package: libc, libm, libresolv, ld-linux, ...), which must come
#     from the device's system and may not load against another glibc. gx_smoke needs
#     only glibc and libcuda; libcuda always comes from the device's driver.
#   - BUILD_TYPE, which device.sh checks.
# device.sh gives LD_LIBRARY_PATH=.devbin/lib to gpusched alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-dev}
devbin=${DEVBIN:-.devbin}
bin="$build/gpusched"
[ -x "$bin" ] || { echo "device_prep.sh: $bin not built" >&2; exit 2; }
[ -x "$build/gx_smoke" ] || { echo "device_prep.sh: $build/gx_smoke not built (no nvcc: no cuda backend)" >&2; exit 2; }
type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
[ "$type" = Release ] || {
	echo "device_prep.sh: $build is a '${type:-unknown}' build; expected Release" \
	     "(cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=Release -DSIM_MPI=OFF)" >&2
	exit 2
}
if ldd "$bin" | grep -q 'libmpi'; then
	echo "device_prep.sh: $bin links MPI, which real mode does not use; configure with -DSIM_MPI=OFF" >&2
	exit 2
fi
if [ "$devbin" = .devbin ]; then
	grep -qx '/.devbin/' .git/info/exclude 2>/dev/null || echo '/.devbin/' >> .git/info/exclude
fi
rm -rf "$devbin" && mkdir -p "$devbin/lib"
cp "$bin" "$build/gx_smoke" "$devbin/"
echo Release > "$devbin/BUILD_TYPE"
# glibc's libraries: by package where dpkg knows, else by name.
is_glibc() {
	local pkg
	pkg=$(dpkg -S "$1" 2>/dev/null | cut -d: -f1 | head -n 1) || true
	[ -z "$pkg" ] && pkg=$(dpkg -S "$(readlink -f "$1")" 2>/dev/null | cut -d: -f1 | head -n 1) || true
	case "$pkg" in libc6|libc6-*) return 0 ;; esac
	case "$(basename "$1")" in
	libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|libresolv.so.*|libanl.so.*|libutil.so.*|\
	libnsl.so.*|libcrypt.so.*|libmvec.so.*|ld-linux*) return 0 ;;
	esac
	return 1
}
ldd "$bin" | awk '$3 ~ /^\// { print $3 }' | while read -r lib; do
	if is_glibc "$lib"; then
		echo "  not carried (glibc): $lib"
	else
		cp -L "$lib" "$devbin/lib/"
	fi
done
ls "$devbin/lib"
du -sh "$devbin"
