/* sim/sim.h: scalar domain types, error codes and diagnostics shared by every module.
 *
 * Time is int64 nanoseconds since trace start (sim_time_t). Quantities of a resource
 * (GPUs, cores, GiB, custom units) are int64 milli-units (sim_qty_t): 0.5 GPU = 500.
 */
#ifndef SIM_SIM_H
#define SIM_SIM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef int64_t sim_time_t; /* nanoseconds since trace start */
typedef int64_t sim_qty_t;  /* milli-units of one resource */

#define SIM_NS_PER_S 1000000000LL
#define SIM_TIME_NONE INT64_MIN /* "not set" for optional times */
#define SIM_TIME_MAX INT64_MAX
#define SIM_MILLI 1000LL

/* Resource vector. Index 0 is always "gpu"; the others are named by the config
 * (cpu, mem_gib, custom names such as tpu). */
#define SIM_MAX_RES 6
#define SIM_RES_GPU 0
#define SIM_NAME_MAX 64

struct sim_resources {
	int n;                               /* >= 1; names[0] is "gpu" */
	char names[SIM_MAX_RES][SIM_NAME_MAX];
};

/* Index of a resource name, or -1. */
int sim_resources_find(const struct sim_resources *res, const char *name);
/* Adds a name if missing; returns its index, or -SIM_ERANGE when full. */
int sim_resources_add(struct sim_resources *res, const char *name);
void sim_resources_init(struct sim_resources *res); /* just "gpu" */

/* Errors are negative values of one X-macro list (libuv's UV_ERRNO_MAP). */
#define SIM_ERRNO_MAP(X)                                             \
	X(NOMEM, "out of memory")                                    \
	X(INVAL, "invalid argument")                                 \
	X(EMPTY, "empty")                                            \
	X(NOFIT, "does not fit")                                     \
	X(IO, "input/output error")                                  \
	X(NOENT, "no such file")                                     \
	X(PARSE, "bad input")                                        \
	X(RANGE, "value out of range")                               \
	X(HDF5, "HDF5 error")                                        \
	X(EXTERNAL, "external program failed")                       \
	X(STATE, "illegal state")

enum sim_errno {
	SIM_OK = 0,
#define SIM_ERR_ENUM(name, msg) SIM_E##name,
	SIM_ERR_FIRST_ = 0, /* placeholder so the list starts at 1 */
	SIM_ERRNO_MAP(SIM_ERR_ENUM)
#undef SIM_ERR_ENUM
	SIM_ERR_COUNT_
};
/* Functions return 0 or -SIM_E*. */
const char *sim_strerror(int err);

/* Diagnostics: a bounded list of located messages ("where: msg").
 * where is "file:line: column X", "file:line:col" or "file: $.json.path".
 * The list keeps the first `limit` entries and counts the rest. */
struct sim_diag {
	size_t count;   /* entries added, including dropped ones */
	size_t limit;   /* entries kept (default 20) */
	char **lines;   /* owned; lines[i] = "where: msg" */
	FILE *echo;     /* when non-NULL, each kept line is also printed here */
};

void sim_diag_init(struct sim_diag *d, size_t limit);
void sim_diag_fini(struct sim_diag *d);
/* Records "where: msg". Returns -SIM_EPARSE so callers can `return sim_diag_add(...)`. */
int sim_diag_add(struct sim_diag *d, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int sim_diag_vadd(struct sim_diag *d, const char *where, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* Prints every kept line and, if some were dropped, "... and N more errors". */
void sim_diag_print(const struct sim_diag *d, FILE *f);
/* Last kept line or "" (for tests). */
const char *sim_diag_last(const struct sim_diag *d);
/* 1 if any kept line contains `needle` (for tests). */
int sim_diag_contains(const struct sim_diag *d, const char *needle);

/* Parses a non-negative decimal with at most 3 fractional digits into milli-units.
 * Accepts "8", "0.5", "1.250". Returns 0, or -SIM_EPARSE (not a number, negative,
 * more than 3 fractional digits), -SIM_ERANGE (overflow). [s, s+len) need not be
 * NUL-terminated. */
int sim_qty_parse(const char *s, size_t len, sim_qty_t *out);
/* Parses a decimal number of seconds (>= 0, up to 9 fractional digits, no
 * exponent) into ns. Same return values. */
int sim_time_parse_s(const char *s, size_t len, sim_time_t *out);
/* Room for one more element in a growable array v of n used and *cap allocated
 * elements of `elem` bytes: returns v when there is room, else v reallocated to
 * twice the capacity (`first` elements the first time) with *cap updated, or NULL
 * when out of memory (v and *cap unchanged). */
void *sim_grow_slow(void *v, size_t *cap, size_t n, size_t elem, size_t first);
/* Inline: the common case (room left) costs a compare, not a call, on hot paths. */
static inline void *sim_grow(void *v, size_t *cap, size_t n, size_t elem, size_t first)
{
	return n < *cap ? v : sim_grow_slow(v, cap, n, elem, first);
}
/* rel resolved against the folder of file (a config naming a trace or a side CSV);
 * an absolute rel is kept. Malloc'd (caller frees), or NULL on no memory. */
char *sim_path_beside(const char *file, const char *rel);

/* Formats milli-units as a decimal without trailing zeros ("0.5", "8"). */
void sim_qty_format(sim_qty_t q, char *buf, size_t n);

/* FNV-1a, 64 bits, of len bytes: for hash tables and for telling inputs apart (not
 * an integrity check). */
static inline uint64_t sim_fnv1a64(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* SplitMix64 (Steele, Lea and Flood): spreads a seed, or a (seed, purpose) pair,
 * over 64 bits, so that neighbouring seeds give unrelated GSL streams. */
static inline uint64_t sim_splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}
static inline double sim_time_to_s(sim_time_t t) { return (double)t / (double)SIM_NS_PER_S; }

#endif
