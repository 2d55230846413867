/* traces/native.c: the native CSV trace reader and writer (docs/design.md section 4,
 * reference in traces/README.md).
 *
 * Speed: a million-row trace must load in well under a second. The whole file is
 * mapped (or read into one buffer) and parsed with pointer scans (memchr per line,
 * an inline byte loop per field, no strtok/sscanf, no allocation per row). Job,
 * option and id arrays are sized from the newline count up front and grow
 * geometrically if that was short. Queue, user and flavor names go through small
 * hash tables (after a check against the previous row's name), so
 * sim_trace_intern_*() (a linear scan) runs once per distinct name, not once per
 * row. A job's idx and run state are set as its row is parsed (what
 * sim_trace_sort() and sim_trace_reset() would set), so a trace already in submit
 * order needs no later pass over the jobs.
 *
 * Two passes, of which a valid trace needs only the first. The fast pass keeps a
 * 64-bit hash of every id and, once the file is read, looks for two equal hashes
 * (ids_maybe_dup: sequential passes, no large table); none means no two ids are
 * equal. (A probe of a 16 MiB hash table per row was a cache miss per row, about a
 * seventh of the load.) The fast pass only counts errors. When it counts any, or
 * two hashes are equal (a duplicate id, or a collision, about once in 2^65 / n^2
 * traces of n jobs), the file is parsed again by the exact pass: ids checked row
 * by row in an open-addressing hash table, every error reported in file order with
 * its place, as the messages below describe.
 *
 * Errors: every problem is reported as "FILE:LINE: column X: expected ..., found
 * '...'" and parsing goes on to the end of the file, so one run shows every error
 * (sim_diag keeps diag->limit of them and counts the rest). A trace with any error
 * is freed and the call returns -SIM_EPARSE.
 */
#define _DEFAULT_SOURCE /* madvise, MADV_DONTNEED */
#include "native.h"

#include "../sim/lines.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum col {
	COL_ID,
	COL_SUBMIT,
	COL_DURATION,
	COL_QUEUE,
	COL_PRIORITY,
	COL_REQUEST,
	COL_PREFS,
	COL_MAX_PENDING,
	COL_DEADLINE,
	COL_CHECKPOINT,
	COL_USER,
	COL_PREEMPTIBLE,
	COL_ESTIMATE,
	COL_MAX_WAIT,
	COL_COUNT_
};

static const char *const col_names[COL_COUNT_] = {
	[COL_ID] = "id",
	[COL_SUBMIT] = "submit_s",
	[COL_DURATION] = "duration_s",
	[COL_QUEUE] = "queue",
	[COL_PRIORITY] = "priority",
	[COL_REQUEST] = "request",
	[COL_PREFS] = "prefs",
	[COL_MAX_PENDING] = "max_pending_s",
	[COL_DEADLINE] = "deadline_s",
	[COL_CHECKPOINT] = "checkpoint_s",
	[COL_USER] = "user",
	[COL_PREEMPTIBLE] = "preemptible",
	[COL_ESTIMATE] = "estimate_s",
	[COL_MAX_WAIT] = "max_wait_s",
};

#define COL_LIST                                                                     \
	"id, submit_s, duration_s, queue, priority, request, prefs, max_pending_s, " \
	"deadline_s, checkpoint_s, user, preemptible, estimate_s, max_wait_s"

/* Every time column is refused above this many seconds (about 31.7 years), so that
 * submit + duration + deadline sums in ns stay far below INT64_MAX. */
#define TRACE_MAX_S 1000000000LL
#define TRACE_MAX_NS (TRACE_MAX_S * SIM_NS_PER_S)
/* Longest queue or user name, in bytes (Kubernetes names stop at 253). */
#define NAME_MAX_LEN 255
/* Longest value echoed back in a message. */
#define SHOW_MAX 60

struct fld {
	const char *p;
	size_t len;
};

/* "found '%.*s%s'" arguments: the value cut at SHOW_MAX bytes, with "..." when cut. */
#define SHOW(f) (int)((f).len > SHOW_MAX ? SHOW_MAX : (f).len), (f).p, ((f).len > SHOW_MAX ? "..." : "")

/* ---- open-addressing hash table: string -> uint32 ----
 * Slots hold the key's hash and a value; the key itself lives elsewhere (the trace's
 * id strings or name tables) and is fetched through key_fn when hashes match. Linear
 * probing, capacity a power of two, load kept at or below 1/2. */
#define HMAP_EMPTY UINT32_MAX

struct hslot {
	uint32_t hash;
	uint32_t val;
};

struct hmap {
	struct hslot *slots;
	size_t cap; /* power of two */
	size_t n;
	uint32_t last; /* value of the last intern() hit, HMAP_EMPTY before any */
};

typedef const char *(*key_fn)(const void *ctx, uint32_t val);

static uint32_t hash_bytes(const char *s, size_t len)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static int hmap_init(struct hmap *m, size_t expect)
{
	size_t cap = 16;
	while (cap < 2 * expect)
		cap *= 2;
	m->slots = malloc(cap * sizeof *m->slots);
	if (!m->slots)
		return -SIM_ENOMEM;
	memset(m->slots, 0xff, cap * sizeof *m->slots);
	m->cap = cap;
	m->n = 0;
	m->last = HMAP_EMPTY;
	return 0;
}

static void hmap_fini(struct hmap *m)
{
	free(m->slots);
	m->slots = NULL;
}

/* 1 if the NUL-terminated k equals [key, key+len). key holds no NUL, so a shorter k
 * differs at its terminator, before any byte past it is read. Inline: the keys are
 * a few bytes, and a strncmp call cost more than the comparison. */
static int key_eq(const char *k, const char *key, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (k[i] != key[i])
			return 0;
	return k[len] == '\0';
}

/* The slot holding key [key, key+len), or the empty slot where it would go.
 * Stored keys are NUL-terminated and contain no NUL (names with control
 * characters are refused before lookup). */
static struct hslot *hmap_probe(const struct hmap *m, uint32_t h, const char *key, size_t len, key_fn kf,
				const void *ctx)
{
	size_t mask = m->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct hslot *s = &m->slots[i];
		if (s->val == HMAP_EMPTY)
			return s;
		if (s->hash == h) {
			const char *k = kf(ctx, s->val);
			if (key_eq(k, key, len))
				return s;
		}
	}
}

