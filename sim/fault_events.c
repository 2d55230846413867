/* sim/fault_events.c: the incident-log reader (sim/fault_events.h). */
#include "fault_events.h"
#include "sidecsv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The columns a file may have; time_s and cause are required. */
enum { COL_TIME = 0, COL_CAUSE, COL_FLAVOR, COL_NODE, COL_JOB, COL_REPAIR, COL_FACTOR, COL_DURATION, COL_COUNT_ };
static const char *const col_names[COL_COUNT_] = {"time_s", "cause",    "flavor", "node",
						  "job",    "repair_s", "factor", "duration_s"};

/* One file being read: the reader, where each column is (-1: absent), the
 * cluster's flavors and the schedule being built. */
struct fev_read {
	struct sim_csv csv;
	int col[COL_COUNT_];
	const char *const *flavors;
	const uint32_t *nodes;
	size_t n_flavors;
	struct sim_fault_events *fe;
	struct sim_diag *diag;
	int bad; /* rows refused so far */
	int nomem;
};

/* "PATH:LINE:COL: column NAME: expected ..., found 'FIELD'" for column c of the
 * current row (COL is 1-based, as editors count fields). */
static void row_error(struct fev_read *r, int c, const char *expected)
{
	char where[4200];
	int i = r->col[c];
	snprintf(where, sizeof where, "%s:%u:%d", r->fe->path, r->csv.lineno, i + 1);
	sim_diag_add(r->diag, where, "column %s: expected %s, found '%s'", col_names[c], expected,
		     i >= 0 && i < r->csv.n ? r->csv.fields[i] : "");
	r->bad++;
}

/* The field of column c in the current row, or NULL when the header has no such
 * column (reported: the row's cause needs it). */
static const char *need(struct fev_read *r, int c, const char *expected)
{
	if (r->col[c] >= 0)
		return r->csv.fields[r->col[c]];
	char where[4200];
	snprintf(where, sizeof where, "%s:%u", r->fe->path, r->csv.lineno);
	sim_diag_add(r->diag, where, "expected a %s column for cause %s (%s), the header has none",
		     col_names[c], r->csv.fields[r->col[COL_CAUSE]], expected);
	r->bad++;
	return NULL;
}

/* ---- the causes: one parser a row ---- */

/* The flavor and node columns of a node row. */
static int parse_node_ref(struct fev_read *r, struct sim_fault_event *ev)
{
	const char *fl = need(r, COL_FLAVOR, "a flavor of $.cluster.flavors");
	const char *nd = need(r, COL_NODE, "a node index");
	if (!fl || !nd)
		return -1;
	ev->flavor = -1;
	for (size_t k = 0; k < r->n_flavors; k++)
		if (strcmp(r->flavors[k], fl) == 0)
			ev->flavor = (int32_t)k;
	if (ev->flavor < 0) {
		row_error(r, COL_FLAVOR, "a flavor of $.cluster.flavors");
		return -1;
	}
	char *end = NULL, msg[96];
	errno = 0;
	unsigned long long n = strtoull(nd, &end, 10);
	if (!nd[0] || nd[0] == '-' || *end || errno || n >= r->nodes[ev->flavor]) {
		snprintf(msg, sizeof msg, "a node index in [0, %u) (flavor %s has %u nodes)",
			 r->nodes[ev->flavor], fl, r->nodes[ev->flavor]);
		row_error(r, COL_NODE, msg);
		return -1;
	}
	ev->node = (uint32_t)n;
	return 0;
}

static int parse_node_failure(struct fev_read *r, struct sim_fault_event *ev)
{
	if (parse_node_ref(r, ev))
		return -1;
	ev->repair_ns = SIM_TIME_NONE;
	const char *rp = r->col[COL_REPAIR] >= 0 ? r->csv.fields[r->col[COL_REPAIR]] : "";
	if (rp[0] && (sim_time_parse_s(rp, strlen(rp), &ev->repair_ns) || ev->repair_ns < 0)) {
		row_error(r, COL_REPAIR, "seconds >= 0, or nothing for the flavor's repair law");
		return -1;
	}
	return 0;
}

