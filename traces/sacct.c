/* traces/sacct.c: Slurm `sacct --parsable2` output -> native trace (mapping in
 * sacct.h and traces/README.md). Two passes over a line reader (import.h), as
 * helios.c: the first checks and counts every row, sums GPU-hours per tenant and
 * finds the earliest submit; the second writes the kept rows in file order. */
#include "sacct.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "philly.h" /* trace_parse_utc */

#define SHOW_MAX 60
#define SHOW(s) (int)((s).len > SHOW_MAX ? SHOW_MAX : (s).len), (s).p, ((s).len > SHOW_MAX ? "..." : "")
/* sacct --format=ALL prints about 120 fields; room for all of them. */
#define MAX_FIELDS 192
#define MAX_GPUS 1000000
#define FLAVOR_MAX 64 /* a flavor name is under 64 bytes (the native format's rule) */
#define ID_MAX 255    /* the native format's id limit */
#define PRIORITY_MAX 2147483647

enum { C_JOBID, C_SUBMIT, C_ELAPSED, C_STATE, C_COUNT_ };
static const char *const col_names[C_COUNT_] = {"JobID", "Submit", "Elapsed", "State"};

#define R_FIELDS "wrong field count"
#define R_ID "bad JobID"
#define R_DUP "duplicate JobID"
#define R_ORPHAN "step not after its job"
#define R_STATE "bad State"
#define R_TIME "bad time"
#define R_TRES "bad TRES"
#define R_NAME "bad name"
#define R_PRIO "bad Priority"
#define R_STEP "job step (folded into its job)"
#define R_UNFINISHED "not finished"
#define R_CANCELLED "cancelled before start"
#define R_NEVER "never ran"
#define R_NOGPU "no GPU"

/* ---- JobID ---- */

/* What a JobID names. Grammar (as sacct prints them):
 *   JOB  = DIGITS [ '_' DIGITS | '_[' RANGE ']' | '+' DIGITS ]
 *   STEP = JOB '.' NAME       (batch, extern, interactive, 0, 1, ...)
 * '_' is an array task, '_[...]' the tasks of an array that have not started yet (one
 * row for all of them), '+' a component of a heterogeneous job. */
struct sa_jobid {
	int is_step;
	struct trace_span job; /* the JobID before '.': what a step folds into */
	int pending_range;     /* 123_[4-9%2]: never an id of the output */
	size_t het_plus;       /* offset of '+' in job, 0 when none */
};