static int hmap_grow(struct hmap *m)
{
	size_t ncap = m->cap * 2;
	struct hslot *ns = malloc(ncap * sizeof *ns);
	if (!ns)
		return -SIM_ENOMEM;
	memset(ns, 0xff, ncap * sizeof *ns);
	for (size_t i = 0; i < m->cap; i++) {
		if (m->slots[i].val == HMAP_EMPTY)
			continue;
		size_t j = m->slots[i].hash & (ncap - 1);
		while (ns[j].val != HMAP_EMPTY)
			j = (j + 1) & (ncap - 1);
		ns[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = ns;
	m->cap = ncap;
	return 0;
}

/* Fills an empty slot returned by hmap_probe. The slot pointer is invalid after. */
static int hmap_fill(struct hmap *m, struct hslot *s, uint32_t h, uint32_t val)
{
	s->hash = h;
	s->val = val;
	m->n++;
	return 2 * m->n > m->cap ? hmap_grow(m) : 0;
}

/* ---- parser state ---- */
struct parser {
	const char *name; /* for messages */
	struct sim_diag *diag;
	size_t n_err; /* errors found by this parse */
	int fast;     /* fast pass: count errors only, hash ids into id_hash (see the top) */
	int unsorted; /* some row's submit_s is below the previous row's */
	uint64_t *id_hash; /* fast pass: 64-bit hash of job i's id */
	size_t cap_id_hash;
	struct sim_trace *t;
	size_t cap_jobs, cap_opts, cap_str;
	struct hmap ids;    /* id -> job index */
	struct hmap queues; /* name -> index into t->queues */
	struct hmap users;
	struct hmap flavors;
	int col_of[COL_COUNT_]; /* field index of each column, -1 when absent */
	int n_cols;		/* fields in the header */
	struct fld *f;		/* fields of the current row, n_cols entries */
	char *scratch;		/* unescaped quoted fields of the current row */
	size_t scratch_cap;
	/* The second half of a split fast pass (see "The fast pass in two halves"): its
	 * rows go to the shared job, option and id-hash arrays from job_base on, which
	 * must never be reallocated (fixed), and row job_base's order against the row
	 * before it (the other half's last) is checked at the merge. */
	size_t job_base;
	int fixed;
};

static const char *id_key(const void *ctx, uint32_t val)
{
	const struct sim_trace *t = ctx;
	return t->strings + t->jobs[val].id_off;
}

static const char *queue_key(const void *ctx, uint32_t val)
{
	return ((const struct sim_trace *)ctx)->queues[val];
}

static const char *user_key(const void *ctx, uint32_t val)
{
	return ((const struct sim_trace *)ctx)->users[val];
}

static const char *flavor_key(const void *ctx, uint32_t val)
{
	return ((const struct sim_trace *)ctx)->flavors[val];
}

__attribute__((format(printf, 4, 5))) static void row_err(struct parser *ps, uint32_t line, const char *col,
							  const char *fmt, ...)
{
	char where[512];
	va_list ap;

	ps->n_err++;
	if (ps->fast)
		return; /* the exact pass reports it */
	if (col)
		snprintf(where, sizeof where, "%s:%u: column %s", ps->name, (unsigned)line, col);
	else
		snprintf(where, sizeof where, "%s:%u", ps->name, (unsigned)line);
	va_start(ap, fmt);
	sim_diag_vadd(ps->diag, where, fmt, ap);
	va_end(ap);
}

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* First c in [p, end), or NULL. Fields are a few bytes long: a loop costs less than
 * a memchr call there (memchr stays for lines). */
static const char *find_char(const char *p, const char *end, char c)
{
	for (; p < end; p++)
		if (*p == c)
			return p;
	return NULL;
}

/* Splits one line [p, end) into fields (RFC 4180 quoting; a quoted field ends on
 * the same line). Blanks around unquoted fields are trimmed. Stores at most `max`
 * fields in ps->f and returns how many the line has, or -1 after reporting a
 * quoting error. ps->scratch must hold end - p bytes. */
static int split_row(struct parser *ps, uint32_t line, const char *p, const char *end, struct fld *out,
		     int max)
{
	char *sc = ps->scratch;
	int n = 0;

	for (;;) {
		struct fld v;
		while (p < end && is_blank(*p))
			p++;
		if (p < end && *p == '"') {
			const char *open = p;
			char *o = sc;
			p++;
			for (;;) {
				if (p >= end) {
					struct fld bad = { open, (size_t)(end - open) };
					row_err(ps, line, NULL,
						"field %d: expected a closing '\"' on the same line, found "
						"'%.*s%s'",
						n + 1, SHOW(bad));
					return -1;
				}
				if (*p == '"') {
					if (p + 1 < end && p[1] == '"') {
						*o++ = '"';
						p += 2;
						continue;
					}
					p++;
					break;
				}
				*o++ = *p++;
			}
			v.p = sc;
			v.len = (size_t)(o - sc);
			sc = o;
			while (p < end && is_blank(*p))
				p++;
			if (p < end && *p != ',') {
				struct fld bad = { open, (size_t)(end - open) };
				row_err(ps, line, NULL,
					"field %d: expected ',' after the closing '\"', found '%.*s%s'",
					n + 1, SHOW(bad));
				return -1;
			}
		} else {
			const char *c = find_char(p, end, ',');
			const char *fe = c ? c : end;
			v.p = p;
			while (fe > p && is_blank(fe[-1]))
				fe--;
			v.len = (size_t)(fe - p);
			p = c ? c : end;
		}
		if (n < max)
			out[n] = v;
		n++;
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		return n;
	}
}

static struct fld get(const struct parser *ps, enum col c)
{
	struct fld none = { "", 0 };
	return ps->col_of[c] >= 0 ? ps->f[ps->col_of[c]] : none;
}

static int fld_eq(struct fld v, const char *s) { return strlen(s) == v.len && memcmp(v.p, s, v.len) == 0; }

/* A name of printable characters (no control bytes), 1..max bytes. */
static int name_ok(struct fld v, size_t max)
{
	if (v.len == 0 || v.len > max)
		return 0;
	for (size_t i = 0; i < v.len; i++) {
		unsigned char c = (unsigned char)v.p[i];
		if (c < 0x20 || c == 0x7f)
			return 0;
	}
	return 1;
}

static int flavor_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '.' || c == '-';
}

static int res_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The common form of a time, read in one pass: up to 9 integer digits, optionally
 * '.' and up to 9 fraction digits (what every generated trace writes), as ns in *out
 * (0). Anything else (a '+', 10 or more digits on either side, anything malformed)
 * returns 1 for sim_time_parse_s to decide: this accepts only what it accepts and
 * gives its value, without its overflow check a digit and its padding loop (which
 * cost a tenth of the load). */
static int fast_secs(const char *s, size_t len, sim_time_t *out)
{
	static const int64_t pow10[10] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
					   1000000000 };
	size_t i = 0, n_int, n_frac = 0;
	int64_t ip = 0, fp = 0;
	while (i < len && i < 9 && s[i] >= '0' && s[i] <= '9')
		ip = ip * 10 + (s[i++] - '0');
	n_int = i;
	if (i < len && s[i] == '.') {
		for (i++; i < len && n_frac < 9 && s[i] >= '0' && s[i] <= '9'; i++, n_frac++)
			fp = fp * 10 + (s[i] - '0');
	}
	if (i != len || n_int + n_frac == 0)
		return 1;
	*out = ip * SIM_NS_PER_S + fp * pow10[9 - n_frac];
	return 0;
}

/* Seconds in [0, TRACE_MAX_S], as ns. `positive` refuses 0 too. */
static int parse_secs(struct fld v, int positive, sim_time_t *out)
{
	sim_time_t ns;
	if (fast_secs(v.p, v.len, &ns) != 0 && sim_time_parse_s(v.p, v.len, &ns) < 0)
		return -1;
	if (ns > TRACE_MAX_NS || (positive && ns == 0))
		return -1;
	*out = ns;
	return 0;
}

static int parse_int32(struct fld v, int32_t *out)
{
	size_t i = 0;
	int neg = 0;
	int64_t x = 0;

	if (v.len > 0 && (v.p[0] == '-' || v.p[0] == '+')) {
		neg = v.p[0] == '-';
		i++;
	}
	if (i == v.len)
		return -1;
	for (; i < v.len; i++) {
		if (v.p[i] < '0' || v.p[i] > '9')
			return -1;
		x = x * 10 + (v.p[i] - '0');
		if (x > (int64_t)INT32_MAX + 1)
			return -1;
	}
	if (neg)
		x = -x;
	if (x > INT32_MAX || x < INT32_MIN)
		return -1;
	*out = (int32_t)x;
	return 0;
}

/* Looks a name up in `m`, interning it into the trace on first sight. Returns its
 * index or -SIM_ENOMEM. */
static int intern(struct parser *ps, struct hmap *m, key_fn kf, int (*add)(struct sim_trace *, const char *),
		  struct fld v)
{
	char buf[NAME_MAX_LEN + 1];
	/* Rows often repeat the previous row's name (one flavor, a few queues). */
	if (m->last != HMAP_EMPTY && key_eq(kf(ps->t, m->last), v.p, v.len))
		return (int)m->last;
	uint32_t h = hash_bytes(v.p, v.len);
	struct hslot *s = hmap_probe(m, h, v.p, v.len, kf, ps->t);

	if (s->val != HMAP_EMPTY) {
		m->last = s->val;
		return (int)s->val;
	}
	memcpy(buf, v.p, v.len);
	buf[v.len] = '\0';
	int idx = add(ps->t, buf);
	if (idx < 0)
		return idx;
	return hmap_fill(m, s, h, (uint32_t)idx) < 0 ? -SIM_ENOMEM : idx;
}

/* Index of resource [p, p+len) in the trace's resource names, added when new;
 * -SIM_ERANGE when the table is full. */
static int res_index(struct sim_resources *res, const char *p, size_t len)
{
	char buf[SIM_NAME_MAX];
	for (int i = 0; i < res->n; i++)
		if (key_eq(res->names[i], p, len))
			return i;
	if (len >= SIM_NAME_MAX)
		return -SIM_ERANGE;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return sim_resources_add(res, buf);
}

#define OPT_SYNTAX "FLAVOR:RES=QTY[,RES=QTY...] (e.g. h100:gpu=8 or *:gpu=1)"
#define PREF_SYNTAX "FLAVOR:gpu=N[@DURATION_S]"
#define BARE_SYNTAX "FLAVOR[@DURATION_S] (the count in request)"

/* The flavor name `fl` of option `v` into o->flavor_id: "*" (any flavor) where
 * allow_any, else a name interned into the trace. A preference list names instance
 * types, so its options pass allow_any = 0. Reports against `whole` (the column
 * value). Returns 0, 1 on bad input (reported), or -SIM_ENOMEM. */
static int parse_flavor(struct parser *ps, uint32_t line, const char *col, struct fld fl, struct fld v,
			struct fld whole, int allow_any, struct sim_job_option *o)
{
	if (fld_eq(fl, "*")) {
		if (allow_any) {
			o->flavor_id = SIM_FLAVOR_ANY;
			return 0;
		}
		row_err(ps, line, col,
			"expected a flavor name in every option ('*' is not an instance type), "
			"found '%.*s%s' in '%.*s%s'",
			SHOW(v), SHOW(whole));
		return 1;
	}
	for (size_t i = 0; i < fl.len; i++) {
		if (!flavor_char(fl.p[i])) {
			row_err(ps, line, col,
				"expected a flavor name of letters, digits, '_', '.', '-'%s, found '%.*s%s'",
				allow_any ? " or '*'" : "", SHOW(fl));
			return 1;
		}
	}
	if (fl.len >= SIM_NAME_MAX) {
		row_err(ps, line, col, "expected a flavor name under %d bytes, found '%.*s%s'", SIM_NAME_MAX,
			SHOW(fl));
		return 1;
	}
	int id = intern(ps, &ps->flavors, flavor_key, sim_trace_intern_flavor, fl);
	if (id < 0)
		return id;
	o->flavor_id = id;
	return 0;
}

/* The "@DURATION_S" suffix [at, end) of option v into *dur_out; at = NULL (no
 * suffix) gives 0: the run time is scaled from the first option. Returns 0 or 1 on
 * bad input (reported). */
static int parse_at_duration(struct parser *ps, uint32_t line, struct fld v, const char *at, const char *end,
			     sim_time_t *dur_out)
{
	*dur_out = 0;
	if (!at)
		return 0;
	struct fld d = { at + 1, (size_t)(end - at - 1) };
	if (parse_secs(d, 1, dur_out) < 0) {
		row_err(ps, line, "prefs",
			"expected @DURATION_S with seconds > 0 (at most 9 fractional "
			"digits, at most 1e9), found '%.*s%s'",
			SHOW(v));
		return 1;
	}
	return 0;
}