/* A fail-slow episode: the node, its speed factor in (0, 1] and its length > 0. */
static int parse_slow(struct fev_read *r, struct sim_fault_event *ev)
{
	if (parse_node_ref(r, ev))
		return -1;
	const char *fs = need(r, COL_FACTOR, "a speed factor in (0, 1]");
	const char *ds = need(r, COL_DURATION, "seconds > 0");
	if (!fs || !ds)
		return -1;
	char *end = NULL;
	errno = 0;
	ev->factor = strtod(fs, &end);
	if (!fs[0] || *end || errno || !(ev->factor > 0 && ev->factor <= 1)) {
		row_error(r, COL_FACTOR, "a speed factor in (0, 1]");
		return -1;
	}
	if (sim_time_parse_s(ds, strlen(ds), &ev->duration_ns) || ev->duration_ns <= 0) {
		row_error(r, COL_DURATION, "seconds > 0");
		return -1;
	}
	return 0;
}

static int parse_job_row(struct fev_read *r, struct sim_fault_event *ev)
{
	const char *id = need(r, COL_JOB, "a job id of the trace");
	if (!id)
		return -1;
	if (!id[0]) {
		row_error(r, COL_JOB, "a job id of the trace");
		return -1;
	}
	size_t len = strlen(id) + 1;
	struct sim_fault_events *fe = r->fe;
	if (fe->strings_len + len > UINT32_MAX) {
		r->nomem = 1;
		return -1;
	}
	while (fe->strings_len + len > fe->strings_cap) {
		size_t ncap = fe->strings_cap ? fe->strings_cap * 2 : 256;
		char *ns = realloc(fe->strings, ncap);
		if (!ns) {
			r->nomem = 1;
			return -1;
		}
		fe->strings = ns;
		fe->strings_cap = ncap;
	}
	memcpy(fe->strings + fe->strings_len, id, len);
	ev->job_off = (uint32_t)fe->strings_len;
	fe->strings_len += len;
	return 0;
}

/* The cause table: a row's cause column names one of these. */
struct fev_cause {
	const char *name;
	enum sim_fev_kind kind;
	int (*parse)(struct fev_read *r, struct sim_fault_event *ev);
};
static const struct fev_cause causes[] = {
    {"node_failure", SIM_FEV_NODE_FAIL, parse_node_failure},
    {"crash", SIM_FEV_CRASH, parse_job_row},
    {"hang", SIM_FEV_HANG, parse_job_row},
    {"loss_spike", SIM_FEV_LOSS_SPIKE, parse_job_row},
    {"slow", SIM_FEV_SLOW, parse_slow},
};
#define N_CAUSES (sizeof causes / sizeof causes[0])

/* "a cause among NAME, NAME, ..." from the table, for a message. */
static void causes_expected(char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "a cause among");
	for (size_t k = 0; k < N_CAUSES && len < n; k++)
		len += (size_t)snprintf(buf + len, n - len, "%s %s", k ? "," : "", causes[k].name);
}

/* ---- the file ---- */

static int read_header(struct fev_read *r)
{
	char where[4200];
	for (int c = 0; c < COL_COUNT_; c++)
		r->col[c] = sim_csv_col(&r->csv, col_names[c]);
	snprintf(where, sizeof where, "%s:%u", r->fe->path, r->csv.lineno);
	for (int i = 0; i < r->csv.n; i++) {
		int known = 0;
		for (int c = 0; c < COL_COUNT_; c++)
			known |= r->col[c] == i;
		if (!known)
			return sim_diag_add(
			    r->diag, where,
			    "column %d: expected a header of time_s, cause, flavor, node, job, "
			    "repair_s (any order), found '%s'",
			    i + 1, r->csv.fields[i]);
	}
	if (r->col[COL_TIME] < 0 || r->col[COL_CAUSE] < 0)
		return sim_diag_add(r->diag, where,
				    "expected a header with columns time_s and cause (and flavor, "
				    "node, repair_s for node failures, job for crashes and hangs)");
	return 0;
}