static int is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static int is_alnum(char ch)
{
	return is_digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* Length of the run of digits at s[i..n). */
static size_t digits_at(const char *s, size_t n, size_t i)
{
	size_t k = i;
	while (k < n && is_digit(s[k]))
		k++;
	return k - i;
}

/* Offset just past the ']' of an array range starting at s[i] == '[', or 0. */
static size_t range_end(const char *s, size_t n, size_t i)
{
	size_t k = i + 1;
	while (k < n && s[k] != ']') {
		if (!is_digit(s[k]) && s[k] != ',' && s[k] != '-' && s[k] != '%' && s[k] != ':')
			return 0;
		k++;
	}
	return k < n && k > i + 1 ? k + 1 : 0;
}

/* Length of the JOB part at the start of s, filling id; 0 when s does not start
 * with one. */
static size_t parse_job_part(struct trace_span s, struct sa_jobid *id)
{
	size_t i = digits_at(s.p, s.len, 0);
	if (!i)
		return 0;
	if (i < s.len && s.p[i] == '_' && i + 1 < s.len && s.p[i + 1] == '[') {
		size_t e = range_end(s.p, s.len, i + 1);
		id->pending_range = 1;
		return e;
	}
	if (i < s.len && (s.p[i] == '_' || s.p[i] == '+')) {
		size_t d = digits_at(s.p, s.len, i + 1);
		if (!d)
			return 0;
		if (s.p[i] == '+')
			id->het_plus = i;
		return i + 1 + d;
	}
	return i;
}

/* 0 and *id, or -1 when S is not a JobID of the grammar above. */
static int parse_jobid(struct trace_span s, struct sa_jobid *id)
{
	memset(id, 0, sizeof *id);
	size_t i = parse_job_part(s, id);
	if (!i)
		return -1;
	id->job = (struct trace_span){s.p, i};
	if (i == s.len)
		return 0;
	if (s.p[i] != '.' || i + 1 == s.len)
		return -1;
	for (size_t k = i + 1; k < s.len; k++)
		if (!is_alnum(s.p[k]) && s.p[k] != '_' && s.p[k] != '+')
			return -1;
	id->is_step = 1;
	return 0;
}

/* The output id of a job: the JobID, with a het component's '+' spelled "-het"
 * (the native format's ids hold no '+'). Returns its length, 0 when it cannot be one. */
static size_t output_id(const struct sa_jobid *id, char *buf, size_t size)
{
	if (id->pending_range)
		return 0;
	struct trace_span j = id->job;
	int w = id->het_plus ? snprintf(buf, size, "%.*s-het%.*s", (int)id->het_plus, j.p,
					(int)(j.len - id->het_plus - 1), j.p + id->het_plus + 1)
			     : snprintf(buf, size, "%.*s", (int)j.len, j.p);
	if (w < 0 || (size_t)w >= size || !trace_id_ok((struct trace_span){buf, (size_t)w}))
		return 0;
	return (size_t)w;
}

/* ---- State ---- */

/* A job's final state (kept when it started) or one it can still leave (dropped:
 * its length is not known yet). States as `sacct` prints them (slurm.h). */
struct sa_state {
	const char *name;
	int finished;
};

static const struct sa_state states[] = {
    {"COMPLETED", 1},	  {"FAILED", 1},	{"CANCELLED", 1},     {"TIMEOUT", 1},
    {"PREEMPTED", 1},	  {"NODE_FAIL", 1},	{"OUT_OF_MEMORY", 1}, {"DEADLINE", 1},
    {"BOOT_FAIL", 1},	  {"REQUEUED", 1},	{"REVOKED", 1},	      {"SPECIAL_EXIT", 1},
    {"LAUNCH_FAILED", 1}, {"RECONFIG_FAIL", 1}, {"PENDING", 0},	      {"RUNNING", 0},
    {"SUSPENDED", 0},	  {"RESIZING", 0},	{"REQUEUE_HOLD", 0},  {"REQUEUE_FED", 0},
    {"STOPPED", 0},	  {"SIGNALING", 0},	{"STAGE_OUT", 0},     {"CONFIGURING", 0},
    {"COMPLETING", 0},	  {"RESV_DEL_HOLD", 0}, {"POWER_UP_NODE", 0},
};

/* The state named by the field's first word ("CANCELLED by 1000" is CANCELLED), or
 * NULL. */
static const struct sa_state *find_state(struct trace_span s)
{
	const char *sp = memchr(s.p, ' ', s.len);
	struct trace_span word = {s.p, sp ? (size_t)(sp - s.p) : s.len};
	for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
		if (trace_span_is(word, states[i].name))
			return &states[i];
	return NULL;
}

/* ---- times ---- */

#define WHEN_TOO_LATE (-2) /* a date past 64-bit Unix ns (2262-04-11) */
#define WHEN_NONE (-3)	   /* Start "Unknown", "None" or empty: the job never started */

/* "YYYY-MM-DDTHH:MM:SS" (sacct's default; read as UTC: the output keeps only
 * differences), the same with a blank, or Unix seconds (SLURM_TIME_FORMAT=%s), in
 * Unix ns; -1 when none of them, WHEN_TOO_LATE when past int64 ns. */
static int64_t parse_when(struct trace_span s)
{
	if (s.len == 19 && (s.p[10] == 'T' || s.p[10] == ' ')) {
		char buf[19];
		int64_t epoch_s;
		memcpy(buf, s.p, sizeof buf);
		buf[10] = ' ';
		if (trace_parse_utc(buf, sizeof buf, &epoch_s) < 0 || epoch_s < 0)
			return -1;
		return epoch_s > INT64_MAX / SIM_NS_PER_S ? WHEN_TOO_LATE : epoch_s * SIM_NS_PER_S;
	}
	return trace_parse_secs(s);
}

static int64_t parse_start(struct trace_span s)
{
	if (!s.len || trace_span_is(s, "Unknown") || trace_span_is(s, "None"))
		return WHEN_NONE;
	return parse_when(s);
}

/* 1 to max_digits digits at [p, e) into *v; -1 otherwise. */
static int parse_digits(const char *p, const char *e, int max_digits, int64_t *v)
{
	if (e <= p || e - p > max_digits)
		return -1;
	*v = 0;
	for (; p < e; p++) {
		if (!is_digit(*p))
			return -1;
		*v = *v * 10 + (*p - '0');
	}
	return 0;
}

/* Elapsed as sacct prints it, [D-]HH:MM:SS, in ns; -1 when malformed. A value past
 * twice the native ceiling is clamped there, so that the range check refuses it by
 * name instead of the arithmetic overflowing. */
static int64_t parse_elapsed(struct trace_span s)
{
	const char *p = s.p, *e = s.p + s.len;
	const char *dash = memchr(p, '-', s.len);
	int64_t days = 0, h, m, sec;
	if (dash) {
		if (parse_digits(p, dash, 7, &days) < 0)
			return -1;
		p = dash + 1;
	}
	const char *colon = memchr(p, ':', (size_t)(e - p));
	if (!colon || e - colon != 6 || colon[3] != ':')
		return -1;
	if (parse_digits(p, colon, dash ? 2 : 9, &h) < 0 || parse_digits(colon + 1, colon + 3, 2, &m) < 0 ||
	    parse_digits(colon + 4, e, 2, &sec) < 0)
		return -1;
	if (m > 59 || sec > 59 || (dash && h > 23))
		return -1;
	int64_t total_s = ((days * 24 + h) * 60 + m) * 60 + sec;
	if (total_s > 2 * TRACE_IMPORT_MAX_S)
		total_s = 2 * TRACE_IMPORT_MAX_S;
	return total_s * SIM_NS_PER_S;
}

/* ---- TRES ---- */

struct sa_gpus {
	int64_t n;		/* GPUs of the job */
	struct trace_span type; /* the one GPU type that holds all of them, or len 0 */
};

static int flavor_name_ok(struct trace_span s)
{
	if (!s.len || s.len >= FLAVOR_MAX)
		return 0;
	for (size_t i = 0; i < s.len; i++)
		if (!is_alnum(s.p[i]) && s.p[i] != '_' && s.p[i] != '.' && s.p[i] != '-')
			return 0;
	return 1;
}

/* One NAME=VALUE item of a TRES list; only gres/gpu and gres/gpu:TYPE are read.
 * Returns 0, or -1 when malformed. */
static int tres_item(struct trace_span it, int64_t *untyped, int64_t *typed, struct trace_span *type,
		     int *n_types)
{
	const char *eq = memchr(it.p, '=', it.len);
	if (!eq || eq == it.p)
		return -1;
	struct trace_span name = {it.p, (size_t)(eq - it.p)};
	struct trace_span val = {eq + 1, it.len - name.len - 1};
	static const char gpu[] = "gres/gpu";
	size_t gl = sizeof gpu - 1;
	if (name.len < gl || memcmp(name.p, gpu, gl) != 0 || (name.len > gl && name.p[gl] != ':'))
		return 0; /* another resource (cpu, mem, gres/gpumem...): not modelled */
	int64_t v = trace_parse_whole(val, MAX_GPUS);
	if (v < 0)
		return -1;
	if (name.len == gl) {
		*untyped = v;
		return 0;
	}
	struct trace_span t = {name.p + gl + 1, name.len - gl - 1};
	if (!flavor_name_ok(t) || *typed + v > MAX_GPUS)
		return -1;
	*typed += v;
	if (v > 0 && !(type->len && t.len == type->len && memcmp(t.p, type->p, t.len) == 0)) {
		if (!type->len)
			*type = t;
		(*n_types)++;
	}
	return 0;
}

/* A TRES list ("billing=8,cpu=8,gres/gpu:a100=2,gres/gpu=2,mem=64G,node=1") into g:
 * the count is gres/gpu, or the sum of gres/gpu:TYPE when the list has no plain
 * count; the type is kept when one type holds every GPU. Returns 0 or -1. */
static int parse_tres(struct trace_span s, struct sa_gpus *g)
{
	int64_t untyped = -1, typed = 0;
	int n_types = 0;
	*g = (struct sa_gpus){0};
	struct trace_span type = {NULL, 0};
	const char *p = s.p, *end = s.p + s.len;
	while (s.len && p <= end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		const char *ie = c ? c : end;
		if (tres_item(trace_span_trim(p, ie), &untyped, &typed, &type, &n_types) < 0)
			return -1;
		if (!c)
			break;
		p = c + 1;
	}
	g->n = untyped >= 0 ? untyped : typed;
	if (n_types == 1 && typed == g->n)
		g->type = type;
	return 0;
}

/* ---- the importer ---- */

/* Optional columns: their field index, -1 when the header lacks them. */
struct sa_cols {
	int start, alloc, req, part, account, user, prio;
};

struct sa_row {
	struct trace_span f[MAX_FIELDS];
	struct sa_jobid id;
	const struct sa_state *state;
	int64_t submit_ns, start_ns, dur_ns; /* Unix ns, ns; < 0 when they do not parse */
	int tres_ok;
	struct sa_gpus gpus;
	int64_t priority;	  /* -1 when it does not parse */
	struct trace_span tenant; /* Account, Partition or User, by --queue-from */
	struct trace_span user;	  /* len 0: none */
	int zero_elapsed;	  /* started, Elapsed 0: written as 1 s */
	char out_id[ID_MAX + 8];
	size_t out_id_len;
};

struct sa_ctx {
	struct trace_import_pass in; /* path, opts, res, diag; report and error count */
	int col[C_COUNT_];
	struct sa_cols opt;
	int tenant_col; /* field of the queue name, -1: every job in "default" */
	const char *tenant_name;
	int n_hdr;
	char last_job[ID_MAX + 1];     /* JobID of the last job row: where its steps fold */
	size_t last_job_len;	       /* 0: no job row yet */
	int64_t min_submit_ns;	       /* earliest submit of a kept row (Unix ns) */
	size_t zero_elapsed;	       /* kept jobs with Elapsed 0 (pass 1) */
	struct trace_tenants *ids;     /* JobIDs of job rows seen in this pass (a set) */
	struct trace_tenants *tenants; /* GPU-seconds per queue name, pass 1 */
	struct sa_row *row;	       /* the row being classified; owned by trace_sacct_import */
};

static const struct trace_span default_queue = {"default", 7};

/* A queue or user name the output holds unquoted: the native rule (trace_name_ok)
 * and no ','. Fields here are split at '|', so a comma can reach a name, and the
 * native CSV would split it (found by fuzz_sacct). */
static int sa_name_ok(struct trace_span s)
{
	return trace_name_ok(s) && !memchr(s.p, ',', s.len);
}

static struct trace_span field(const struct sa_row *row, int col)
{
	return col >= 0 ? row->f[col] : (struct trace_span){"", 0};
}

/* A step is part of the job whose row came just before it (sacct prints a job, then
 * its steps): dropped, never counted as load. */
static int sa_fold_step(struct sa_ctx *c, size_t line, const struct sa_row *row)
{
	struct trace_span job = row->id.job, jid = row->f[c->col[C_JOBID]];
	if (!c->last_job_len || job.len != c->last_job_len || memcmp(job.p, c->last_job, job.len) != 0)
		return trace_import_reject(&c->in, line, R_ORPHAN, 1, "JobID",
					   "expected a step after its job's row '%.*s' (sacct prints a job, "
					   "then its steps), found '%.*s%s'",
					   (int)job.len, job.p, SHOW(jid));
	return trace_import_reject(&c->in, line, R_STEP, 0, NULL, "job step");
}

/* Notes a job row's JobID: where the following steps fold, and the duplicate check.
 * Returns 1, 0 (a duplicate: dropped) or -SIM_ENOMEM. */
static int sa_note_job(struct sa_ctx *c, size_t line, const struct sa_row *row)
{
	struct trace_span job = row->id.job;
	if (job.len <= ID_MAX) {
		memcpy(c->last_job, job.p, job.len);
		c->last_job_len = job.len;
	}
	size_t before = trace_tenants_count(c->ids);
	if (trace_tenants_add(c->ids, job.p, job.len, 0) < 0)
		return -SIM_ENOMEM;
	if (trace_tenants_count(c->ids) == before)
		return trace_import_reject(&c->in, line, R_DUP, 1, "JobID",
					   "expected a unique JobID (sacct without --duplicates), found "
					   "'%.*s%s' again",
					   SHOW(job));
	return 1;
}

/* The TRES list that says what the job held: AllocTRES when set (a job that never
 * started has none), else ReqTRES. */
static struct trace_span sa_tres(const struct sa_ctx *c, const struct sa_row *row)
{
	struct trace_span alloc = field(row, c->opt.alloc);
	return alloc.len || c->opt.req < 0 ? alloc : field(row, c->opt.req);
}

static const char *sa_tres_col(const struct sa_ctx *c, const struct sa_row *row)
{
	return field(row, c->opt.alloc).len || c->opt.req < 0 ? "AllocTRES" : "ReqTRES";
}

/* Parses the fields a job row uses into row (no checks yet). */
static void sa_parse_fields(struct sa_ctx *c, struct sa_row *row)
{
	struct trace_span prio = field(row, c->opt.prio);
	row->state = find_state(row->f[c->col[C_STATE]]);
	row->submit_ns = parse_when(row->f[c->col[C_SUBMIT]]);
	row->start_ns = c->opt.start >= 0 ? parse_start(row->f[c->opt.start]) : WHEN_NONE;
	row->dur_ns = parse_elapsed(row->f[c->col[C_ELAPSED]]);
	row->tres_ok = parse_tres(sa_tres(c, row), &row->gpus) == 0;
	row->priority = prio.len ? trace_parse_whole(prio, PRIORITY_MAX) : 0;
	row->tenant = c->tenant_col >= 0 && row->f[c->tenant_col].len ? row->f[c->tenant_col] : default_queue;
	row->user = field(row, c->opt.user);
	row->zero_elapsed = 0;
	if (c->in.report && row->tres_ok && row->gpus.n > 0 && row->dur_ns > 0)
		c->in.res->gpu_hours_in += sim_time_to_s(row->dur_ns) * (double)row->gpus.n / 3600.0;
}

static int sa_check_times(struct sa_ctx *c, size_t line, const struct sa_row *row)
{
	struct trace_span sub = row->f[c->col[C_SUBMIT]], dur = row->f[c->col[C_ELAPSED]];
	struct trace_span start = field(row, c->opt.start);
	if (row->submit_ns == WHEN_TOO_LATE || row->start_ns == WHEN_TOO_LATE)
		return trace_import_reject(
		    &c->in, line, TRACE_IMPORT_R_SUBMIT_RANGE, 1,
		    row->submit_ns == WHEN_TOO_LATE ? "Submit" : "Start",
		    "time out of range: expected a date before 2262-04-11, found '%.*s%s'",
		    SHOW(row->submit_ns == WHEN_TOO_LATE ? sub : start));
	if (row->submit_ns < 0)
		return trace_import_reject(&c->in, line, R_TIME, 1, "Submit",
					   "expected YYYY-MM-DDTHH:MM:SS or Unix seconds, found '%.*s%s'",
					   SHOW(sub));
	if (row->start_ns == -1)
		return trace_import_reject(&c->in, line, R_TIME, 1, "Start",
					   "expected YYYY-MM-DDTHH:MM:SS, Unix seconds, Unknown or None, "
					   "found '%.*s%s'",
					   SHOW(start));
	if (row->dur_ns < 0)
		return trace_import_reject(&c->in, line, R_TIME, 1, "Elapsed",
					   "expected [D-]HH:MM:SS (minutes and seconds 00 to 59, hours 00 to "
					   "23 after days), found '%.*s%s'",
					   SHOW(dur));
	return 1;
}

/* The checks of the fields themselves: bad rows, errors unless --skip-bad. */
static int sa_check_fields(struct sa_ctx *c, size_t line, const struct sa_row *row)
{
	struct trace_span st = row->f[c->col[C_STATE]], tres = sa_tres(c, row);
	if (!row->state)
		return trace_import_reject(&c->in, line, R_STATE, 1, "State",
					   "expected a Slurm job state (COMPLETED, FAILED, CANCELLED, "
					   "TIMEOUT, PREEMPTED, NODE_FAIL, OUT_OF_MEMORY, PENDING, RUNNING, "
					   "...), found '%.*s%s'",
					   SHOW(st));
	if (!sa_check_times(c, line, row))
		return 0;
	if (!row->tres_ok)
		return trace_import_reject(&c->in, line, R_TRES, 1, sa_tres_col(c, row),
					   "expected NAME=VALUE items separated by ',' with gres/gpu=N or "
					   "gres/gpu:TYPE=N (N a whole count in 0..%d, TYPE a flavor name), "
					   "found '%.*s%s'",
					   MAX_GPUS, SHOW(tres));
	if (row->priority < 0)
		return trace_import_reject(&c->in, line, R_PRIO, 1, "Priority",
					   "expected a whole number in 0..%d or empty, found '%.*s%s'",
					   PRIORITY_MAX, SHOW(field(row, c->opt.prio)));
	if (!sa_name_ok(row->tenant))
		return trace_import_reject(&c->in, line, R_NAME, 1, c->tenant_name,
					   "expected a name of 1 to 255 bytes without control characters, "
					   "',', '\"' or a leading '#', found '%.*s%s'",
					   SHOW(row->tenant));
	if (row->user.len && !sa_name_ok(row->user))
		return trace_import_reject(&c->in, line, R_NAME, 1, "User",
					   "expected a name of 1 to 255 bytes without control characters, "
					   "',', '\"' or a leading '#', found '%.*s%s'",
					   SHOW(row->user));
	return 1;
}

/* Whether the job held GPUs for a known time: the format's own drops, in both modes. */
static int sa_check_ran(struct sa_ctx *c, size_t line, struct sa_row *row)
{
	if (!row->state->finished)
		return trace_import_reject(&c->in, line, R_UNFINISHED, 0, NULL, "not finished");
	/* Start says whether it ran; without the column, a run time > 0 does. */
	int started = c->opt.start >= 0 ? row->start_ns >= 0 : row->dur_ns > 0;
	if (!started)
		return trace_import_reject(&c->in, line,
					   strcmp(row->state->name, "CANCELLED") == 0 ? R_CANCELLED : R_NEVER,
					   0, NULL, "never started");
	if (row->gpus.n == 0)
		return trace_import_reject(&c->in, line, R_NOGPU, 0, NULL, "no GPU");
	if (row->dur_ns == 0) {
		/* Elapsed is in whole seconds: 0 is a run under a second, the native
		 * format needs > 0, so the record's resolution stands in (as SWF). */
		row->dur_ns = SIM_NS_PER_S;
		row->zero_elapsed = 1;
	}
	return 1;
}

/* Parses and checks one data line. Returns 1 to keep it, 0 when dropped, -SIM_ENOMEM.
 * Both passes see the same lines in the same order, so they agree on every row. */
static int sa_classify(struct sa_ctx *c, const struct sim_lines *r, struct sa_row *row)
{
	int n = trace_split(r->buf, r->buf + r->len, row->f, '|', MAX_FIELDS);
	if (n != c->n_hdr)
		return trace_import_reject(&c->in, r->line, R_FIELDS, 1, NULL,
					   "expected %d fields separated by '|' as in the header, found %d",
					   c->n_hdr, n);
	struct trace_span jid = row->f[c->col[C_JOBID]];
	if (parse_jobid(jid, &row->id) < 0)
		return trace_import_reject(&c->in, r->line, R_ID, 1, "JobID",
					   "expected a JobID as sacct prints it (123, 123_4, 123_[5-9], "
					   "123+1; a step adds .NAME), found '%.*s%s'",
					   SHOW(jid));
	if (row->id.is_step)
		return sa_fold_step(c, r->line, row);
	int noted = sa_note_job(c, r->line, row);
	if (noted <= 0)
		return noted;
	sa_parse_fields(c, row);
	if (!sa_check_fields(c, r->line, row) || !sa_check_ran(c, r->line, row))
		return 0;
	row->out_id_len = output_id(&row->id, row->out_id, sizeof row->out_id);
	if (!row->out_id_len)
		return trace_import_reject(&c->in, r->line, R_ID, 1, "JobID",
					   "expected a job that started to have an id of at most %d bytes "
					   "(not an array range), found '%.*s%s'",
					   ID_MAX, SHOW(jid));
	/* Range last: rows dropped anyway are not errors. */
	if (!trace_import_check_duration(&c->in, r->line, "Elapsed", row->dur_ns,
					 row->f[c->col[C_ELAPSED]]) ||
	    !trace_import_check_submit(&c->in, r->line, "Submit", row->submit_ns, row->f[c->col[C_SUBMIT]]))
		return 0;
	return 1;
}

/* Index of the header field named NAME, or -1. */
static int optional_column(const struct trace_span *f, int n, const char *name)
{
	int col;
	return trace_find_columns(f, n, MAX_FIELDS, &name, 1, &col) < 0 ? col : -1;
}

/* Where the queue name comes from: --queue-from names a column, which must be
 * there; by default Account, else Partition, else none. Returns 0 or -SIM_EPARSE. */
static int sa_pick_tenant(struct sa_ctx *c, size_t line)
{
	static const char *const names[] = {[TRACE_QUEUE_DEFAULT] = "Account",
					    [TRACE_QUEUE_USER] = "User",
					    [TRACE_QUEUE_QUEUE] = "Partition",
					    [TRACE_QUEUE_GROUP] = "Account"};
	const int cols[] = {[TRACE_QUEUE_DEFAULT] = c->opt.account,
			    [TRACE_QUEUE_USER] = c->opt.user,
			    [TRACE_QUEUE_QUEUE] = c->opt.part,
			    [TRACE_QUEUE_GROUP] = c->opt.account};
	enum trace_queue_from q = c->in.opts->queue_from;
	c->tenant_col = cols[q];
	c->tenant_name = names[q];
	if (c->tenant_col >= 0)
		return 0;
	if (q != TRACE_QUEUE_DEFAULT) {
		trace_import_err(c->in.diag, c->in.path, line, names[q],
				 "expected a header naming %s for --queue-from, found no '%s'", names[q],
				 names[q]);
		return -SIM_EPARSE;
	}
	c->tenant_col = c->opt.part;
	c->tenant_name = "Partition";
	return 0;
}

/* Reads up to the header line and finds the used columns. Returns 0, -SIM_EPARSE
 * (located error) or a reader error. */
static int sa_header(struct sa_ctx *c, struct sim_lines *r, struct sa_row *row)
{
	c->n_hdr = trace_read_header(r, '|', row->f, MAX_FIELDS);
	if (c->n_hdr < 0)
		return c->n_hdr;
	if (c->n_hdr == 0)
		return sim_diag_add(c->in.diag, c->in.path,
				    "expected a header line (sacct --parsable2 without --noheader), found "
				    "an empty file");
	int k = trace_find_columns(row->f, c->n_hdr, MAX_FIELDS, col_names, C_COUNT_, c->col);
	if (k >= 0) {
		trace_import_err(c->in.diag, c->in.path, r->line, col_names[k],
				 "expected a '|'-separated header (sacct --parsable2) naming JobID, Submit, "
				 "Elapsed, State and AllocTRES or ReqTRES, found no '%s'",
				 col_names[k]);
		return -SIM_EPARSE;
	}
	c->opt = (struct sa_cols){
	    .start = optional_column(row->f, c->n_hdr, "Start"),
	    .alloc = optional_column(row->f, c->n_hdr, "AllocTRES"),
	    .req = optional_column(row->f, c->n_hdr, "ReqTRES"),
	    .part = optional_column(row->f, c->n_hdr, "Partition"),
	    .account = optional_column(row->f, c->n_hdr, "Account"),
	    .user = optional_column(row->f, c->n_hdr, "User"),
	    .prio = optional_column(row->f, c->n_hdr, "Priority"),
	};
	if (c->opt.alloc < 0 && c->opt.req < 0) {
		trace_import_err(c->in.diag, c->in.path, r->line, "AllocTRES",
				 "expected a header naming AllocTRES or ReqTRES (the GPUs come from "
				 "gres/gpu), found neither");
		return -SIM_EPARSE;
	}
	return sa_pick_tenant(c, r->line);
}

static int sa_begin(void *ctx, struct sim_lines *r)
{
	struct sa_ctx *c = ctx;
	int err = sa_header(c, r, c->row);
	c->last_job_len = 0;
	return err < 0 ? err : trace_tenants_reset(&c->ids);
}

static int sa_keep(void *ctx, const struct sim_lines *r)
{
	struct sa_ctx *c = ctx;
	return sa_classify(c, r, c->row);
}

static int sa_count(void *ctx)
{
	struct sa_ctx *c = ctx;
	const struct sa_row *row = c->row;
	double gpu_s = sim_time_to_s(row->dur_ns) * (double)row->gpus.n;
	c->in.res->gpu_hours_out += gpu_s / 3600.0;
	c->zero_elapsed += (size_t)row->zero_elapsed;
	if (c->in.res->rows_written == 1 || row->submit_ns < c->min_submit_ns)
		c->min_submit_ns = row->submit_ns;
	return trace_tenants_add(c->tenants, row->tenant.p, row->tenant.len, gpu_s) < 0 ? -SIM_ENOMEM : 0;
}

static int sa_restart(void *ctx)
{
	struct sa_ctx *c = ctx;
	c->zero_elapsed = 0;
	return trace_tenants_reset(&c->tenants);
}

static int sa_tenants(void *ctx)
{
	struct sa_ctx *c = ctx;
	if (c->zero_elapsed)
		snprintf(c->in.res->note, sizeof c->in.res->note,
			 "Elapsed 0 after a start read as 1 s: %zu jobs", c->zero_elapsed);
	return trace_import_pick_top(&c->in, c->tenants);
}

static void sa_write_header(FILE *f, const void *ctx)
{
	const struct sa_ctx *c = ctx;
	const struct trace_import_result *res = c->in.res;
	char why[1024], sub[32];
	trace_import_reasons_str(res, 0, why, sizeof why);
	fprintf(
	    f,
	    "# Slurm accounting records %s (sacct --parsable2; the site's own data).\n"
	    "# Converted by: gpusched trace import --format sacct (traces/README.md).\n"
	    "# Mapping: id = JobID (het component J+K as J-hetK), submit_s = Submit - %s (Unix s),\n"
	    "#   duration_s = Elapsed, request = [TYPE|*]:gpu=<gres/gpu of %s>, queue = %s,\n"
	    "#   priority = Priority, user = User. Job steps folded into their job; unfinished jobs,\n"
	    "#   jobs that never started (cancelled before start included) and jobs without GPUs dropped.\n"
	    "# Rows in: %zu, jobs out: %zu, dropped: %zu (%s).\n",
	    trace_base_name(c->in.path), trace_format_secs(c->min_submit_ns, sub, sizeof sub),
	    c->opt.alloc >= 0 ? (c->opt.req >= 0 ? "AllocTRES, else ReqTRES" : "AllocTRES") : "ReqTRES",
	    c->tenant_col >= 0 ? c->tenant_name : "default", res->rows_read, res->rows_written,
	    res->rows_dropped, res->n_reasons ? why : "none");
	if (c->zero_elapsed)
		fprintf(f, "# Elapsed 0 after a start read as 1 s (the record's resolution): %zu jobs.\n",
			c->zero_elapsed);
	trace_import_write_bad_comment(res, f);
	if (c->in.opts->top_queues)
		fprintf(f,
			"# Tenants (--top-queues %zu): the %zu with most GPU-hours keep their name, "
			"the other %zu are '" TRACE_IMPORT_OTHER "'.\n",
			c->in.opts->top_queues,
			res->tenants_in < c->in.opts->top_queues ? res->tenants_in : c->in.opts->top_queues,
			res->tenants_in > c->in.opts->top_queues ? res->tenants_in - c->in.opts->top_queues
								 : 0);
	fputs("id,submit_s,duration_s,queue,request,priority,user\n", f);
}

static int sa_write_row(void *ctx, FILE *f)
{
	struct sa_ctx *c = ctx;
	const struct sa_row *row = c->row;
	char sub[32], dur[32];
	const char *q = trace_tenants_map(c->tenants, row->tenant.p, row->tenant.len);
	int qlen = q ? (int)strlen(q) : (int)row->tenant.len;
	struct trace_span type = row->gpus.type;
	fprintf(f, "%.*s,%s,%s,%.*s,%.*s:gpu=%lld,%lld,%.*s\n", (int)row->out_id_len, row->out_id,
		trace_format_secs(row->submit_ns - c->min_submit_ns, sub, sizeof sub),
		trace_format_secs(row->dur_ns, dur, sizeof dur), qlen, q ? q : row->tenant.p,
		type.len ? (int)type.len : 1, type.len ? type.p : "*", (long long)row->gpus.n,
		(long long)row->priority, (int)row->user.len, row->user.p);
	return 0;
}

static const struct trace_import_format sa_format = {
    .begin = sa_begin,
    .classify = sa_keep,
    .count = sa_count,
    .restart = sa_restart,
    .tenants = sa_tenants,
    .write_header = sa_write_header,
    .write_row = sa_write_row,
};

int trace_sacct_import(const char *in_path, const char *out_path, const struct trace_import_opts *opts,
		       struct trace_import_result *res, struct sim_diag *diag)
{
	struct sa_ctx c = {.in = {.path = in_path, .opts = opts, .res = res, .diag = diag}};
	int err;

	memset(res, 0, sizeof *res);
	c.tenants = trace_tenants_create();
	c.row = malloc(sizeof *c.row);
	if (!c.row || !c.tenants) {
		err = -SIM_ENOMEM;
		goto out;
	}
	err = trace_import_run(&c.in, &sa_format, &c, out_path);
out:
	trace_tenants_destroy(c.ids);
	trace_tenants_destroy(c.tenants);
	free(c.row);
	return err;
}