/* Parses one option "FLAVOR:RES=QTY[,RES=QTY...]" and, when dur_out is non-NULL (a
 * counted option of a preference list: no "*" flavor), an optional "@DURATION_S"
 * suffix (*dur_out = 0 when absent). Reports its own errors against `whole` (the
 * column value). Returns 0, 1 on bad input (reported), or -SIM_ENOMEM. */
static int parse_option(struct parser *ps, uint32_t line, const char *col, struct fld v, struct fld whole,
			struct sim_job_option *o, sim_time_t *dur_out)
{
	const char *p = v.p, *end = v.p + v.len;
	const char *syntax = dur_out ? PREF_SYNTAX : OPT_SYNTAX;
	const char *colon = find_char(p, end, ':');
	uint8_t seen[SIM_MAX_RES] = { 0 };
	int any_positive = 0;
	int r;

	memset(o, 0, sizeof *o);
	if (!colon || colon == p || colon + 1 == end) {
		row_err(ps, line, col, "expected %s, found '%.*s%s'", syntax, SHOW(v));
		return 1;
	}
	struct fld fl = { p, (size_t)(colon - p) };
	if ((r = parse_flavor(ps, line, col, fl, v, whole, !dur_out, o)) != 0)
		return r;

	p = colon + 1;
	const char *at = dur_out ? find_char(p, end, '@') : NULL;
	const char *rend = at ? at : end;
	for (;;) {
		const char *c = find_char(p, rend, ',');
		const char *ie = c ? c : rend;
		const char *eq = find_char(p, ie, '=');
		struct fld item = { p, (size_t)(ie - p) };
		if (!eq || eq == p) {
			row_err(ps, line, col, "expected %s, found '%.*s%s' in '%.*s%s'", syntax, SHOW(item),
				SHOW(whole));
			return 1;
		}
		for (const char *q = p; q < eq; q++) {
			if (!res_char(*q)) {
				row_err(ps, line, col,
					"expected a resource name of letters, digits or '_', found '%.*s%s'",
					SHOW(item));
				return 1;
			}
		}
		int ri = res_index(&ps->t->res, p, (size_t)(eq - p));
		if (ri < 0) {
			row_err(ps, line, col,
				"expected at most %d resource names (of up to %d bytes) in a trace, "
				"found '%.*s%s'",
				SIM_MAX_RES, SIM_NAME_MAX - 1, SHOW(item));
			return 1;
		}
		if (seen[ri]) {
			row_err(ps, line, col,
				"expected each resource once, found '%.*s%s' again in '%.*s%s'", SHOW(item),
				SHOW(whole));
			return 1;
		}
		seen[ri] = 1;
		sim_qty_t q;
		if (sim_qty_parse(eq + 1, (size_t)(ie - eq - 1), &q) < 0) {
			row_err(ps, line, col,
				"expected RES=QTY with QTY >= 0 and at most 3 fractional digits, found "
				"'%.*s%s'",
				SHOW(item));
			return 1;
		}
		o->req[ri] = q;
		any_positive |= q > 0;
		if (!c)
			break;
		p = c + 1;
	}
	if (!seen[SIM_RES_GPU]) {
		row_err(ps, line, col, "expected a gpu count (gpu=N) in every option, found '%.*s%s'",
			SHOW(v));
		return 1;
	}
	if (!any_positive) {
		row_err(ps, line, col, "expected at least one resource > 0, found '%.*s%s'", SHOW(v));
		return 1;
	}
	return dur_out ? parse_at_duration(ps, line, v, at, end, dur_out) : 0;
}

/* Parses one bare option "FLAVOR[@DURATION_S]" of a list whose shared count is in
 * the request column: o gets that request (`shared`) on the named flavor. Returns 0,
 * 1 on bad input (reported), or -SIM_ENOMEM. */
static int parse_bare_option(struct parser *ps, uint32_t line, struct fld v, struct fld whole,
			     const struct sim_job_option *shared, struct sim_job_option *o,
			     sim_time_t *dur_out)
{
	const char *end = v.p + v.len, *at = find_char(v.p, end, '@');
	struct fld fl = { v.p, (size_t)((at ? at : end) - v.p) };
	int r;

	*o = *shared;
	if (!fl.len) {
		row_err(ps, line, "prefs", "expected " BARE_SYNTAX ", found '%.*s%s' in '%.*s%s'", SHOW(v),
			SHOW(whole));
		return 1;
	}
	if ((r = parse_flavor(ps, line, "prefs", fl, v, whole, 0, o)) != 0)
		return r;
	return parse_at_duration(ps, line, v, at, end, dur_out);
}

/* A request of one option (the request column, or its default "*:gpu=1") into o. */
static int parse_single(struct parser *ps, uint32_t line, struct fld req, struct sim_job *j,
			struct sim_job_option *o)
{
	int r;
	if (!req.len) {
		memset(o, 0, sizeof *o);
		o->flavor_id = SIM_FLAVOR_ANY;
		o->req[SIM_RES_GPU] = SIM_MILLI; /* default "*:gpu=1" */
	} else if ((r = parse_option(ps, line, "request", req, req, o, NULL)) != 0) {
		return r;
	}
	o->duration_ns = j->duration_ns;
	j->n_opts = 1;
	ps->t->n_opts++;
	return 0;
}

/* Splits a preference list at ';' into at most SIM_MAX_OPTIONS options. Returns
 * the number of options (counted past the maximum too, so "found 6" can be
 * reported); *n_counted gets how many state a count (hold a ':'), *empty the
 * 1-based number of the first empty option (0 = none). */
static size_t split_prefs(struct fld prefs, struct fld *opt, size_t *n_counted, size_t *empty)
{
	const char *p = prefs.p, *end = prefs.p + prefs.len;
	size_t n = 0;

	*n_counted = 0;
	*empty = 0;
	for (;;) {
		const char *sc = find_char(p, end, ';');
		struct fld v = { p, (size_t)((sc ? sc : end) - p) };
		if (n < SIM_MAX_OPTIONS)
			opt[n] = v;
		n++;
		*n_counted += find_char(v.p, v.p + v.len, ':') != NULL;
		if (!v.len && !*empty)
			*empty = n;
		if (!sc)
			return n;
		p = sc + 1;
	}
}

/* Checks the form of a preference list against the request column: SageMaker has
 * one shared instance count (request "*:gpu=N", bare flavor names in prefs) or a
 * count on every option (no request); a mix of the two is invalid. Sets *shared_form.
 * Returns 0 or 1 on bad input (reported). */
static int check_prefs_form(struct parser *ps, uint32_t line, struct fld prefs, struct fld req, size_t n,
			    size_t n_counted, size_t empty, int *shared_form)
{
	if (n < 2 || n > SIM_MAX_OPTIONS) {
		row_err(ps, line, "prefs",
			"expected 2 to %d options " PREF_SYNTAX " separated by ';', "
			"found %zu in '%.*s%s'",
			SIM_MAX_OPTIONS, n, SHOW(prefs));
		return 1;
	}
	if (empty) {
		row_err(ps, line, "prefs",
			"expected an option between every two ';', found option %zu empty in '%.*s%s'", empty,
			SHOW(prefs));
		return 1;
	}
	if (n_counted && n_counted != n) {
		row_err(ps, line, "prefs",
			"expected a count on every option or on none, found %zu of %zu options with "
			"counts in '%.*s%s'",
			n_counted, n, SHOW(prefs));
		return 1;
	}
	*shared_form = n_counted == 0;
	if (!*shared_form && req.len) {
		row_err(ps, line, "prefs",
			"expected the counts on the options or one shared count in request "
			"(*:gpu=N with bare flavor names), not both, found '%.*s%s' with request '%.*s%s'",
			SHOW(prefs), SHOW(req));
		return 1;
	}
	if (*shared_form && !req.len) {
		row_err(ps, line, "prefs",
			"expected a count on every option (" PREF_SYNTAX ") or a shared count in "
			"request (*:gpu=N), found '%.*s%s' and no request",
			SHOW(prefs));
		return 1;
	}
	return 0;
}

/* The shared count of a list in bare form: the request column, flavor "*" (the
 * options name the flavors). Returns 0, 1 on bad input (reported) or -SIM_ENOMEM. */
static int parse_shared_count(struct parser *ps, uint32_t line, struct fld req,
			      struct sim_job_option *shared)
{
	int r = parse_option(ps, line, "request", req, req, shared, NULL);
	if (r)
		return r;
	if (shared->flavor_id != SIM_FLAVOR_ANY) {
		row_err(ps, line, "request",
			"expected the shared count of prefs with flavor '*' (e.g. *:gpu=8; the options "
			"name the flavors), found '%.*s%s'",
			SHOW(req));
		return 1;
	}
	return 0;
}

/* Refuses a flavor named twice in one list (it would be the same option twice).
 * Options hold trace flavor indices here. Returns 0 or 1 (reported). */
static int check_prefs_unique(struct parser *ps, uint32_t line, struct fld prefs,
			      const struct sim_job_option *o, size_t n)
{
	for (size_t k = 1; k < n; k++) {
		for (size_t m = 0; m < k; m++) {
			if (o[m].flavor_id != o[k].flavor_id)
				continue;
			row_err(ps, line, "prefs",
				"expected each flavor once in a list, found '%s' again as option %zu (first "
				"as option %zu) in '%.*s%s'",
				ps->t->flavors[o[k].flavor_id], k + 1, m + 1, SHOW(prefs));
			return 1;
		}
	}
	return 0;
}

