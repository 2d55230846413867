/* tests/fuzz/fuzz_import.h: the body every importer target shares (one executable a
 * format, so each has its own corpus and coverage; fuzz_import_one does the work). */
#ifndef TESTS_FUZZ_FUZZ_IMPORT_H
#define TESTS_FUZZ_FUZZ_IMPORT_H

#include <stddef.h>
#include <stdint.h>

/* Writes the input to the scratch folder as IN_NAME (gavel takes its queue from the
 * file name) and imports it with FORMAT twice: strict, then --skip-bad with
 * --top-queues and --queue-from chosen from the input's size, so both modes and the
 * tenant table see every input. An import that succeeds must produce a valid native
 * trace with rows_written jobs; anything else aborts. */
void fuzz_import_one(const char *format, const char *in_name, const uint8_t *data, size_t size);

#endif