static void read_row(struct fev_read *r, int ncols)
{
	struct sim_fault_event ev = {.flavor = -1, .repair_ns = SIM_TIME_NONE, .line = r->csv.lineno};
	if (r->csv.n != ncols) {
		char where[4200];
		snprintf(where, sizeof where, "%s:%u", r->fe->path, r->csv.lineno);
		sim_diag_add(r->diag, where, "expected %d fields (as the header), found %d", ncols, r->csv.n);
		r->bad++;
		return;
	}
	const char *ts = r->csv.fields[r->col[COL_TIME]];
	if (sim_time_parse_s(ts, strlen(ts), &ev.t) || ev.t < 0) {
		row_error(r, COL_TIME, "seconds >= 0");
		return;
	}
	struct sim_fault_events *fe = r->fe;
	if (fe->n && ev.t < fe->v[fe->n - 1].t) {
		char msg[96];
		snprintf(msg, sizeof msg, "seconds >= the previous row's (%.9g): rows in time order",
			 sim_time_to_s(fe->v[fe->n - 1].t));
		row_error(r, COL_TIME, msg);
		return;
	}
	const char *cause = r->csv.fields[r->col[COL_CAUSE]];
	const struct fev_cause *cs = NULL;
	for (size_t k = 0; k < N_CAUSES; k++)
		if (strcmp(causes[k].name, cause) == 0)
			cs = &causes[k];
	if (!cs) {
		char msg[256];
		causes_expected(msg, sizeof msg);
		row_error(r, COL_CAUSE, msg);
		return;
	}
	ev.kind = (uint8_t)cs->kind;
	if (cs->parse(r, &ev))
		return;
	struct sim_fault_event *nv = sim_grow(fe->v, &fe->cap, fe->n, sizeof *nv, 64);
	if (!nv) {
		r->nomem = 1;
		return;
	}
	fe->v = nv;
	fe->v[fe->n++] = ev;
	fe->has_kind[ev.kind] = 1;
}

int sim_fault_events_read(const char *path, const char *const *flavors, const uint32_t *nodes,
			  size_t n_flavors, struct sim_fault_events **out, struct sim_diag *diag)
{
	*out = NULL;
	struct fev_read r = {.flavors = flavors, .nodes = nodes, .n_flavors = n_flavors, .diag = diag};
	r.fe = calloc(1, sizeof *r.fe);
	if (!r.fe || !(r.fe->path = strdup(path))) {
		free(r.fe);
		return -SIM_ENOMEM;
	}
	int rc = sim_csv_open(&r.csv, path, diag);
	if (rc < 0) {
		int keep = errno;
		sim_fault_events_destroy(r.fe);
		errno = keep;
		return rc;
	}
	int row = sim_csv_next(&r.csv);
	if (row == 0) {
		char where[4200];
		snprintf(where, sizeof where, "%s:1", path);
		rc = sim_diag_add(diag, where,
				  "expected a header with columns time_s and cause, found an empty file");
	} else if (row > 0) {
		rc = read_header(&r);
	} else {
		rc = row;
	}
	int ncols = r.csv.n;
	while (rc == 0 && !r.nomem && (row = sim_csv_next(&r.csv)) > 0)
		read_row(&r, ncols);
	if (rc == 0 && row < 0)
		rc = row;
	sim_csv_close(&r.csv);
	if (rc == 0 && r.nomem)
		rc = -SIM_ENOMEM;
	if (rc == 0 && r.bad)
		rc = -SIM_EPARSE;
	if (rc < 0) {
		sim_fault_events_destroy(r.fe);
		return rc;
	}
	*out = r.fe;
	return 0;
}

void sim_fault_events_destroy(struct sim_fault_events *fe)
{
	if (!fe)
		return;
	free(fe->path);
	free(fe->v);
	free(fe->strings);
	free(fe);
}