/* The job's options into t->opts[n_opts...]; sets opt_first, n_opts, has_prefs.
 * A preference list comes in one of two forms (traces/README.md): a count on every
 * option ("h100:gpu=8;a100:gpu=16@5400", no request), or bare flavor names with the
 * shared count in request ("*:gpu=8" with "h100;a100@5400"). Either way every
 * option ends up with its own request vector. Returns 0, 1 on bad input (reported)
 * or -SIM_ENOMEM. */
static int parse_request(struct parser *ps, uint32_t line, struct sim_job *j)
{
	struct sim_trace *t = ps->t;
	struct fld req = get(ps, COL_REQUEST), prefs = get(ps, COL_PREFS);
	struct sim_job_option *o = &t->opts[t->n_opts], shared;
	struct fld opt[SIM_MAX_OPTIONS];
	size_t n_counted, empty;
	int shared_form, r;

	j->opt_first = (uint32_t)t->n_opts;
	if (!prefs.len)
		return parse_single(ps, line, req, j, o);

	size_t n = split_prefs(prefs, opt, &n_counted, &empty);
	if ((r = check_prefs_form(ps, line, prefs, req, n, n_counted, empty, &shared_form)) != 0)
		return r;
	if (shared_form && (r = parse_shared_count(ps, line, req, &shared)) != 0)
		return r;
	for (size_t k = 0; k < n; k++) {
		sim_time_t d;
		if (shared_form)
			r = parse_bare_option(ps, line, opt[k], prefs, &shared, &o[k], &d);
		else
			r = parse_option(ps, line, "prefs", opt[k], prefs, &o[k], &d);
		if (r)
			return r;
		if (k == 0) {
			if (d && d != j->duration_ns) {
				row_err(ps, line, "prefs",
					"expected the first option's @DURATION_S to equal "
					"duration_s or be left out, found '%.*s%s'",
					SHOW(opt[k]));
				return 1;
			}
			d = j->duration_ns;
		}
		o[k].duration_ns = d;
	}
	if ((r = check_prefs_unique(ps, line, prefs, o, n)) != 0)
		return r;
	j->n_opts = (uint8_t)n;
	j->has_prefs = 1;
	t->n_opts += n;
	return 0;
}

/* Optional time column: empty = SIM_TIME_NONE. */
static void opt_secs(struct parser *ps, uint32_t line, enum col c, int positive, sim_time_t *out)
{
	struct fld v = get(ps, c);
	*out = SIM_TIME_NONE;
	if (v.len && parse_secs(v, positive, out) < 0)
		row_err(ps, line, col_names[c],
			"expected seconds %s (decimal, at most 9 fractional digits, at "
			"most 1e9) or empty, found '%.*s%s'",
			positive ? "> 0" : ">= 0", SHOW(v));
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 64;
	while (ncap < need)
		ncap *= 2;
	void *na = realloc(*arr, ncap * elem);
	if (!na)
		return -SIM_ENOMEM;
	*arr = na;
	*cap = ncap;
	return 0;
}

/* Parses one data row (already split into ps->f). Returns 0 (errors, if any, are
 * reported and counted) or -SIM_ENOMEM. */
static int parse_row(struct parser *ps, uint32_t line)
{
	struct sim_trace *t = ps->t;
	int r;

	if (ps->fixed && (t->n_jobs + 1 > ps->cap_jobs || t->n_opts + SIM_MAX_OPTIONS > ps->cap_opts ||
			  t->n_jobs + 1 > ps->cap_id_hash)) {
		ps->n_err++; /* cannot happen (sized from the line count); the exact pass decides */
		return 0;
	}
	if (grow((void **)&t->jobs, &ps->cap_jobs, t->n_jobs + 1, sizeof *t->jobs) < 0 ||
	    grow((void **)&t->opts, &ps->cap_opts, t->n_opts + SIM_MAX_OPTIONS, sizeof *t->opts) < 0 ||
	    (ps->fast &&
	     grow((void **)&ps->id_hash, &ps->cap_id_hash, t->n_jobs + 1, sizeof *ps->id_hash) < 0))
		return -SIM_ENOMEM;
	struct sim_job *j = &t->jobs[t->n_jobs];
	memset(j, 0, sizeof *j);
	j->idx = (uint32_t)t->n_jobs; /* row order; presort_jobs renumbers if it moves jobs */
	j->line = line;
	j->user = -1;
	j->preemptible = 1;
	/* Run state as sim_trace_reset() sets it (eff_priority below, with priority). */
	j->state = SIM_JOB_UNSUBMITTED;
	j->opt_chosen = -1;
	j->start_ns = SIM_TIME_NONE;
	j->last_start_ns = SIM_TIME_NONE;
	j->end_ns = SIM_TIME_NONE;
	j->alloc.flavor = -1;

	/* id: unique across the trace, stored in t->strings. In the exact pass the id
	 * table is large (16 MiB for a million jobs), so its probe is a cache miss: hash
	 * now, prefetch the slot, parse the other columns, and probe last. */
	struct fld id = get(ps, COL_ID);
	uint32_t id_hash = 0;
	if (!ps->fast) {
		id_hash = hash_bytes(id.p, id.len);
#ifdef __GNUC__
		__builtin_prefetch(&ps->ids.slots[id_hash & (ps->ids.cap - 1)]);
#endif
	}

	struct fld v = get(ps, COL_SUBMIT);
	if (parse_secs(v, 0, &j->submit_ns) < 0)
		row_err(ps, line, "submit_s",
			"expected seconds >= 0 (decimal, at most 9 fractional digits, at "
			"most 1e9), found '%.*s%s'",
			SHOW(v));
	if (t->n_jobs > ps->job_base && j->submit_ns < j[-1].submit_ns)
		ps->unsorted = 1;
	v = get(ps, COL_DURATION);
	int dur_ok = parse_secs(v, 1, &j->duration_ns) == 0;
	if (!dur_ok)
		row_err(ps, line, "duration_s",
			"expected seconds > 0 (decimal, at most 9 fractional digits, at "
			"most 1e9), found '%.*s%s'",
			SHOW(v));

	v = get(ps, COL_QUEUE);
	if (!v.len) {
		v.p = "default";
		v.len = 7;
	}
	if (!name_ok(v, NAME_MAX_LEN)) {
		row_err(ps, line, "queue",
			"expected a queue name of up to %d bytes without control characters, "
			"found '%.*s%s'",
			NAME_MAX_LEN, SHOW(v));
	} else if ((r = intern(ps, &ps->queues, queue_key, sim_trace_intern_queue, v)) < 0) {
		return r;
	} else {
		j->queue = r;
	}

	v = get(ps, COL_USER);
	if (v.len) {
		if (!name_ok(v, NAME_MAX_LEN))
			row_err(ps, line, "user",
				"expected a user name of up to %d bytes without control "
				"characters, found '%.*s%s'",
				NAME_MAX_LEN, SHOW(v));
		else if ((r = intern(ps, &ps->users, user_key, sim_trace_intern_user, v)) < 0)
			return r;
		else
			j->user = r;
	}

	v = get(ps, COL_PRIORITY);
	if (v.len && parse_int32(v, &j->priority) < 0)
		row_err(ps, line, "priority", "expected an integer in [%ld, %ld] or empty, found '%.*s%s'",
			(long)INT32_MIN, (long)INT32_MAX, SHOW(v));
	j->eff_priority = j->priority;

	/* Options need the duration (option 0 runs for duration_s); skip them when it
	 * is bad rather than report a second, confusing error. */
	if (dur_ok && (r = parse_request(ps, line, j)) < 0)
		return r;

	opt_secs(ps, line, COL_MAX_PENDING, 0, &j->max_pending_ns);
	opt_secs(ps, line, COL_CHECKPOINT, 1, &j->checkpoint_ns);
	opt_secs(ps, line, COL_DEADLINE, 0, &j->deadline_ns);
	if (j->deadline_ns != SIM_TIME_NONE && j->deadline_ns < j->submit_ns) {
		v = get(ps, COL_DEADLINE);
		row_err(ps, line, "deadline_s",
			"expected an absolute time >= submit_s (seconds from trace "
			"start), found '%.*s%s'",
			SHOW(v));
	}
	opt_secs(ps, line, COL_ESTIMATE, 1, &j->estimate_ns);
	if (j->estimate_ns == SIM_TIME_NONE)
		j->estimate_ns = j->duration_ns;
	/* SageMaker's MaxWaitTimeInSeconds must be at least MaxRuntimeInSeconds: here
	 * it must exceed the job's run time limit, its estimate (else its duration). */
	sim_time_t mw;
	opt_secs(ps, line, COL_MAX_WAIT, 1, &mw);
	if (mw != SIM_TIME_NONE && dur_ok && mw <= j->estimate_ns) {
		v = get(ps, COL_MAX_WAIT);
		row_err(ps, line, "max_wait_s",
			"expected seconds > the job's run time limit (estimate_s, else duration_s: %g s), "
			"found '%.*s%s'",
			sim_time_to_s(j->estimate_ns), SHOW(v));
	} else if (mw != SIM_TIME_NONE) {
		j->max_wait_ns = mw;
	}

	v = get(ps, COL_PREEMPTIBLE);
	if (!v.len || fld_eq(v, "1") || fld_eq(v, "true") || fld_eq(v, "TRUE") || fld_eq(v, "True"))
		j->preemptible = 1;
	else if (fld_eq(v, "0") || fld_eq(v, "false") || fld_eq(v, "FALSE") || fld_eq(v, "False"))
		j->preemptible = 0;
	else
		row_err(ps, line, "preemptible", "expected 0, 1, true, false or empty, found '%.*s%s'",
			SHOW(v));

	if (!name_ok(id, SIZE_MAX)) {
		row_err(ps, line, "id", "expected a non-empty id without control characters, found '%.*s%s'",
			SHOW(id));
	} else if (t->strings_len + id.len + 1 > UINT32_MAX) {
		row_err(ps, line, "id", "expected ids totalling under 4 GiB, found more");
	} else {
		struct hslot *s = NULL;
		if (!ps->fast)
			s = hmap_probe(&ps->ids, id_hash, id.p, id.len, id_key, t);
		if (s && s->val != HMAP_EMPTY) {
			row_err(ps, line, "id", "expected a unique id, found '%.*s%s' again (first at %s:%u)",
				SHOW(id), ps->name, (unsigned)t->jobs[s->val].line);
		} else {
			if (grow((void **)&t->strings, &ps->cap_str, t->strings_len + id.len + 1, 1) < 0)
				return -SIM_ENOMEM;
			j->id_off = (uint32_t)t->strings_len;
			memcpy(t->strings + t->strings_len, id.p, id.len);
			t->strings[t->strings_len + id.len] = '\0';
			t->strings_len += id.len + 1;
			if (ps->fast)
				ps->id_hash[t->n_jobs] = sim_fnv1a64(id.p, id.len);
			else if (hmap_fill(&ps->ids, s, id_hash, (uint32_t)t->n_jobs) < 0)
				return -SIM_ENOMEM;
		}
	}

	t->n_jobs++;
	return 0;
}

