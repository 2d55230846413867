/* tests/fuzz/fuzz_util.h: what the libFuzzer targets share (README.md in this folder).
 *
 * libFuzzer calls LLVMFuzzerTestOneInput many times in one process, so a target must
 * free everything it allocates and leave no state behind. Readers that take a path get
 * the input as a file in a private scratch folder, $TMPDIR/gpusched-fuzz-<pid> (/tmp
 * without TMPDIR), which is removed at exit; nothing is written into the repository.
 */
#ifndef TESTS_FUZZ_FUZZ_UTIL_H
#define TESTS_FUZZ_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* libFuzzer's entry point; declared here because -Wmissing-prototypes is on. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The scratch folder (created on first use; aborts when it cannot be). */
const char *fuzz_dir(void);
/* fuzz_dir()/NAME into buf (PATH_MAX bytes); aborts when it does not fit. */
const char *fuzz_path(const char *name, char *buf, size_t size);
/* Writes data to fuzz_dir()/NAME, replacing it; returns the path (static storage,
 * overwritten by the next call). Aborts on I/O errors, which are the harness's fault,
 * not the reader's. */
const char *fuzz_write(const char *name, const uint8_t *data, size_t size);
/* Whether the input names a device or kernel file ("/dev/", "/proc/", "/sys/"). Readers
 * that open paths found in their input (generator durations.trace, config
 * capacity_events) would block on /dev/stdin or read /dev/zero forever: that is the
 * input asking for it, not a bug, so such inputs are skipped. */
int fuzz_names_device(const uint8_t *data, size_t size);
/* A NUL-terminated malloc'd copy of data (the JSON readers want text[len] == 0). */
char *fuzz_text(const uint8_t *data, size_t size);

#endif