/* Header row: maps column names to field indices. Returns 0 (errors reported and
 * counted) or -SIM_ENOMEM. */
static int parse_header(struct parser *ps, uint32_t line, const char *p, const char *end)
{
	size_t max = (size_t)(end - p) + 1; /* at most one field a byte, plus one */
	struct fld *hf = malloc(max * sizeof *hf);
	int n;

	if (!hf)
		return -SIM_ENOMEM;
	n = split_row(ps, line, p, end, hf, (int)max);
	if (n < 0)
		goto out_free_hf;
	for (int i = 0; i < n; i++) {
		int c;
		for (c = 0; c < COL_COUNT_; c++)
			if (fld_eq(hf[i], col_names[c]))
				break;
		if (c == COL_COUNT_) {
			row_err(ps, line, NULL, "column %.*s%s: expected one of " COL_LIST ", found '%.*s%s'",
				SHOW(hf[i]), SHOW(hf[i]));
		} else if (ps->col_of[c] >= 0) {
			row_err(ps, line, col_names[c],
				"expected each column once, found '%s' again as column %d "
				"(first as column %d)",
				col_names[c], i + 1, ps->col_of[c] + 1);
		} else {
			ps->col_of[c] = i;
		}
	}
	for (int c = COL_ID; c <= COL_DURATION; c++)
		if (ps->col_of[c] < 0)
			row_err(ps, line, col_names[c],
				"expected a required column (id, submit_s, duration_s "
				"are required), found none");
	ps->n_cols = n;
	ps->t->has_estimates = ps->col_of[COL_ESTIMATE] >= 0;
out_free_hf:
	free(hf);
	return 0;
}

/* Puts jobs in (submit_ns, line) order and numbers idx, as sim_trace_sort() would.
 * Rows were appended in line order with idx = row, and `unsorted` says whether a
 * row's submit_s was below the one before, so a trace already in order (the common
 * case) is left as it is. Why not let sim_trace_sort() qsort: a job is 160 bytes,
 * and qsort of a million of them takes about 0.4 s here. Instead the keys
 * (submit, row) are radix-sorted as 16-byte records and the jobs moved once, in
 * place along the permutation's cycles (a second job array would cost 160 MB of
 * fresh pages, and page faults are most of the load time already). The LSD radix
 * sort is stable and rows were appended in line order, so ties keep line order.
 * gsl_sort_index cannot stand in: it sorts doubles (submit_ns needs 63 bits) and
 * is not stable. Bytes equal in every key are skipped, so a trace spanning days
 * takes 5 or 6 passes. Returns 0 or -SIM_ENOMEM (trace unchanged). */
struct sort_key {
	uint64_t submit_ns;
	uint64_t row;
};

static int presort_jobs(struct sim_trace *t, int unsorted)
{
	size_t n = t->n_jobs;
	size_t i;

	if (!unsorted)
		return 0; /* rows came in submit order (the common case for generated traces) */

	struct sort_key *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
	int err = -SIM_ENOMEM;
	if (!a || !b)
		goto out_free;
	uint64_t all_or = 0, all_and = UINT64_MAX;
	for (i = 0; i < n; i++) {
		a[i].submit_ns = (uint64_t)t->jobs[i].submit_ns;
		a[i].row = i;
		all_or |= a[i].submit_ns;
		all_and &= a[i].submit_ns;
	}
	for (int shift = 0; shift < 64; shift += 8) {
		size_t count[257] = { 0 };
		if (((all_or ^ all_and) >> shift & 0xff) == 0)
			continue; /* this byte is the same in every key */
		for (i = 0; i < n; i++)
			count[(a[i].submit_ns >> shift & 0xff) + 1]++;
		for (int k = 0; k < 256; k++)
			count[k + 1] += count[k];
		for (i = 0; i < n; i++)
			b[count[a[i].submit_ns >> shift & 0xff]++] = a[i];
		struct sort_key *s = a;
		a = b;
		b = s;
	}
	/* Position i takes the job now at perm[i]. Follow each cycle once, marking
	 * placed positions with perm[k] = k. The cycle's next index is a dependent
	 * load, so perm is a compact uint32 array (4 MB a million jobs: it stays in
	 * cache), and the next job is prefetched while this one moves. */
	uint32_t *perm = (uint32_t *)b; /* b is free now and large enough */
	for (i = 0; i < n; i++)
		perm[i] = (uint32_t)a[i].row;
	for (i = 0; i < n; i++) {
		if (perm[i] == i)
			continue;
		struct sim_job held = t->jobs[i];
		size_t k = i;
		while (perm[k] != i) {
			size_t src = perm[k];
#ifdef __GNUC__
			const char *nx = (const char *)&t->jobs[perm[src]];
			__builtin_prefetch(nx);
			__builtin_prefetch(nx + 64);
			__builtin_prefetch(nx + 128);
#endif
			t->jobs[k] = t->jobs[src];
			perm[k] = (uint32_t)k;
			k = src;
		}
		t->jobs[k] = held;
		perm[k] = (uint32_t)k;
	}
	for (i = 0; i < n; i++)
		t->jobs[i].idx = (uint32_t)i;
	err = 0;
out_free:
	free(b);
	free(a);
	return err;
}

/* Fast pass: sets *maybe to 1 when two of the n 64-bit id hashes are equal. The
 * hashes are split on their top 11 bits into 2048 runs (a counting pass and a
 * scatter pass), and each run, a few KB, goes through a small open-addressing set
 * that stays in L1; O(n) with no random access to a large table. Returns 0 or
 * -SIM_ENOMEM. */
#define DUP_TOP_BITS 11

static int ids_maybe_dup(const uint64_t *h, size_t n, int *maybe)
{
	size_t nb = (size_t)1 << DUP_TOP_BITS;
	size_t *start = calloc(nb + 1, sizeof *start), *pos = malloc(nb * sizeof *pos);
	uint64_t *part = malloc((n ? n : 1) * sizeof *part);
	uint64_t *set = NULL;
	uint32_t *gen = NULL;
	int err = -SIM_ENOMEM;

	*maybe = 0;
	if (!start || !pos || !part)
		goto out_free;
	for (size_t i = 0; i < n; i++)
		start[(h[i] >> (64 - DUP_TOP_BITS)) + 1]++;
	size_t most = 0;
	for (size_t b = 0; b < nb; b++) {
		if (start[b + 1] > most)
			most = start[b + 1];
		start[b + 1] += start[b];
		pos[b] = start[b];
	}
	for (size_t i = 0; i < n; i++)
		part[pos[h[i] >> (64 - DUP_TOP_BITS)]++] = h[i];
	size_t cap = 16;
	while (cap < 2 * most)
		cap *= 2;
	set = malloc(cap * sizeof *set);
	gen = calloc(cap, sizeof *gen); /* slot s holds a hash of run b when gen[s] == b + 1 */
	if (!set || !gen)
		goto out_free;
	for (size_t b = 0; b < nb && !*maybe; b++) {
		for (size_t i = start[b]; i < start[b + 1]; i++) {
			uint64_t x = part[i];
			size_t s = (size_t)(x ^ x >> 29) & (cap - 1);
			while (gen[s] == b + 1 && set[s] != x)
				s = (s + 1) & (cap - 1);
			if (gen[s] == b + 1) {
				*maybe = 1;
				break;
			}
			gen[s] = (uint32_t)(b + 1);
			set[s] = x;
		}
	}
	err = 0;
out_free:
	free(gen);
	free(set);
	free(part);
	free(pos);
	free(start);
	return err;
}

/* Newlines plus one. A counting loop (the compiler vectorizes it), not a memchr
 * call a line. */
static size_t count_lines(const char *buf, size_t len)
{
	size_t n = 1;
	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\n';
	return n;
}

static void parser_fini(struct parser *ps)
{
	hmap_fini(&ps->ids);
	hmap_fini(&ps->queues);
	hmap_fini(&ps->users);
	hmap_fini(&ps->flavors);
	free(ps->id_hash);
	free(ps->f);
	free(ps->scratch);
}

/* A mapped trace's pages are dropped from the process behind the parser, DROP_BYTES
 * at a time (madvise MADV_DONTNEED): they count in the resident set while mapped,
 * and the file's 40 MB a million jobs would add to the peak that the job array sets
 * (analysis: bench/README.md). The mapping is private and read-only, so a page read
 * again (the exact pass, a message) is read back from the file as it was. */
#define DROP_BYTES ((size_t)8 << 20)

static void drop_behind(const char *buf, const char *upto, const char **done)
{
#ifdef MADV_DONTNEED
	const uintptr_t page = 4096;
	if ((size_t)(upto - *done) < DROP_BYTES)
		return;
	uintptr_t a = ((uintptr_t)*done + page - 1) & ~(page - 1);
	uintptr_t e = (uintptr_t)upto & ~(page - 1);
	if (a < (uintptr_t)buf)
		a = ((uintptr_t)buf + page - 1) & ~(page - 1);
	if (e > a)
		(void)madvise((void *)a, (size_t)(e - a), MADV_DONTNEED);
	*done = upto;
#else
	(void)buf;
	(void)upto;
	(void)done;
#endif
}

/* Parses the lines of [*pp, end) (line numbers after *line), the header first if
 * *have_header is 0; with header_only, stops after the header. mapped: buf is a
 * private read-only mapping of the file, whose pages are dropped behind the parse
 * from *dropped on. Returns 0 or -SIM_ENOMEM; bad rows are counted (and in the exact
 * pass reported) in ps. */
static int parse_lines(struct parser *ps, const char *buf, const char **pp, const char *end, uint32_t *line,
		       int *have_header, int header_only, int mapped, const char **dropped)
{
	const char *p = *pp;
	int err = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *next = nl ? nl + 1 : end;
		const char *s = p;
		++*line;
		if (le > p && le[-1] == '\r')
			le--;
		while (s < le && is_blank(*s))
			s++;
		if (s == le || *s == '#') {
			p = next;
			continue;
		}
		if (*line == UINT32_MAX) {
			row_err(ps, *line, NULL, "expected at most %u lines, found more", (unsigned)UINT32_MAX - 1);
			break;
		}
		if (grow((void **)&ps->scratch, &ps->scratch_cap, (size_t)(le - p) + 1, 1) < 0) {
			err = -SIM_ENOMEM;
			break;
		}
		if (!*have_header) {
			*have_header = 1;
			if ((err = parse_header(ps, *line, p, le)) < 0)
				break;
			p = next;
			if (ps->n_err)
				break; /* rows cannot be read against a broken header */
			ps->f = malloc((size_t)ps->n_cols * sizeof *ps->f);
			if (!ps->f) {
				err = -SIM_ENOMEM;
				break;
			}
			if (header_only)
				break;
			continue;
		}
		int n = split_row(ps, *line, p, le, ps->f, ps->n_cols);
		if (n >= 0 && n != ps->n_cols)
			row_err(ps, *line, NULL, "expected %d fields as in the header, found %d", ps->n_cols, n);
		else if (n >= 0 && (err = parse_row(ps, *line)) < 0)
			break;
		p = next;
		if (mapped)
			drop_behind(buf, p, dropped);
	}
	*pp = p;
	return err;
}

/* ---- the fast pass in two halves ----
 * A large trace's fast pass runs on two threads: the rows after the header are cut
 * at the first line end past their middle, and a second thread parses the second
 * half while this one parses the first. The result is the serial pass's, byte for
 * byte: the second half writes its jobs and options straight into the shared
 * arrays (sized from the line count, never reallocated while both run) at the
 * index the serial pass would give them, which it learns by counting the first
 * half's data rows (every non-blank, non-comment line after the header is one job
 * in a trace without errors, and a trace with errors goes to the exact pass
 * anyway); its line numbers continue the first half's. Names are interned by each
 * half on its own and merged after: the second half's queues, users, flavors and
 * resources are interned into the trace in the order it first saw them, after the
 * first half's, which is the serial order of first use; its rows and options are
 * then renumbered, and its ids appended to the trace's strings. Only the fast pass
 * splits, and only without a prefs column (a job then has exactly one option, so
 * option k belongs to job k); errors, found by either half, send the file to the
 * exact pass, which is serial and reports them in file order. */
#define SPLIT_MIN_BYTES ((size_t)4 << 20) /* smaller traces parse in one go */
static size_t split_min = SPLIT_MIN_BYTES;

void trace_native_set_split_min(size_t bytes) { split_min = bytes; }

struct half {
	struct parser ps;
	const char *buf, *first, *split, *end; /* rows of the first half: [first, split) */
	uint32_t line0;			      /* the first half's line count up to split */
	int mapped;
	int err; /* -SIM_ENOMEM, or 0 */
};

/* Whether [s, le) (a line without its '\n') is a data row or the header: not blank
 * (after a '\r' and blanks) and not a comment. The same test as parse_lines'. */
static int is_data_line(const char *s, const char *le)
{
	if (le > s && le[-1] == '\r')
		le--;
	while (s < le && is_blank(*s))
		s++;
	return s < le && *s != '#';
}

static size_t count_data_lines(const char *p, const char *end)
{
	size_t n = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		n += is_data_line(p, le);
		p = nl ? nl + 1 : end;
	}
	return n;
}

/* The second half's thread: its start index, then its rows. */
static void *half_run(void *arg)
{
	struct half *h = arg;
	struct parser *ps = &h->ps;
	size_t base = count_data_lines(h->first, h->split);
	ps->t->n_jobs = base;
	ps->t->n_opts = base;
	ps->job_base = base;
	const char *p = h->split, *dropped = h->split;
	uint32_t line = h->line0;
	int have_header = 1;
	h->err = parse_lines(ps, h->buf, &p, h->end, &line, &have_header, 0, h->mapped, &dropped);
	return NULL;
}

/* The second half's parser: ps's header, the shared arrays, its own names. */
static int half_init(struct half *h, const struct parser *ps)
{
	struct parser *q = &h->ps;
	memset(q, 0, sizeof *q);
	q->name = ps->name;
	q->diag = ps->diag;
	q->fast = 1;
	q->fixed = 1;
	memcpy(q->col_of, ps->col_of, sizeof q->col_of);
	q->n_cols = ps->n_cols;
	q->t = sim_trace_create();
	q->f = malloc((size_t)ps->n_cols * sizeof *q->f);
	if (!q->t || !q->f || hmap_init(&q->queues, 8) < 0 || hmap_init(&q->users, 8) < 0 ||
	    hmap_init(&q->flavors, 8) < 0 ||
	    grow((void **)&q->t->strings, &q->cap_str, (size_t)(h->end - h->split) / 3 + 64, 1) < 0)
		return -SIM_ENOMEM;
	q->t->jobs = ps->t->jobs;
	q->cap_jobs = ps->cap_jobs;
	q->t->opts = ps->t->opts;
	q->cap_opts = ps->cap_opts;
	q->id_hash = ps->id_hash;
	q->cap_id_hash = ps->cap_id_hash;
	return 0;
}

static void half_fini(struct half *h)
{
	struct parser *q = &h->ps;
	if (q->t) {
		q->t->jobs = NULL; /* the shared arrays are the trace's */
		q->t->n_jobs = 0;
		q->t->opts = NULL;
	}
	q->id_hash = NULL;
	sim_trace_destroy(q->t);
	parser_fini(q);
}

/* Interns each of the n names of the second half into ps (first use order) and
 * sets map[i] to its index in the trace. Returns 0 or -SIM_ENOMEM. */
static int merge_names(struct parser *ps, struct hmap *m, key_fn kf, int (*add)(struct sim_trace *, const char *),
		       char **names, size_t n, int32_t *map)
{
	for (size_t i = 0; i < n; i++) {
		struct fld v = { names[i], strlen(names[i]) };
		int r = intern(ps, m, kf, add, v);
		if (r < 0)
			return r;
		map[i] = r;
	}
	return 0;
}

/* Appends the second half (no errors in either) to ps->t. Returns 0, 1 (the exact
 * pass must decide: the merged trace breaks a limit neither half did) or
 * -SIM_ENOMEM. */
static int half_merge(struct parser *ps, struct half *h)
{
	struct sim_trace *t = ps->t, *u = h->ps.t;
	size_t base = h->ps.job_base, n2 = u->n_jobs - base;
	if (t->n_jobs != base || t->n_opts != base || u->n_opts != u->n_jobs)
		return 1;
	int32_t *qmap = malloc((u->n_queues + u->n_users + u->n_flavors + 1) * sizeof *qmap);
	if (!qmap)
		return -SIM_ENOMEM;
	int32_t *umap = qmap + u->n_queues, *fmap = umap + u->n_users;
	int rmap[SIM_MAX_RES], r = 0, same_res = 1;
	if ((r = merge_names(ps, &ps->queues, queue_key, sim_trace_intern_queue, u->queues, u->n_queues, qmap)) ||
	    (r = merge_names(ps, &ps->users, user_key, sim_trace_intern_user, u->users, u->n_users, umap)) ||
	    (r = merge_names(ps, &ps->flavors, flavor_key, sim_trace_intern_flavor, u->flavors, u->n_flavors,
			     fmap)))
		goto out;
	for (int k = 0; k < u->res.n; k++) {
		rmap[k] = res_index(&t->res, u->res.names[k], strlen(u->res.names[k]));
		if (rmap[k] < 0) {
			r = 1; /* more resources than a trace may name: the exact pass says where */
			goto out;
		}
		same_res &= rmap[k] == k;
	}
	if (t->strings_len + u->strings_len > UINT32_MAX) {
		r = 1;
		goto out;
	}
	if ((r = grow((void **)&t->strings, &ps->cap_str, t->strings_len + u->strings_len, 1)) < 0)
		goto out;
	memcpy(t->strings + t->strings_len, u->strings, u->strings_len);
	uint32_t off = (uint32_t)t->strings_len;
	t->strings_len += u->strings_len;
	for (size_t i = base; i < base + n2; i++) {
		struct sim_job *j = &t->jobs[i];
		j->id_off += off;
		j->queue = qmap[j->queue];
		if (j->user >= 0)
			j->user = umap[j->user];
		struct sim_job_option *o = &t->opts[i];
		if (o->flavor_id != SIM_FLAVOR_ANY)
			o->flavor_id = fmap[o->flavor_id];
		if (!same_res) {
			sim_qty_t q[SIM_MAX_RES] = { 0 };
			for (int k = 0; k < u->res.n; k++)
				q[rmap[k]] = o->req[k];
			memcpy(o->req, q, sizeof q);
		}
	}
	if (h->ps.unsorted || (base && n2 && t->jobs[base].submit_ns < t->jobs[base - 1].submit_ns))
		ps->unsorted = 1;
	t->n_jobs += n2;
	t->n_opts += n2;
out:
	free(qmap);
	return r;
}

/* Whether the rows after the header are worth splitting: a fast pass, no prefs
 * column, enough bytes, and a second CPU. */
static int split_worth(const struct parser *ps, size_t rows_bytes)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return ps->fast && ps->col_of[COL_PREFS] < 0 && rows_bytes >= split_min && rows_bytes >= 2 &&
	       (cpus >= 2 || split_min == 0);
}

/* The rows [p, end) of the fast pass in two halves (see above); line is the header's
 * line. Returns 0 (ps->n_err counts what either half found, or 1 when the merge
 * needs the exact pass) or -SIM_ENOMEM. */
static int parse_split(struct parser *ps, const char *buf, const char *p, const char *end, uint32_t line,
		       int mapped)
{
	const char *mid = memchr(p + (end - p) / 2, '\n', (size_t)(end - (p + (end - p) / 2)));
	const char *dropped = buf;
	int have_header = 1, err;
	if (!mid || mid + 1 >= end) /* one long line: nothing to split */
		return parse_lines(ps, buf, &p, end, &line, &have_header, 0, mapped, &dropped);
	struct half h = { .buf = buf, .first = p, .split = mid + 1, .end = end, .mapped = mapped };
	h.line0 = line + (uint32_t)(count_lines(p, (size_t)(h.split - p)) - 1);
	if ((err = half_init(&h, ps)) < 0)
		goto out;
	pthread_t tid;
	int threaded = pthread_create(&tid, NULL, half_run, &h) == 0;
	const char *q = p;
	err = parse_lines(ps, buf, &q, h.split, &line, &have_header, 0, mapped, &dropped);
	if (threaded)
		pthread_join(tid, NULL);
	else
		half_run(&h); /* no thread: the second half after the first, here */
	if (!err)
		err = h.err;
	ps->n_err += h.ps.n_err;
	if (!err && !ps->n_err && (err = half_merge(ps, &h)) == 1) {
		ps->n_err++; /* to the exact pass */
		err = 0;
	}
out:
	half_fini(&h);
	return err;
}

/* One pass over the file (see the top): fast = 1 counts errors only and checks ids
 * by hash. Returns 0 and *out, -SIM_EPARSE (errors; reported unless fast),
 * -SIM_ENOMEM, or in the fast pass 1: parse again with the exact pass. mapped: buf
 * is a private read-only mapping of the file, whose pages may be dropped behind the
 * parse. */
static int parse_pass(const char *name, const char *buf, size_t len, struct sim_trace **out,
		      struct sim_diag *diag, int fast, int mapped)
{
	const char *dropped = buf;
	struct parser ps;
	const char *p = buf, *end = buf + len;
	uint32_t line = 0;
	int have_header = 0;
	int err = 0;

	*out = NULL;
	memset(&ps, 0, sizeof ps);
	ps.name = name;
	ps.diag = diag;
	ps.fast = fast;
	for (int c = 0; c < COL_COUNT_; c++)
		ps.col_of[c] = -1;
	ps.t = sim_trace_create();
	if (!ps.t)
		return -SIM_ENOMEM;
	ps.t->path = strdup(name);
	if (!ps.t->path) {
		err = -SIM_ENOMEM;
		goto out_free_trace;
	}

	/* Size everything from the line count: one job a line, one option a job, ids
	 * of about 12 bytes; the arrays grow geometrically if that was short. */
	size_t n_lines = count_lines(buf, len);
	if (grow((void **)&ps.t->jobs, &ps.cap_jobs, n_lines, sizeof *ps.t->jobs) < 0 ||
	    grow((void **)&ps.t->opts, &ps.cap_opts, n_lines + SIM_MAX_OPTIONS, sizeof *ps.t->opts) < 0 ||
	    grow((void **)&ps.t->strings, &ps.cap_str, n_lines * 12 + 64, 1) < 0 ||
	    (fast ? grow((void **)&ps.id_hash, &ps.cap_id_hash, n_lines, sizeof *ps.id_hash)
		  : hmap_init(&ps.ids, n_lines)) < 0 ||
	    hmap_init(&ps.queues, 8) < 0 || hmap_init(&ps.users, 8) < 0 || hmap_init(&ps.flavors, 8) < 0) {
		err = -SIM_ENOMEM;
		goto out_free_parser;
	}

	if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3; /* UTF-8 byte order mark, as spreadsheets write it */
	if ((err = parse_lines(&ps, buf, &p, end, &line, &have_header, 1, mapped, &dropped)) < 0)
		goto out_free_parser;
	if (have_header && !ps.n_err) {
		if (split_worth(&ps, (size_t)(end - p)))
			err = parse_split(&ps, buf, p, end, line, mapped);
		else
			err = parse_lines(&ps, buf, &p, end, &line, &have_header, 0, mapped, &dropped);
		if (err < 0)
			goto out_free_parser;
	}
	if (!have_header)
		row_err(&ps, line ? line : 1, NULL,
			"expected a header row naming the columns (" COL_LIST "), found none");
	if (ps.n_err) {
		err = fast ? 1 : -SIM_EPARSE;
		goto out_free_parser;
	}
	if (fast) {
		int maybe;
		if ((err = ids_maybe_dup(ps.id_hash, ps.t->n_jobs, &maybe)) < 0)
			goto out_free_parser;
		if (maybe) {
			err = 1;
			goto out_free_parser;
		}
	}
	/* Rows set idx and the run state as they were read; presort orders and
	 * renumbers, so sim_trace_sort() and sim_trace_reset() would change nothing. */
	if ((err = presort_jobs(ps.t, ps.unsorted)) < 0)
		goto out_free_parser;
	parser_fini(&ps);
	*out = ps.t;
	return 0;

out_free_parser:
	parser_fini(&ps);
out_free_trace:
	sim_trace_destroy(ps.t);
	return err;
}

/* A NUL byte is never text: without this check it would end a field early in the
 * messages and pass through an id. Returns 0 or -SIM_EPARSE with the place. */
static int check_no_nul(const char *name, const char *buf, size_t len, struct sim_diag *diag)
{
	const char *z = memchr(buf, '\0', len);
	if (!z)
		return 0;
	size_t line = 1;
	const char *start = buf;
	for (const char *p = buf; (p = memchr(p, '\n', (size_t)(z - p))) != NULL; p++) {
		line++;
		start = p + 1;
	}
	char where[4096];
	snprintf(where, sizeof where, "%s:%zu", name, line);
	return sim_diag_add(diag, where, "NUL byte in line at byte %zu; expected text", (size_t)(z - start) + 1);
}

static int parse_both(const char *name, const char *buf, size_t len, struct sim_trace **out,
		      struct sim_diag *diag, int mapped)
{
	int err = check_no_nul(name, buf, len, diag);
	if (err < 0)
		return err;
	err = parse_pass(name, buf, len, out, diag, 1, mapped);
	if (err == 1)
		err = parse_pass(name, buf, len, out, diag, 0, mapped);
	return err;
}

int trace_native_parse(const char *name, const char *buf, size_t len, struct sim_trace **out,
		       struct sim_diag *diag)
{
	return parse_both(name, buf, len, out, diag, 0);
}

/* Reads all of FD (owned; PATH names it) through the shared line reader (sim/lines.h) into a fresh
 * buffer, one '\n' after each line: the way for what cannot be mapped or must be
 * decoded (a pipe, a FIFO, /dev/stdin, a gzip file). The reader stops at a NUL
 * byte, an overlong line and a cut or corrupt gzip stream with a located error, so
 * /dev/zero ends at once instead of filling memory. Returns 0 with *buf (malloc'd)
 * and *len, or the reader's -SIM_E* with its message in diag. */
static int read_lines(int fd, const char *path, char **buf, size_t *len, struct sim_diag *diag)
{
	struct sim_lines r;
	size_t cap = 64 * 1024, n = 0;
	int err = sim_lines_fdopen(&r, fd, path, diag);
	if (err < 0)
		return err;
	char *b = malloc(cap);
	if (!b)
		err = -SIM_ENOMEM;
	while (b && (err = sim_lines_next(&r)) > 0) {
		while (cap - n < r.len + 1) {
			char *nb = cap <= SIZE_MAX / 2 ? realloc(b, cap * 2) : NULL;
			if (!nb) {
				err = -SIM_ENOMEM;
				break;
			}
			b = nb;
			cap *= 2;
		}
		if (err < 0)
			break;
		memcpy(b + n, r.buf, r.len);
		n += r.len;
		b[n++] = '\n';
	}
	sim_lines_close(&r);
	if (err < 0) {
		if (err == -SIM_ENOMEM)
			sim_diag_add(diag, path, "cannot read trace: out of memory");
		free(b);
		return err;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* Whether the file starts with the gzip magic bytes (RFC 1952: 1f 8b). */
static int is_gzip(FILE *f)
{
	unsigned char m[2];
	int gz = fread(m, 1, 2, f) == 2 && m[0] == 0x1f && m[1] == 0x8b;
	rewind(f);
	return gz;
}

int trace_native_read(const char *path, struct sim_trace **out, struct sim_diag *diag)
{
	FILE *f;
	char *buf;
	size_t len;
	int err;

	*out = NULL;
	f = fopen(path, "rb");
	if (!f) {
		err = errno == ENOENT ? -SIM_ENOENT : -SIM_EIO;
		sim_diag_add(diag, path, "cannot open trace: %s", strerror(errno));
		return err;
	}
	struct stat st;
	if (fstat(fileno(f), &st) != 0) {
		sim_diag_add(diag, path, "cannot read trace: %s", strerror(errno));
		err = -SIM_EIO;
		goto out_close;
	}
	/* fopen opens a directory for reading on Linux; reading it fails with EISDIR. A
	 * trace path that names a directory is bad input, not a runtime failure. */
	if (S_ISDIR(st.st_mode)) {
		sim_diag_add(diag, path, "cannot read trace: %s", strerror(EISDIR));
		err = -SIM_EPARSE;
		goto out_close;
	}
	/* A regular file is mapped, not read: its pages are the page cache's, so there
	 * is no copy and no fresh page to fault in and zero (a tenth of the load time
	 * for 40 MB). The parser never reads past len, so no NUL is needed. Anything
	 * else (a pipe, a FIFO, /dev/stdin, an empty file, a gzip file, a failed map) is
	 * read line by line (read_lines) into a growing buffer. */
	if (S_ISREG(st.st_mode) && st.st_size > 0 && (uintmax_t)st.st_size <= SIZE_MAX && !is_gzip(f)) {
		len = (size_t)st.st_size;
		void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fileno(f), 0);
		if (map != MAP_FAILED) {
			(void)posix_madvise(map, len, POSIX_MADV_SEQUENTIAL);
			err = parse_both(path, map, len, out, diag, 1);
			munmap(map, len);
			fclose(f);
			return err;
		}
	}
	int fd = dup(fileno(f)); /* at offset 0: nothing was read, or is_gzip rewound */
	fclose(f);
	if (fd < 0) {
		sim_diag_add(diag, path, "cannot read trace: %s", strerror(errno));
		return -SIM_EIO;
	}
	if ((err = read_lines(fd, path, &buf, &len, diag)) < 0)
		return err;
	err = trace_native_parse(path, buf, len, out, diag);
	free(buf);
	return err;
out_close:
	fclose(f);
	return err;
}

/* ---- writer ---- */

/* ns as decimal seconds without trailing zeros ("3600", "0.5"). */
static void format_secs(sim_time_t ns, char *buf, size_t n)
{
	const char *sign = ns < 0 ? "-" : "";
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	uint64_t ip = a / (uint64_t)SIM_NS_PER_S, fp = a % (uint64_t)SIM_NS_PER_S;
	if (fp == 0) {
		snprintf(buf, n, "%s%llu", sign, (unsigned long long)ip);
		return;
	}
	char frac[16];
	snprintf(frac, sizeof frac, "%09llu", (unsigned long long)fp);
	for (int k = 8; k > 0 && frac[k] == '0'; k--)
		frac[k] = '\0';
	snprintf(buf, n, "%s%llu.%s", sign, (unsigned long long)ip, frac);
}

/* A string field, quoted (RFC 4180) when the reader would otherwise split, trim
 * or skip it: commas, quotes, line breaks, edge blanks, a leading '#'. */
static void put_str(FILE *f, const char *s)
{
	size_t len = strlen(s);
	int quote = len == 0 || s[0] == '#' || is_blank(s[0]) || is_blank(s[len - 1]) ||
		    strpbrk(s, ",\"\r\n") != NULL;
	if (!quote) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Appends option o as "FLAVOR:gpu=Q[,RES=Q...][@DURATION_S]" to buf (NUL-terminated,
 * cut at n bytes; OPT_BUF is always enough). */
#define OPT_BUF (SIM_NAME_MAX + SIM_MAX_RES * (SIM_NAME_MAX + 32) + 48)

static void fmt_option(char *buf, size_t n, const struct sim_trace *t, const struct sim_job_option *o,
		       int with_dur)
{
	char q[32];
	size_t len = strlen(buf);
	sim_qty_format(o->req[SIM_RES_GPU], q, sizeof q);
	len += (size_t)snprintf(buf + len, n - len, "%s:gpu=%s",
				o->flavor_id == SIM_FLAVOR_ANY ? "*" : t->flavors[o->flavor_id], q);
	for (int r = 1; r < t->res.n && len < n; r++) {
		if (!o->req[r])
			continue;
		sim_qty_format(o->req[r], q, sizeof q);
		len += (size_t)snprintf(buf + len, n - len, ",%s=%s", t->res.names[r], q);
	}
	if (with_dur && o->duration_ns && len < n) {
		format_secs(o->duration_ns, q, sizeof q);
		snprintf(buf + len, n - len, "@%s", q);
	}
}

static void put_opt_secs(FILE *f, sim_time_t ns)
{
	char b[32];
	fputc(',', f);
	if (ns != SIM_TIME_NONE) {
		format_secs(ns, b, sizeof b);
		fputs(b, f);
	}
}

int trace_native_write(const struct sim_trace *t, FILE *f)
{
	/* Only columns that carry something beyond their defaults are written. */
	int has_prefs = 0, has_req = 0, has_prio = 0, has_user = 0, has_pend = 0, has_dl = 0, has_ckpt = 0;
	int has_nonpre = 0, has_mw = 0;
	char b[32], opts[SIM_MAX_OPTIONS * (OPT_BUF + 1)];

	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct sim_job *j = &t->jobs[i];
		has_prefs |= j->has_prefs;
		has_req |= !j->has_prefs;
		has_prio |= j->priority != 0;
		has_user |= j->user >= 0;
		has_pend |= j->max_pending_ns != SIM_TIME_NONE;
		has_dl |= j->deadline_ns != SIM_TIME_NONE;
		has_ckpt |= j->checkpoint_ns != SIM_TIME_NONE;
		has_nonpre |= !j->preemptible;
		has_mw |= j->max_wait_ns > 0;
	}
	if (!has_prefs)
		has_req = 1;
	fputs("id,submit_s,duration_s,queue", f);
	if (has_prio)
		fputs(",priority", f);
	if (has_req)
		fputs(",request", f);
	if (has_prefs)
		fputs(",prefs", f);
	if (has_pend)
		fputs(",max_pending_s", f);
	if (has_dl)
		fputs(",deadline_s", f);
	if (has_ckpt)
		fputs(",checkpoint_s", f);
	if (has_user)
		fputs(",user", f);
	if (has_nonpre)
		fputs(",preemptible", f);
	if (t->has_estimates)
		fputs(",estimate_s", f);
	if (has_mw)
		fputs(",max_wait_s", f);
	fputc('\n', f);

	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct sim_job *j = &t->jobs[i];
		put_str(f, sim_job_id(t, j));
		format_secs(j->submit_ns, b, sizeof b);
		fprintf(f, ",%s,", b);
		format_secs(j->duration_ns, b, sizeof b);
		fprintf(f, "%s,", b);
		put_str(f, t->queues[j->queue]);
		if (has_prio)
			fprintf(f, ",%ld", (long)j->priority);
		if (has_req) {
			fputc(',', f);
			if (!j->has_prefs) {
				opts[0] = '\0';
				fmt_option(opts, sizeof opts, t, sim_job_opt(t, j, 0), 0);
				put_str(f, opts); /* quoted when it lists several resources */
			}
		}
		if (has_prefs) {
			fputc(',', f);
			opts[0] = '\0';
			for (int k = 0; j->has_prefs && k < j->n_opts; k++) {
				if (k)
					strcat(opts, ";");
				fmt_option(opts, sizeof opts, t, sim_job_opt(t, j, k), k > 0);
			}
			if (j->has_prefs)
				put_str(f, opts);
		}
		if (has_pend)
			put_opt_secs(f, j->max_pending_ns);
		if (has_dl)
			put_opt_secs(f, j->deadline_ns);
		if (has_ckpt)
			put_opt_secs(f, j->checkpoint_ns);
		if (has_user) {
			fputc(',', f);
			if (j->user >= 0)
				put_str(f, t->users[j->user]);
		}
		if (has_nonpre)
			fprintf(f, ",%d", j->preemptible ? 1 : 0);
		if (t->has_estimates)
			put_opt_secs(f, j->estimate_ns);
		if (has_mw)
			put_opt_secs(f, j->max_wait_ns > 0 ? j->max_wait_ns : SIM_TIME_NONE);
		fputc('\n', f);
	}
	return ferror(f) ? -SIM_EIO : 0;
}
