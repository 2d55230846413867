/* tests/test_native.c: the native CSV trace: every column parsed, sorting with
 * ties by row, comments, quoting, located errors for malformed traces, the error
 * limit, the writer round trip, paths that are not regular files (a directory,
 * a FIFO, a pipe), a mapped trace larger than the window the parser drops behind it,
 * and the fast pass in two halves against the serial one. */
#include <CUnit/CUnit.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/cluster.h"
#include "sim/job.h"
#include "testutil.h"
#include "traces/native.h"

static int init_native(void) { return 0; }
static int clean_native(void) { return 0; }

#define S(x) ((sim_time_t)(x) * SIM_NS_PER_S)

static struct sim_trace *parse_ok(const char *text, struct sim_diag *d)
{
	struct sim_trace *t = NULL;
	int rc = trace_native_parse("t.csv", text, strlen(text), &t, d);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc) {
		sim_diag_print(d, stderr);
		return NULL;
	}
	return t;
}

static const char full_trace[] =
	"# a comment before the header\n"
	"id,submit_s,duration_s,queue,priority,request,prefs,max_pending_s,deadline_s,checkpoint_s,user,"
	"preemptible,estimate_s\n"
	"\n"
	"j1,10,3600,teamA,5,h100:gpu=8,,600,7200,900,alice,0,4000\n"
	"   # an indented comment\n"
	"j2,0.5,60.25,,,\"*:gpu=0.5,cpu=4,mem_gib=16.5\",,,,,,,\n"
	"j3,10,100,teamB,-3,,h100:gpu=8;a100:gpu=16@250;l40s:gpu=4,,,,bob,true,\n"
	"j4,2,1,teamA,0,,,,,,,false,\n";

static void test_native_every_field(void)
{
	struct sim_diag d;
	sim_diag_init(&d, 20);
	struct sim_trace *t = parse_ok(full_trace, &d);
	if (!t)
		goto out;
	CU_ASSERT_EQUAL(t->n_jobs, 4);
	CU_ASSERT_STRING_EQUAL(t->path, "t.csv");
	CU_ASSERT_EQUAL(t->has_estimates, 1);
	CU_ASSERT_EQUAL(t->res.n, 3);
	CU_ASSERT_STRING_EQUAL(t->res.names[1], "cpu");
	CU_ASSERT_STRING_EQUAL(t->res.names[2], "mem_gib");
	CU_ASSERT_EQUAL(t->n_flavors, 3);
	CU_ASSERT_EQUAL(t->n_queues, 3);
	CU_ASSERT_EQUAL(t->n_users, 2);

	/* Sorted by (submit, line): j2 (0.5), j4 (2), j1 (10, line 4), j3 (10, line 7). */
	const char *order[] = { "j2", "j4", "j1", "j3" };
	for (size_t i = 0; i < 4; i++) {
		CU_ASSERT_STRING_EQUAL(sim_job_id(t, &t->jobs[i]), order[i]);
		CU_ASSERT_EQUAL(t->jobs[i].idx, i);
		CU_ASSERT_EQUAL(t->jobs[i].state, SIM_JOB_UNSUBMITTED);
		CU_ASSERT_EQUAL(t->jobs[i].start_ns, SIM_TIME_NONE);
	}

	const struct sim_job *j = &t->jobs[2]; /* j1 */
	const struct sim_job_option *o = sim_job_opt(t, j, 0);
	CU_ASSERT_EQUAL(j->line, 4);
	CU_ASSERT_STRING_EQUAL(t->queues[j->queue], "teamA");
	CU_ASSERT_EQUAL(j->priority, 5);
	CU_ASSERT_EQUAL(j->eff_priority, 5);
	CU_ASSERT_EQUAL(j->submit_ns, S(10));
	CU_ASSERT_EQUAL(j->duration_ns, S(3600));
	CU_ASSERT_EQUAL(j->n_opts, 1);
	CU_ASSERT_EQUAL(j->has_prefs, 0);
	CU_ASSERT_STRING_EQUAL(t->flavors[o->flavor_id], "h100");
	CU_ASSERT_EQUAL(o->req[SIM_RES_GPU], 8000);
	CU_ASSERT_EQUAL(o->req[1], 0);
	CU_ASSERT_EQUAL(o->duration_ns, S(3600));
	CU_ASSERT_EQUAL(j->max_pending_ns, S(600));
	CU_ASSERT_EQUAL(j->deadline_ns, S(7200));
	CU_ASSERT_EQUAL(j->checkpoint_ns, S(900));
	CU_ASSERT_STRING_EQUAL(t->users[j->user], "alice");
	CU_ASSERT_EQUAL(j->preemptible, 0);
	CU_ASSERT_EQUAL(j->estimate_ns, S(4000));

	j = &t->jobs[0]; /* j2: defaults and a quoted multi-resource request */
	o = sim_job_opt(t, j, 0);
	CU_ASSERT_EQUAL(j->line, 6);
	CU_ASSERT_STRING_EQUAL(t->queues[j->queue], "default");
	CU_ASSERT_EQUAL(j->priority, 0);
	CU_ASSERT_EQUAL(j->submit_ns, 500000000);
	CU_ASSERT_EQUAL(j->duration_ns, 60250000000);
	CU_ASSERT_EQUAL(o->flavor_id, SIM_FLAVOR_ANY);
	CU_ASSERT_EQUAL(o->req[SIM_RES_GPU], 500);
	CU_ASSERT_EQUAL(o->req[1], 4000);
	CU_ASSERT_EQUAL(o->req[2], 16500);
	CU_ASSERT_EQUAL(j->user, -1);
	CU_ASSERT_EQUAL(j->preemptible, 1);
	CU_ASSERT_EQUAL(j->max_pending_ns, SIM_TIME_NONE);
	CU_ASSERT_EQUAL(j->deadline_ns, SIM_TIME_NONE);
	CU_ASSERT_EQUAL(j->checkpoint_ns, SIM_TIME_NONE);
	CU_ASSERT_EQUAL(j->estimate_ns, j->duration_ns); /* empty estimate_s: the duration */

	j = &t->jobs[3]; /* j3: a preference list */
	CU_ASSERT_EQUAL(j->has_prefs, 1);
	CU_ASSERT_EQUAL(j->n_opts, 3);
	CU_ASSERT_EQUAL(j->priority, -3);
	CU_ASSERT_STRING_EQUAL(t->users[j->user], "bob");
	CU_ASSERT_STRING_EQUAL(t->queues[j->queue], "teamB");
	o = sim_job_opt(t, j, 0);
	CU_ASSERT_STRING_EQUAL(t->flavors[o->flavor_id], "h100");
	CU_ASSERT_EQUAL(o->req[SIM_RES_GPU], 8000);
	CU_ASSERT_EQUAL(o->duration_ns, S(100));
	o = sim_job_opt(t, j, 1);
	CU_ASSERT_STRING_EQUAL(t->flavors[o->flavor_id], "a100");
	CU_ASSERT_EQUAL(o->req[SIM_RES_GPU], 16000);
	CU_ASSERT_EQUAL(o->duration_ns, S(250));
	o = sim_job_opt(t, j, 2);
	CU_ASSERT_STRING_EQUAL(t->flavors[o->flavor_id], "l40s");
	CU_ASSERT_EQUAL(o->req[SIM_RES_GPU], 4000);
	CU_ASSERT_EQUAL(o->duration_ns, 0); /* scaled from option 0 */

	CU_ASSERT_EQUAL(t->jobs[1].preemptible, 0); /* j4: "false" */
	sim_trace_destroy(t);
out:
	sim_diag_fini(&d);
}

/* Only the required columns: queue "default", request "*:gpu=1", no estimates. */
static void test_native_defaults(void)
{
	struct sim_diag d;
	sim_diag_init(&d, 20);
	struct sim_trace *t = parse_ok("duration_s,id,submit_s\n7,a,3\n", &d);
	if (t) {
		const struct sim_job *j = &t->jobs[0];
		CU_ASSERT_EQUAL(t->n_jobs, 1);
		CU_ASSERT_EQUAL(t->has_estimates, 0);
		CU_ASSERT_STRING_EQUAL(sim_job_id(t, j), "a");
		CU_ASSERT_EQUAL(j->submit_ns, S(3));
		CU_ASSERT_EQUAL(j->duration_ns, S(7));
		CU_ASSERT_STRING_EQUAL(t->queues[j->queue], "default");
		CU_ASSERT_EQUAL(sim_job_opt(t, j, 0)->flavor_id, SIM_FLAVOR_ANY);
		CU_ASSERT_EQUAL(sim_job_opt(t, j, 0)->req[SIM_RES_GPU], 1000);
		CU_ASSERT_EQUAL(j->preemptible, 1);
		CU_ASSERT_EQUAL(t->n_flavors, 0);
	}
	sim_trace_destroy(t);
	/* A header with no rows is a valid empty trace. */
	t = parse_ok("id,submit_s,duration_s\n# nothing yet\n", &d);
	CU_ASSERT(t && t->n_jobs == 0);
	sim_trace_destroy(t);
	sim_diag_fini(&d);
}

/* Equal submit times keep row order, also when the rows are not sorted and the
 * reader has to reorder a larger trace. The id states the expected submit. */
static void test_native_sort_ties_by_row(void)
{
	struct sim_diag d;
	sim_diag_init(&d, 20);
	struct sim_trace *t = parse_ok("id,submit_s,duration_s\nc,5,1\na,5,1\nz,1,1\nb,5,1\ny,0,1\n", &d);
	if (t) {
		const char *order[] = { "y", "z", "c", "a", "b" };
		for (size_t i = 0; i < 5; i++) {
			CU_ASSERT_STRING_EQUAL(sim_job_id(t, &t->jobs[i]), order[i]);
			CU_ASSERT_EQUAL(t->jobs[i].idx, i);
		}
	}
	sim_trace_destroy(t);

	size_t n = 5000, cap = n * 48 + 64, len = 0;
	char *buf = malloc(cap);
	uint64_t x = 12345;
	len += (size_t)snprintf(buf + len, cap - len, "id,submit_s,duration_s\n");
	for (size_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		/* Few distinct values (many ties), some with fractions up to ns. */
		unsigned long long sec = (x >> 33) % 300, frac = (x >> 20) % 3 == 0 ? 123456789 : 0;
		len += (size_t)snprintf(buf + len, cap - len, "%llu.%09llu-%zu,%llu.%09llu,1\n", sec, frac, i,
					sec, frac);
	}
	t = NULL;
	CU_ASSERT_EQUAL(trace_native_parse("big.csv", buf, len, &t, &d), 0);
	if (t) {
		CU_ASSERT_EQUAL(t->n_jobs, n);
		size_t bad_order = 0, bad_id = 0;
		for (size_t i = 0; i < n; i++) {
			const struct sim_job *j = &t->jobs[i];
			char want[64];
			snprintf(want, sizeof want, "%lld.%09lld-%u",
				 (long long)(j->submit_ns / SIM_NS_PER_S),
				 (long long)(j->submit_ns % SIM_NS_PER_S), (unsigned)(j->line - 2));
			bad_id += strcmp(want, sim_job_id(t, j)) != 0 || j->idx != i;
			if (i && (j[-1].submit_ns > j->submit_ns ||
				  (j[-1].submit_ns == j->submit_ns && j[-1].line >= j->line)))
				bad_order++;
		}
		CU_ASSERT_EQUAL(bad_order, 0);
		CU_ASSERT_EQUAL(bad_id, 0);
	}
	sim_trace_destroy(t);
	free(buf);
	sim_diag_fini(&d);
}

/* RFC 4180 quotes: commas and doubled quotes inside ids, queues and users;
 * CRLF line ends and a UTF-8 byte order mark. */
static void test_native_quoted_fields(void)
{
	struct sim_diag d;
	sim_diag_init(&d, 20);
	struct sim_trace *t = parse_ok("\xEF\xBB\xBFid,submit_s,duration_s,queue,user\r\n"
				       "\"a,b\",1,2,\"team, x\",\"o'neil \"\"the\"\" user\"\r\n"
				       "  \"#not a comment\" ,3,4,q,\r\n"
				       "plain,5,6,\"\",\"\"\r\n",
				       &d);
	if (t) {
		CU_ASSERT_EQUAL(t->n_jobs, 3);
		CU_ASSERT_STRING_EQUAL(sim_job_id(t, &t->jobs[0]), "a,b");
		CU_ASSERT_STRING_EQUAL(t->queues[t->jobs[0].queue], "team, x");
		CU_ASSERT_STRING_EQUAL(t->users[t->jobs[0].user], "o'neil \"the\" user");
		CU_ASSERT_STRING_EQUAL(sim_job_id(t, &t->jobs[1]), "#not a comment");
		CU_ASSERT_EQUAL(t->jobs[1].line, 3);
		CU_ASSERT_STRING_EQUAL(sim_job_id(t, &t->jobs[2]), "plain");
		CU_ASSERT_STRING_EQUAL(t->queues[t->jobs[2].queue], "default");
		CU_ASSERT_EQUAL(t->jobs[2].user, -1);
		CU_ASSERT_EQUAL(t->jobs[2].duration_ns, S(6));
	}
	sim_trace_destroy(t);
	sim_diag_fini(&d);
}

struct bad_case {
	const char *name;
	const char *text;
	const char *where; /* "t.csv:LINE: column X" */
	const char *what;  /* part of the message */
};

static const struct bad_case bad_cases[] = {
	{ "non-numeric submit", "id,submit_s,duration_s\nj1,abc,10\n", "t.csv:2: column submit_s",
	  "expected seconds >= 0 (decimal, at most 9 fractional digits, at most 1e9), found 'abc'" },
	{ "negative duration", "id,submit_s,duration_s\nj1,0,10\nj2,0,-5\n", "t.csv:3: column duration_s",
	  "expected seconds > 0 (decimal, at most 9 fractional digits, at most 1e9), found '-5'" },
	{ "zero duration", "id,submit_s,duration_s\nj1,0,0\n", "t.csv:2: column duration_s", "found '0'" },
	{ "NaN", "id,submit_s,duration_s\nj1,nan,10\n", "t.csv:2: column submit_s", "found 'nan'" },
	{ "inf", "id,submit_s,duration_s\nj1,0,inf\n", "t.csv:2: column duration_s", "found 'inf'" },
	{ "exponent", "id,submit_s,duration_s\nj1,1e3,10\n", "t.csv:2: column submit_s", "found '1e3'" },
	{ "finer than ns", "id,submit_s,duration_s\nj1,0.0000000001,10\n", "t.csv:2: column submit_s",
	  "found '0.0000000001'" },
	{ "too large", "id,submit_s,duration_s\nj1,0,1000000001\n", "t.csv:2: column duration_s",
	  "found '1000000001'" },
	{ "duplicate id", "id,submit_s,duration_s\nj1,0,1\nj2,0,1\n# c\nj1,0,1\n", "t.csv:5: column id",
	  "expected a unique id, found 'j1' again (first at t.csv:2)" },
	{ "unknown column", "id,submit_s,duration_s,gpus\nj1,0,1,8\n", "t.csv:1: column gpus",
	  "expected one of id, submit_s, duration_s, queue, priority, request, prefs" },
	{ "missing required column", "id,submit_s,queue\nj1,0,a\n", "t.csv:1: column duration_s",
	  "expected a required column" },
	{ "duplicate column", "id,submit_s,duration_s,queue,queue\nj1,0,1,a,b\n", "t.csv:1: column queue",
	  "expected each column once, found 'queue' again as column 5 (first as column 4)" },
	{ "4 fractional digits", "id,submit_s,duration_s,request\nj1,0,1,*:gpu=0.0001\n",
	  "t.csv:2: column request",
	  "expected RES=QTY with QTY >= 0 and at most 3 fractional digits, found 'gpu=0.0001'" },
	{ "prefs with 1 option", "id,submit_s,duration_s,prefs\nj1,0,1,h100:gpu=8\n", "t.csv:2: column prefs",
	  "expected 2 to 5 options FLAVOR:gpu=N[@DURATION_S] separated by ';', found 1 in 'h100:gpu=8'" },
	{ "prefs with 6 options",
	  "id,submit_s,duration_s,prefs\nj1,0,1,a:gpu=1;b:gpu=1;c:gpu=1;d:gpu=1;e:gpu=1;"
	  "f:gpu=1\n",
	  "t.csv:2: column prefs",
	  "expected 2 to 5 options FLAVOR:gpu=N[@DURATION_S] separated by ';', found 6 in "
	  "'a:gpu=1;b:gpu=1;c:gpu=1;d:gpu=1;e:gpu=1;f:gpu=1'" },
	{ "shared count with 6 options", "id,submit_s,duration_s,request,prefs\nj1,0,1,*:gpu=8,a;b;c;d;e;f\n",
	  "t.csv:2: column prefs",
	  "expected 2 to 5 options FLAVOR:gpu=N[@DURATION_S] separated by ';', found 6 in 'a;b;c;d;e;f'" },
	{ "shared count with 1 option", "id,submit_s,duration_s,request,prefs\nj1,0,1,*:gpu=8,h100@1\n",
	  "t.csv:2: column prefs",
	  "expected 2 to 5 options FLAVOR:gpu=N[@DURATION_S] separated by ';', found 1 in 'h100@1'" },
	{ "counted prefs and request",
	  "id,submit_s,duration_s,request,prefs\nj1,0,1,h100:gpu=8,h100:gpu=8;a100:gpu=8\n",
	  "t.csv:2: column prefs",
	  "expected the counts on the options or one shared count in request (*:gpu=N with bare "
	  "flavor names), not both, found 'h100:gpu=8;a100:gpu=8' with request 'h100:gpu=8'" },
	{ "counted prefs and shared count",
	  "id,submit_s,duration_s,request,prefs\nj1,0,1,*:gpu=8,h100:gpu=8;a100:gpu=8\n",
	  "t.csv:2: column prefs",
	  "not both, found 'h100:gpu=8;a100:gpu=8' with request '*:gpu=8'" },
	{ "mixed counts", "id,submit_s,duration_s,prefs\nj1,0,1,h100:gpu=8;a100;l40s:gpu=16\n",
	  "t.csv:2: column prefs",
	  "expected a count on every option or on none, found 2 of 3 options with counts in "
	  "'h100:gpu=8;a100;l40s:gpu=16'" },
	{ "mixed counts with shared count",
	  "id,submit_s,duration_s,request,prefs\nj1,0,1,*:gpu=8,h100;a100:gpu=8@5\n", "t.csv:2: column prefs",
	  "expected a count on every option or on none, found 1 of 2 options with counts in "
	  "'h100;a100:gpu=8@5'" },
	{ "bare options without request", "id,submit_s,duration_s,prefs\nj1,0,1,h100;a100@5400\n",
	  "t.csv:2: column prefs",
	  "expected a count on every option (FLAVOR:gpu=N[@DURATION_S]) or a shared count in request "
	  "(*:gpu=N), found 'h100;a100@5400' and no request" },
	{ "shared count naming a flavor",
	  "id,submit_s,duration_s,request,prefs\nj1,0,1,h100:gpu=8,h100;a100\n", "t.csv:2: column request",
	  "expected the shared count of prefs with flavor '*' (e.g. *:gpu=8; the options name the "
	  "flavors), found 'h100:gpu=8'" },
	{ "bad shared count", "id,submit_s,duration_s,request,prefs\nj1,0,1,*:cpu=8,h100;a100\n",
	  "t.csv:2: column request", "expected a gpu count (gpu=N) in every option, found '*:cpu=8'" },
	{ "repeated flavor", "id,submit_s,duration_s,prefs\nj1,0,1,h100:gpu=8;a100:gpu=8;h100:gpu=16\n",
	  "t.csv:2: column prefs",
	  "expected each flavor once in a list, found 'h100' again as option 3 (first as option 1) in "
	  "'h100:gpu=8;a100:gpu=8;h100:gpu=16'" },
	{ "repeated flavor, shared count",
	  "id,submit_s,duration_s,request,prefs\nj1,0,10,*:gpu=8,l40s;a100@20;a100@30\n",
	  "t.csv:2: column prefs",
	  "expected each flavor once in a list, found 'a100' again as option 3 (first as option 2) in "
	  "'l40s;a100@20;a100@30'" },
	{ "star option", "id,submit_s,duration_s,prefs\nj1,0,1,h100:gpu=8;*:gpu=8\n", "t.csv:2: column prefs",
	  "expected a flavor name in every option ('*' is not an instance type), found '*:gpu=8' in "
	  "'h100:gpu=8;*:gpu=8'" },
	{ "star first option", "id,submit_s,duration_s,prefs\nj1,0,1,*:gpu=8@1;h100:gpu=8\n",
	  "t.csv:2: column prefs",
	  "expected a flavor name in every option ('*' is not an instance type), found '*:gpu=8@1' in" },
	{ "star bare option", "id,submit_s,duration_s,request,prefs\nj1,0,1,*:gpu=8,h100;*@60\n",
	  "t.csv:2: column prefs",
	  "expected a flavor name in every option ('*' is not an instance type), found '*@60' in "
	  "'h100;*@60'" },
	{ "empty option", "id,submit_s,duration_s,prefs\nj1,0,1,h100:gpu=8;;a100:gpu=8\n",
	  "t.csv:2: column prefs",
	  "expected an option between every two ';', found option 2 empty in 'h100:gpu=8;;a100:gpu=8'" },
	{ "trailing ';'", "id,submit_s,duration_s,request,prefs\nj1,0,1,*:gpu=8,h100;\n",
	  "t.csv:2: column prefs", "expected an option between every two ';', found option 2 empty" },
	{ "bare option without a flavor", "id,submit_s,duration_s,request,prefs\nj1,0,1,*:gpu=8,h100;@60\n",
	  "t.csv:2: column prefs",
	  "expected FLAVOR[@DURATION_S] (the count in request), found '@60' in 'h100;@60'" },
	{ "bad bare flavor name", "id,submit_s,duration_s,request,prefs\nj1,0,1,*:gpu=8,h100;a 100\n",
	  "t.csv:2: column prefs",
	  "expected a flavor name of letters, digits, '_', '.', '-', found 'a 100'" },
	{ "bad bare duration", "id,submit_s,duration_s,request,prefs\nj1,0,1,*:gpu=8,h100;a100@-5\n",
	  "t.csv:2: column prefs",
	  "expected @DURATION_S with seconds > 0 (at most 9 fractional digits, at most 1e9), found "
	  "'a100@-5'" },
	{ "bare first option duration differs",
	  "id,submit_s,duration_s,request,prefs\nj1,0,10,*:gpu=8,h100@20;a100\n", "t.csv:2: column prefs",
	  "expected the first option's @DURATION_S to equal duration_s or be left out, found 'h100@20'" },
	{ "empty id", "id,submit_s,duration_s\n,0,1\n", "t.csv:2: column id",
	  "expected a non-empty id without control characters, found ''" },
	{ "bad request syntax", "id,submit_s,duration_s,request\nj1,0,1,h100-gpu8\n",
	  "t.csv:2: column request",
	  "expected FLAVOR:RES=QTY[,RES=QTY...] (e.g. h100:gpu=8 or *:gpu=1), found 'h100-gpu8'" },
	{ "request without gpu", "id,submit_s,duration_s,request\nj1,0,1,h100:cpu=4\n",
	  "t.csv:2: column request", "expected a gpu count (gpu=N) in every option, found 'h100:cpu=4'" },
	{ "request of nothing", "id,submit_s,duration_s,request\nj1,0,1,h100:gpu=0\n",
	  "t.csv:2: column request", "expected at least one resource > 0, found 'h100:gpu=0'" },
	{ "bad flavor name", "id,submit_s,duration_s,request\nj1,0,1,h 100:gpu=1\n",
	  "t.csv:2: column request", "expected a flavor name of letters, digits" },
	{ "priority non-integer", "id,submit_s,duration_s,priority\nj1,0,1,1.5\n", "t.csv:2: column priority",
	  "expected an integer in [-2147483648, 2147483647] or empty, found '1.5'" },
	{ "priority overflow", "id,submit_s,duration_s,priority\nj1,0,1,2147483648\n",
	  "t.csv:2: column priority", "found '2147483648'" },
	{ "preemptible word", "id,submit_s,duration_s,preemptible\nj1,0,1,yes\n",
	  "t.csv:2: column preemptible", "expected 0, 1, true, false or empty, found 'yes'" },
	{ "deadline before submit", "id,submit_s,duration_s,deadline_s\nj1,100,1,50\n",
	  "t.csv:2: column deadline_s", "expected an absolute time >= submit_s" },
	{ "zero checkpoint", "id,submit_s,duration_s,checkpoint_s\nj1,0,1,0\n",
	  "t.csv:2: column checkpoint_s", "expected seconds > 0" },
	{ "zero estimate", "id,submit_s,duration_s,estimate_s\nj1,0,1,0\n", "t.csv:2: column estimate_s",
	  "expected seconds > 0" },
	{ "field count", "id,submit_s,duration_s\nj1,0,1,extra\n", "t.csv:2",
	  "expected 3 fields as in the header, found 4" },
	{ "unclosed quote", "id,submit_s,duration_s\n\"j1,0,1\n", "t.csv:2",
	  "field 1: expected a closing '\"' on the same line" },
	{ "text after quote", "id,submit_s,duration_s\n\"j1\"x,0,1\n", "t.csv:2",
	  "field 1: expected ',' after the closing '\"'" },
	{ "first option duration differs", "id,submit_s,duration_s,prefs\nj1,0,10,a:gpu=1@20;b:gpu=2\n",
	  "t.csv:2: column prefs", "expected the first option's @DURATION_S to equal duration_s" },
	{ "too many resources",
	  "id,submit_s,duration_s,request\nj1,0,1,\"a:gpu=1,r1=1,r2=1,r3=1,r4=1,r5=1,r6=1\"\n",
	  "t.csv:2: column request", "expected at most 6 resource names" },
	{ "resource twice", "id,submit_s,duration_s,request\nj1,0,1,\"a:gpu=1,gpu=2\"\n",
	  "t.csv:2: column request", "expected each resource once, found 'gpu=2' again" },
	{ "no header", "# only comments\n\n", "t.csv:2", "expected a header row" },
};

/* 1 if one kept diag line holds both "WHERE: " and WHAT. */
static int diag_has(const struct sim_diag *d, const char *where, const char *what)
{
	char loc[256];
	size_t kept = d->count < d->limit ? d->count : d->limit;
	snprintf(loc, sizeof loc, "%s: ", where);
	for (size_t i = 0; i < kept; i++)
		if (strstr(d->lines[i], loc) == d->lines[i] && strstr(d->lines[i], what))
			return 1;
	return 0;
}

static void test_native_malformed_located(void)
{
	for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		const struct bad_case *bc = &bad_cases[i];
		struct sim_diag d;
		struct sim_trace *t = (struct sim_trace *)&d; /* must be reset to NULL */
		sim_diag_init(&d, 20);
		int rc = trace_native_parse("t.csv", bc->text, strlen(bc->text), &t, &d);
		int found = diag_has(&d, bc->where, bc->what);
		if (rc != -SIM_EPARSE || !found) {
			fprintf(stderr, "\ncase '%s': rc %d, wanted '%s: ...%s', got:\n", bc->name, rc,
				bc->where, bc->what);
			sim_diag_print(&d, stderr);
		}
		CU_ASSERT_EQUAL(rc, -SIM_EPARSE);
		CU_ASSERT_PTR_NULL(t);
		CU_ASSERT(found);
		CU_ASSERT(sim_diag_contains(&d, bc->where)); /* file:line and column, as users see it */
		sim_diag_fini(&d);
	}
}

/* One row with three bad columns reports all three; the id duplicate check still
 * works on rows that have other errors. */
static void test_native_all_errors_in_a_row(void)
{
	static const char text[] = "id,submit_s,duration_s,priority,request\n"
				   "j1,x,-1,p,h100\n";
	struct sim_diag d;
	struct sim_trace *t = NULL;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_native_parse("t.csv", text, strlen(text), &t, &d), -SIM_EPARSE);
	CU_ASSERT_EQUAL(d.count, 3);
	CU_ASSERT(sim_diag_contains(&d, "t.csv:2: column submit_s"));
	CU_ASSERT(sim_diag_contains(&d, "t.csv:2: column duration_s"));
	CU_ASSERT(sim_diag_contains(&d, "t.csv:2: column priority"));
	sim_diag_fini(&d);
}

/* 30 bad rows: the first 20 messages are kept, all 30 counted. */
static void test_native_error_limit(void)
{
	char text[4096];
	size_t len = (size_t)snprintf(text, sizeof text, "id,submit_s,duration_s\n");
	for (int i = 0; i < 30; i++)
		len += (size_t)snprintf(text + len, sizeof text - len, "j%d,0,bad%d\n", i, i);
	struct sim_diag d;
	struct sim_trace *t = NULL;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_native_parse("t.csv", text, len, &t, &d), -SIM_EPARSE);
	CU_ASSERT_PTR_NULL(t);
	CU_ASSERT_EQUAL(d.count, 30);
	CU_ASSERT(sim_diag_contains(&d, "t.csv:2: column duration_s"));
	CU_ASSERT(sim_diag_contains(&d, "t.csv:21: column duration_s: expected seconds > 0"));
	CU_ASSERT(strstr(sim_diag_last(&d), "t.csv:21:") != NULL);
	CU_ASSERT(!sim_diag_contains(&d, "t.csv:22:"));
	FILE *f = tmpfile();
	if (f) {
		char out[8192];
		sim_diag_print(&d, f);
		rewind(f);
		size_t n = fread(out, 1, sizeof out - 1, f);
		out[n] = '\0';
		CU_ASSERT(strstr(out, "... and 10 more errors") != NULL);
		fclose(f);
	}
	sim_diag_fini(&d);
}

static void test_native_read_file(void)
{
	struct sim_diag d;
	struct sim_trace *t = NULL;
	sim_diag_init(&d, 20);
	const char *path = tu_write_file("native_full.csv", full_trace);
	CU_ASSERT_EQUAL(trace_native_read(path, &t, &d), 0);
	CU_ASSERT(t && t->n_jobs == 4 && strcmp(t->path, path) == 0);
	sim_trace_destroy(t);

	char missing[512];
	snprintf(missing, sizeof missing, "%s/no_such.csv", tu_tmpdir());
	t = NULL;
	CU_ASSERT_EQUAL(trace_native_read(missing, &t, &d), -SIM_ENOENT);
	CU_ASSERT_PTR_NULL(t);
	CU_ASSERT(sim_diag_contains(&d, missing));

	/* Errors in a file name the file. */
	path = tu_write_file("native_bad.csv", "id,submit_s,duration_s\nj1,0,x\n");
	CU_ASSERT_EQUAL(trace_native_read(path, &t, &d), -SIM_EPARSE);
	char where[600];
	snprintf(where, sizeof where, "%s:2: column duration_s", path);
	CU_ASSERT(sim_diag_contains(&d, where));
	sim_diag_fini(&d);
}

/* Write, read back: every field survives; awkward ids are quoted. */
static void test_native_write_round_trip(void)
{
	static const char text[] =
		"id,submit_s,duration_s,queue,priority,request,prefs,max_pending_s,deadline_s,checkpoint_s,"
		"user,preemptible,estimate_s\n"
		"\"a,b\",10,3600.000000001,teamA,5,\"h100:gpu=8,cpu=96\",,600,7200,900,alice,0,4000\n"
		"\"#x\",0.5,60.25,,,*:gpu=0.5,,,,,,,\n"
		"\"say \"\"hi\"\"\",10,100,\" "
		"lead\",-3,,h100:gpu=8;a100:gpu=16@250;l40s:gpu=0.125,,,,bob,true,\n";
	struct sim_diag d;
	sim_diag_init(&d, 20);
	struct sim_trace *a = parse_ok(text, &d), *b = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(a ? trace_native_write(a, f) : -1, 0);
	fclose(f);
	CU_ASSERT_EQUAL(trace_native_parse("w.csv", buf, len, &b, &d), 0);
	if (a && b) {
		CU_ASSERT_EQUAL(a->n_jobs, b->n_jobs);
		CU_ASSERT_EQUAL(b->has_estimates, 1);
		for (size_t i = 0; i < a->n_jobs && i < b->n_jobs; i++) {
			const struct sim_job *x = &a->jobs[i], *y = &b->jobs[i];
			CU_ASSERT_STRING_EQUAL(sim_job_id(a, x), sim_job_id(b, y));
			CU_ASSERT_STRING_EQUAL(a->queues[x->queue], b->queues[y->queue]);
			CU_ASSERT_EQUAL(x->user < 0, y->user < 0);
			if (x->user >= 0 && y->user >= 0)
				CU_ASSERT_STRING_EQUAL(a->users[x->user], b->users[y->user]);
			CU_ASSERT_EQUAL(x->submit_ns, y->submit_ns);
			CU_ASSERT_EQUAL(x->duration_ns, y->duration_ns);
			CU_ASSERT_EQUAL(x->estimate_ns, y->estimate_ns);
			CU_ASSERT_EQUAL(x->priority, y->priority);
			CU_ASSERT_EQUAL(x->max_pending_ns, y->max_pending_ns);
			CU_ASSERT_EQUAL(x->deadline_ns, y->deadline_ns);
			CU_ASSERT_EQUAL(x->checkpoint_ns, y->checkpoint_ns);
			CU_ASSERT_EQUAL(x->preemptible, y->preemptible);
			CU_ASSERT_EQUAL(x->has_prefs, y->has_prefs);
			CU_ASSERT_EQUAL_FATAL(x->n_opts, y->n_opts);
			for (int k = 0; k < x->n_opts; k++) {
				const struct sim_job_option *p = sim_job_opt(a, x, k),
							    *q = sim_job_opt(b, y, k);
				CU_ASSERT_EQUAL(p->flavor_id < 0, q->flavor_id < 0);
				if (p->flavor_id >= 0 && q->flavor_id >= 0)
					CU_ASSERT_STRING_EQUAL(a->flavors[p->flavor_id],
							       b->flavors[q->flavor_id]);
				CU_ASSERT_EQUAL(p->duration_ns, q->duration_ns);
				for (int r = 0; r < a->res.n; r++) {
					int rb = sim_resources_find(&b->res, a->res.names[r]);
					CU_ASSERT_EQUAL(p->req[r], rb >= 0 ? q->req[rb] : 0);
				}
			}
		}
	}
	CU_ASSERT(buf && strstr(buf, "\"a,b\",10,3600.000000001,teamA,5,\"h100:gpu=8,cpu=96\","));
	CU_ASSERT(buf && strstr(buf, "\n\"#x\",0.5,60.25,default,"));
	CU_ASSERT(buf && strstr(buf, "h100:gpu=8;a100:gpu=16@250;l40s:gpu=0.125"));
	sim_trace_destroy(a);
	sim_trace_destroy(b);
	free(buf);
	sim_diag_fini(&d);
}

/* The shared-count form: request "*:RES=QTY" and bare flavor names in prefs give
 * every option that request on its flavor; @DURATION_S works as with counts. */
static void test_native_prefs_shared_count(void)
{
	static const char text[] = "id,submit_s,duration_s,request,prefs\n"
				   "s1,0,3600,*:gpu=8,h100;a100@5400;l40s\n"
				   "s2,1,60,\"*:gpu=16,cpu=192\",a100@60;h100@30\n"
				   "c1,2,100,,h100:gpu=8;a100:gpu=16@250\n";
	struct sim_diag d;
	sim_diag_init(&d, 20);
	struct sim_trace *t = parse_ok(text, &d);
	if (!t)
		goto out;
	CU_ASSERT_EQUAL(t->n_jobs, 3);
	const struct sim_job *j = &t->jobs[0];
	CU_ASSERT_EQUAL(j->has_prefs, 1);
	CU_ASSERT_EQUAL_FATAL(j->n_opts, 3);
	const char *fl[] = { "h100", "a100", "l40s" };
	const sim_time_t dur[] = { S(3600), S(5400), 0 };
	for (int k = 0; k < 3; k++) {
		const struct sim_job_option *o = sim_job_opt(t, j, k);
		CU_ASSERT_STRING_EQUAL(t->flavors[o->flavor_id], fl[k]);
		CU_ASSERT_EQUAL(o->req[SIM_RES_GPU], 8000);
		CU_ASSERT_EQUAL(o->duration_ns, dur[k]);
	}
	j = &t->jobs[1]; /* a multi-resource shared count; the first @ equals duration_s */
	CU_ASSERT_EQUAL_FATAL(j->n_opts, 2);
	CU_ASSERT_EQUAL(t->res.n, 2);
	for (int k = 0; k < 2; k++) {
		const struct sim_job_option *o = sim_job_opt(t, j, k);
		CU_ASSERT_STRING_EQUAL(t->flavors[o->flavor_id], k ? "h100" : "a100");
		CU_ASSERT_EQUAL(o->req[SIM_RES_GPU], 16000);
		CU_ASSERT_EQUAL(o->req[1], 192000);
		CU_ASSERT_EQUAL(o->duration_ns, k ? S(30) : S(60));
	}
	CU_ASSERT_EQUAL(t->jobs[2].n_opts, 2); /* counts on every option, no request */
	CU_ASSERT_EQUAL(sim_job_opt(t, &t->jobs[2], 1)->req[SIM_RES_GPU], 16000);
	sim_trace_destroy(t);
out:
	sim_diag_fini(&d);
}

/* A shared-count row is written with the count on every option, and reading that
 * back gives the same options (flavor, request vector, stated duration). */
static void test_native_prefs_shared_round_trip(void)
{
	static const char text[] = "id,submit_s,duration_s,request,prefs\n"
				   "s1,0,3600,*:gpu=8,h100;a100@5400;l40s\n"
				   "s2,1,60,\"*:gpu=16,cpu=192\",a100@60;h100@30.5\n"
				   "r1,2,10,*:gpu=1,\n";
	struct sim_diag d;
	sim_diag_init(&d, 20);
	struct sim_trace *a = parse_ok(text, &d), *b = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(a ? trace_native_write(a, f) : -1, 0);
	fclose(f);
	CU_ASSERT_EQUAL(trace_native_parse("w.csv", buf, len, &b, &d), 0);
	CU_ASSERT(buf && strstr(buf, "\ns1,0,3600,default,,h100:gpu=8;a100:gpu=8@5400;l40s:gpu=8\n"));
	CU_ASSERT(buf && strstr(buf, "\"a100:gpu=16,cpu=192;h100:gpu=16,cpu=192@30.5\""));
	if (a && b) {
		CU_ASSERT_EQUAL_FATAL(a->n_jobs, b->n_jobs);
		for (size_t i = 0; i < a->n_jobs; i++) {
			const struct sim_job *x = &a->jobs[i], *y = &b->jobs[i];
			CU_ASSERT_STRING_EQUAL(sim_job_id(a, x), sim_job_id(b, y));
			CU_ASSERT_EQUAL(x->has_prefs, y->has_prefs);
			CU_ASSERT_EQUAL_FATAL(x->n_opts, y->n_opts);
			for (int k = 0; k < x->n_opts; k++) {
				const struct sim_job_option *p = sim_job_opt(a, x, k),
							    *q = sim_job_opt(b, y, k);
				CU_ASSERT_EQUAL(p->flavor_id < 0, q->flavor_id < 0);
				if (p->flavor_id >= 0 && q->flavor_id >= 0)
					CU_ASSERT_STRING_EQUAL(a->flavors[p->flavor_id],
							       b->flavors[q->flavor_id]);
				CU_ASSERT_EQUAL(p->duration_ns, q->duration_ns);
				for (int r = 0; r < a->res.n; r++) {
					int rb = sim_resources_find(&b->res, a->res.names[r]);
					CU_ASSERT_EQUAL(p->req[r], rb >= 0 ? q->req[rb] : 0);
				}
			}
		}
	}
	sim_trace_destroy(a);
	sim_trace_destroy(b);
	free(buf);
	sim_diag_fini(&d);
}

/* A cluster for the bind checks: resources gpu and cpu; flavor "a", 2 nodes of 8
 * GPUs and 96 cpu; flavor "b", 1 node of 4 GPUs and 48 cpu; flavor "c", nodes
 * online now and at most `c_peak` (capacity over time: fits are judged on peak). */
static struct sim_cluster *bind_cluster(uint32_t c_nodes, uint32_t c_peak)
{
	struct sim_resources res;
	sim_resources_init(&res);
	sim_resources_add(&res, "cpu");
	struct sim_flavor_spec spec[3] = {
		{ .name = "a", .nodes = 2, .speed = 1.0 },
		{ .name = "b", .nodes = 1, .speed = 0.5 },
		{ .name = "c", .nodes = c_nodes, .peak_nodes = c_peak, .speed = 2.0 },
	};
	spec[0].node_cap[SIM_RES_GPU] = 8000;
	spec[0].node_cap[1] = 96000;
	spec[1].node_cap[SIM_RES_GPU] = 4000;
	spec[1].node_cap[1] = 48000;
	spec[2].node_cap[SIM_RES_GPU] = 8000;
	spec[2].node_cap[1] = 96000;
	return sim_cluster_create(&res, spec, 3, SIM_PLACE_BEST_FIT);
}

/* Parses text, binds it to bind_cluster(c_nodes, c_peak) and returns bind's result
 * (diag holds the messages); -1000 if the parse failed. */
static int parse_and_bind(const char *text, uint32_t c_nodes, uint32_t c_peak, struct sim_diag *d)
{
	struct sim_trace *t = parse_ok(text, d);
	struct sim_cluster *c = bind_cluster(c_nodes, c_peak);
	CU_ASSERT_PTR_NOT_NULL(c);
	int rc = t && c ? sim_trace_bind(t, c, d) : -1000;
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
	return rc;
}

/* Every option, not only the first, must name a flavor of the cluster: the first
 * row using an unknown name is reported with the option and the cluster's flavors. */
static void test_native_bind_unknown_flavor(void)
{
	struct sim_diag d;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(parse_and_bind("id,submit_s,duration_s,request,prefs\n"
				       "ok,0,10,,a:gpu=8;b:gpu=4\n"
				       "p1,0,10,,a:gpu=8;zz:gpu=8;b:gpu=4\n"
				       "p2,0,10,*:gpu=4,b;zz\n"
				       "r1,0,10,yy:gpu=1,\n",
				       2, 0, &d),
			-SIM_EPARSE);
	CU_ASSERT_EQUAL(d.count, 2); /* one message a missing flavor, at its first row */
	CU_ASSERT(diag_has(&d, "t.csv:3",
			   "column prefs: expected a flavor of the cluster, found 'zz' (option 2; the "
			   "cluster has a, b, c)"));
	CU_ASSERT(diag_has(&d, "t.csv:5",
			   "column request: expected a flavor of the cluster, found 'yy' (the cluster has a, "
			   "b, c)"));
	if (d.count != 2)
		sim_diag_print(&d, stderr);
	sim_diag_fini(&d);
}

/* A resource the cluster lacks is reported at the first row asking for it (the
 * message named the file only). */
static void test_native_bind_unknown_resource(void)
{
	struct sim_diag d;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(parse_and_bind("id,submit_s,duration_s,request\n"
				       "ok,0,10,a:gpu=8\n"
				       "m,0,10,\"a:gpu=1,mem=4\"\n",
				       2, 0, &d),
			-SIM_EPARSE);
	CU_ASSERT(diag_has(&d, "t.csv:3: column request",
			   "expected resources declared by the cluster, found 'mem' in a request"));
	if (d.count != 1)
		sim_diag_print(&d, stderr);
	sim_diag_fini(&d);
}

/* Every option must fit its flavor at its largest: each misfit is reported with
 * its row, option number and the flavor's size; "*" requests keep their message. */
static void test_native_bind_option_never_fits(void)
{
	struct sim_diag d;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(parse_and_bind("id,submit_s,duration_s,request,prefs\n"
				       "ok,0,10,,a:gpu=16;b:gpu=4\n"
				       "p1,0,10,,c:gpu=1;b:gpu=8;a:gpu=24\n"
				       "p2,0,10,*:gpu=16,a;b\n"
				       "p3,0,10,,\"a:gpu=8,cpu=200;b:gpu=1,cpu=8\"\n"
				       "r1,0,10,b:gpu=5,\n"
				       "r2,0,10,*:gpu=32,\n",
				       0, 0, &d),
			-SIM_EPARSE);
	CU_ASSERT(diag_has(&d, "t.csv:3",
			   "column prefs: expected every option to fit its flavor, found option 2 (b:gpu=8) "
			   "which can never run: the flavor has at most 1 node of 4 GPUs"));
	CU_ASSERT(diag_has(&d, "t.csv:3",
			   "column prefs: expected every option to fit its flavor, found option 3 (a:gpu=24) "
			   "which can never run: the flavor has at most 2 nodes of 8 GPUs"));
	CU_ASSERT(diag_has(&d, "t.csv:4",
			   "found option 2 (b:gpu=16) which can never run: the flavor has at most 1 node of "
			   "4 GPUs"));
	CU_ASSERT(diag_has(&d, "t.csv:5",
			   "found option 1 (a:gpu=8,cpu=200) which can never run: the flavor has at most 2 "
			   "nodes of 8 GPUs and cpu=96 a node"));
	CU_ASSERT(diag_has(&d, "t.csv:6",
			   "column request: expected a request its flavor can hold, found b:gpu=5 which can "
			   "never run: the flavor has at most 1 node of 4 GPUs"));
	CU_ASSERT(diag_has(&d, "t.csv:7",
			   "column request: expected a request that fits some node shape and node count of "
			   "the cluster, found *:gpu=32 (option 1) which no flavor can ever hold"));
	CU_ASSERT(diag_has(&d, "t.csv:3",
			   "column prefs: expected every option to fit its flavor, found option 1 (c:gpu=1) "
			   "which can never run: the flavor has at most 0 nodes of 8 GPUs"));
	CU_ASSERT_EQUAL(d.count, 7);
	CU_ASSERT(!sim_diag_contains(&d, "t.csv:2:"));
	if (d.count != 7)
		sim_diag_print(&d, stderr);
	sim_diag_fini(&d);

	/* A list whose options all fit binds, every option mapped to the cluster's
	 * flavor index (trace order b, a, c; cluster order a, b, c). */
	static const char ok[] = "id,submit_s,duration_s,request,prefs\ns1,0,10,*:gpu=4,b;a@5;c\n";
	sim_diag_init(&d, 20);
	struct sim_trace *t = parse_ok(ok, &d);
	struct sim_cluster *c = bind_cluster(1, 0);
	CU_ASSERT_EQUAL(t && c ? sim_trace_bind(t, c, &d) : -1, 0);
	if (t && t->n_jobs == 1 && t->jobs[0].n_opts == 3) {
		CU_ASSERT_EQUAL(sim_job_opt(t, &t->jobs[0], 0)->flavor_id, 1);
		CU_ASSERT_EQUAL(sim_job_opt(t, &t->jobs[0], 1)->flavor_id, 0);
		CU_ASSERT_EQUAL(sim_job_opt(t, &t->jobs[0], 2)->flavor_id, 2);
		CU_ASSERT_EQUAL(sim_job_opt(t, &t->jobs[0], 2)->req[SIM_RES_GPU], 4000);
	}
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
	sim_diag_fini(&d);
}

/* A flavor with no nodes now but more at its peak (a reservation window, a
 * stock-out that ends) can run the option later: judged on peak nodes. */
static void test_native_bind_judges_peak_nodes(void)
{
	struct sim_diag d;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(parse_and_bind("id,submit_s,duration_s,prefs\nr,0,10,c:gpu=24;a:gpu=8\n", 0, 3, &d),
			0);
	CU_ASSERT_EQUAL(parse_and_bind("id,submit_s,duration_s,prefs\nr,0,10,a:gpu=8;c:gpu=32\n", 1, 3, &d),
			-SIM_EPARSE);
	CU_ASSERT(diag_has(&d, "t.csv:2",
			   "found option 2 (c:gpu=32) which can never run: the flavor has at most 3 nodes of "
			   "8 GPUs"));
	sim_diag_fini(&d);
}

/* The CLI: `trace validate` reports every preference-list rule with its line and
 * exits 2; a fixture of both valid forms passes; `run` refuses a list whose
 * second option names a flavor the cluster lacks, with exit 2. */
static void test_native_cli_prefs(void)
{
	char args[1200], *txt = NULL;
	const char *bad = TEST_SOURCE_DIR "/tests/data/traces/prefs_bad.csv";
	static const char *const want[] = {
		"prefs_bad.csv:3: column prefs: expected 2 to 5 options",
		"prefs_bad.csv:4: column prefs: expected 2 to 5 options",
		"prefs_bad.csv:5: column prefs: expected each flavor once in a list, found 'h100' again",
		"prefs_bad.csv:6: column prefs: expected a count on every option or on none",
		"prefs_bad.csv:7: column prefs: expected a flavor name in every option ('*' is not an "
		"instance type)",
		"prefs_bad.csv:8: column request: expected the shared count of prefs with flavor '*'",
		"prefs_bad.csv:9: column prefs: expected the counts on the options or one shared count in "
		"request",
		"prefs_bad.csv:10: column prefs: expected a count on every option "
		"(FLAVOR:gpu=N[@DURATION_S]) or a shared count in request",
	};

	snprintf(args, sizeof args, "trace validate %s", bad);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		int found = txt && strstr(txt, want[i]) != NULL;
		if (!found)
			fprintf(stderr, "\nmissing '%s' in:\n%s\n", want[i], txt ? txt : "(null)");
		CU_ASSERT(found);
	}
	free(txt);

	snprintf(args, sizeof args, "trace validate %s/tests/data/traces/prefs_ok.csv", TEST_SOURCE_DIR);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	CU_ASSERT(txt && strstr(txt, "prefs_ok.csv: 4 jobs OK"));
	free(txt);

	const char *trace = tu_write_file("prefs_unknown.csv", "id,submit_s,duration_s,request,prefs\n"
							     "j1,0,60,*:gpu=8,v100;h100\n");
	(void)trace;
	const char *cfg = tu_write_file(
		"prefs_unknown.json",
		"{\"name\": \"prefs-unknown\",\n"
		" \"trace\": {\"path\": \"prefs_unknown.csv\", \"format\": \"native\"},\n"
		" \"cluster\": {\"flavors\": [{\"name\": \"v100\", \"nodes\": 2, \"node\": {\"gpu\": 8},\n"
		"  \"speed\": 1.0, \"price_per_node_hour\": 24.0}]},\n"
		" \"policies\": {\"order\": \"fifo\", \"quota\": \"none\", \"preemption\": \"none\",\n"
		"  \"fallback\": \"strict\", \"placement\": \"best_fit\"},\n"
		" \"seeds\": [1], \"output\": \"prefs_unknown.h5\"}\n");
	snprintf(args, sizeof args, "run %s", cfg);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	CU_ASSERT(txt && strstr(txt, "prefs_unknown.csv:2: column prefs: expected a flavor of the cluster, "
				     "found 'h100' (option 2; the cluster has v100)"));
	if (txt && !strstr(txt, "found 'h100' (option 2"))
		fprintf(stderr, "\ngpusched run said:\n%s\n", txt);
	free(txt);
	char h5[600];
	snprintf(h5, sizeof h5, "%s/prefs_unknown.h5", tu_tmpdir());
	CU_ASSERT(!tu_exists(h5)); /* nothing written before the input is valid */
}

/* The bundled sample the minimal config uses: 20 jobs, 1-8 GPUs on v100 or any. */
static void test_native_bundled_sample(void)
{
	struct sim_diag d;
	struct sim_trace *t = NULL;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_native_read(TEST_SOURCE_DIR "/traces/data/sample.csv", &t, &d), 0);
	if (t) {
		CU_ASSERT_EQUAL(t->n_jobs, 20);
		for (size_t i = 0; i < t->n_jobs; i++) {
			const struct sim_job_option *o = sim_job_opt(t, &t->jobs[i], 0);
			CU_ASSERT(o->req[SIM_RES_GPU] >= 1000 && o->req[SIM_RES_GPU] <= 8000);
			CU_ASSERT(o->flavor_id == SIM_FLAVOR_ANY ||
				  strcmp(t->flavors[o->flavor_id], "v100") == 0);
		}
	}
	sim_trace_destroy(t);
	sim_diag_fini(&d);
}

/* A trace of n one-GPU jobs "jK,K,60" (about 16 bytes a row), malloc'd. */
static char *make_trace_text(size_t n)
{
	size_t cap = 64 + n * 40, len;
	char *buf = malloc(cap);
	if (!buf)
		return NULL;
	len = (size_t)snprintf(buf, cap, "id,submit_s,duration_s\n");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "j%zu,%zu,60\n", i, i);
	return buf;
}

/* A directory is refused as bad input (it once read as LONG_MAX bytes: "out of
 * memory", exit 1); a FIFO and a pipe, which have no size, are read to their end
 * (they once failed with "Illegal seek"). The FIFO's trace is larger than the
 * reader's first buffer, so the buffer has to grow. */
static void test_native_read_not_regular(void)
{
	struct sim_diag d;
	struct sim_trace *t = NULL;
	char want[600], args[1200], *txt = NULL;

	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_native_read(tu_tmpdir(), &t, &d), -SIM_EPARSE);
	CU_ASSERT_PTR_NULL(t);
	snprintf(want, sizeof want, "%s: cannot read trace: Is a directory", tu_tmpdir());
	CU_ASSERT_STRING_EQUAL(sim_diag_last(&d), want);
	sim_diag_fini(&d);
	snprintf(args, sizeof args, "trace validate %s", tu_tmpdir());
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	CU_ASSERT(txt && strstr(txt, want));
	free(txt);

	const size_t n_jobs = 20000; /* about 300 KB */
	char *text = make_trace_text(n_jobs);
	CU_ASSERT_FATAL(text != NULL);
	size_t text_len = strlen(text);
	CU_ASSERT(text_len > 256 * 1024);
	char fifo[512];
	snprintf(fifo, sizeof fifo, "%s/trace.fifo", tu_tmpdir());
	CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
	pid_t child = fork();
	CU_ASSERT_FATAL(child >= 0);
	if (child == 0) {
		alarm(20); /* never hang the suite if the reader does not open the FIFO */
		int fd = open(fifo, O_WRONLY);
		size_t off = 0;
		while (fd >= 0 && off < text_len) {
			ssize_t w = write(fd, text + off, text_len - off);
			if (w < 0 && errno != EINTR)
				_exit(1);
			off += w > 0 ? (size_t)w : 0;
		}
		_exit(fd >= 0 ? 0 : 1);
	}
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(trace_native_read(fifo, &t, &d), 0);
	sim_diag_print(&d, stderr);
	CU_ASSERT(t && t->n_jobs == n_jobs);
	if (t)
		CU_ASSERT_EQUAL(t->jobs[n_jobs - 1].submit_ns, S(n_jobs - 1));
	sim_trace_destroy(t);
	sim_diag_fini(&d);
	int st = 0;
	CU_ASSERT(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	unlink(fifo);

	/* A pipe through the CLI: `cat FILE | gpusched trace validate /dev/stdin`. */
	const char *path = tu_write_file("native_pipe.csv", text);
	char cmd[1400];
	snprintf(cmd, sizeof cmd, "cat '%s' | %s trace validate /dev/stdin 2>&1", path, GPUSCHED_BIN);
	FILE *p = popen(cmd, "r");
	CU_ASSERT_FATAL(p != NULL);
	char msg[1024] = "";
	size_t got = fread(msg, 1, sizeof msg - 1, p);
	msg[got] = 0;
	st = pclose(p);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT(strstr(msg, "/dev/stdin: 20000 jobs OK") != NULL);
	free(text);
}

/* The CLI verbs on a good and a bad trace. */
static void test_native_cli_validate_stats(void)
{
	const char *good = tu_write_file("cli_good.csv", full_trace);
	const char *bad = tu_write_file("cli_bad.csv", "id,submit_s,duration_s\nj1,0,x\nj1,0,1\n");
	char args[1024], *txt = NULL;

	snprintf(args, sizeof args, "trace validate %s", good);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	CU_ASSERT(txt && strstr(txt, "cli_good.csv: 4 jobs OK"));
	free(txt);
	snprintf(args, sizeof args, "trace validate %s", bad);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	CU_ASSERT(txt && strstr(txt, "cli_bad.csv:2: column duration_s: expected seconds > 0"));
	CU_ASSERT(txt && strstr(txt, "cli_bad.csv:3: column id: expected a unique id"));
	free(txt);
	snprintf(args, sizeof args, "trace stats %s --json", good);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	/* durations 0.5..3600 s: 1, 60.25, 100, 3600; GPU-hours = (60.25*0.5 + 1*1 + 3600*8 + 100*8)/3600 */
	CU_ASSERT(txt && strstr(txt, "\"jobs\":\t4"));
	CU_ASSERT(txt && strstr(txt, "\"max\":\t3600"));
	cJSON *st = txt ? cJSON_Parse(txt) : NULL;
	const cJSON *ta = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(st, "queues"), "teamA");
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(ta, "jobs")), 2, 0);
	cJSON_Delete(st);
	CU_ASSERT(txt && strstr(txt, "\"span_s\":\t9.5"));
	free(txt);
	snprintf(args, sizeof args, "trace stats %s", good);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	CU_ASSERT(txt && strstr(txt, "gpu-hours                                   8.2"));
	free(txt);
	snprintf(args, sizeof args, "trace stats %s --bogus", good);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	free(txt);
}

/* trace stats: load by hour of day (trace time mod 24 h), demand by queue, and two
 * traces side by side. */
static void test_native_cli_stats_hours_queues_compare(void)
{
	/* hour 0: j1 (2 GPUs x 1 h); hour 1: j2, j3 and j4 (submitted 25 h in: hour 1 of
	 * day 2), 1 GPU x 0.5 h each */
	const char *a = tu_write_file("stats_a.csv", "id,submit_s,duration_s,queue,request\n"
						     "j1,0,3600,qa,*:gpu=2\n"
						     "j2,3600,1800,qb,*:gpu=1\n"
						     "j3,3700,1800,qb,*:gpu=1\n"
						     "j4,90000,1800,qa,*:gpu=1\n");
	const char *b = tu_write_file("stats_b.csv", "id,submit_s,duration_s\nk1,7200,60\n");
	char args[1024], *txt = NULL;
	snprintf(args, sizeof args, "trace stats %s --json", a);
	CU_ASSERT_EQUAL_FATAL(tu_run_gpusched(args, &txt), 0);
	cJSON *o = cJSON_Parse(txt);
	free(txt);
	const cJSON *hours = cJSON_GetObjectItemCaseSensitive(o, "by_hour_of_day");
	CU_ASSERT_EQUAL(cJSON_GetArraySize(hours), 24);
	const cJSON *h0 = cJSON_GetArrayItem(hours, 0), *h1 = cJSON_GetArrayItem(hours, 1);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(h0, "jobs")), 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(h0, "gpu_hours")), 2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(h1, "jobs")), 3, 0);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(h1, "gpu_hours")), 1.5, 1e-9);
	const cJSON *qs = cJSON_GetObjectItemCaseSensitive(o, "queues");
	const cJSON *qa = cJSON_GetObjectItemCaseSensitive(qs, "qa"), *qb = cJSON_GetObjectItemCaseSensitive(qs, "qb");
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(qa, "jobs")), 2, 0);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(qa, "gpu_hours")), 2.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(qb, "gpu_hours")), 1.0, 1e-9);
	cJSON_Delete(o);

	snprintf(args, sizeof args, "trace stats %s %s --json", a, b);
	CU_ASSERT_EQUAL_FATAL(tu_run_gpusched(args, &txt), 0);
	o = cJSON_Parse(txt);
	free(txt);
	CU_ASSERT(cJSON_IsArray(o) && cJSON_GetArraySize(o) == 2);
	CU_ASSERT_DOUBLE_EQUAL(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(o, 1), "jobs")),
			       1, 0);
	cJSON_Delete(o);

	snprintf(args, sizeof args, "trace stats %s %s", a, b);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	/* side by side: a column a trace; hour 1 holds 75% of a's jobs and 1.5 of its 3.5 GPU-hours (42.9%) */
	CU_ASSERT(txt && strstr(txt, "stats_b.csv"));
	CU_ASSERT(txt && strstr(txt, "75.0 /       42.9"));
	CU_ASSERT(txt && strstr(txt, "demand by queue in"));
	free(txt);
	snprintf(args, sizeof args, "trace stats %s %s %s", a, b, a);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	free(txt);
}

/* A mapped trace larger than the parser's drop window (8 MB, its pages dropped
 * behind the parse): every row read, and a duplicate id in the last row, found by
 * the exact second pass that reads the dropped pages again, is located with the
 * line of its first use. 400,000 rows of about 30 bytes. */
static void test_native_large_mapped_trace(void)
{
	enum { N = 400000 };
	const char *path = tu_tmp_path("large-mapped.csv");
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("id,submit_s,duration_s,queue\n", f);
	for (int i = 0; i < N; i++)
		fprintf(f, "job%07d,%d.5,%d,q%d\n", i, i, 60 + i % 1000, i % 3);
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct sim_trace *t = NULL;
	CU_ASSERT_EQUAL_FATAL(trace_native_read(path, &t, &d), 0);
	CU_ASSERT_EQUAL(t->n_jobs, N);
	CU_ASSERT_STRING_EQUAL(sim_job_id(t, &t->jobs[N - 1]), "job0399999");
	CU_ASSERT_EQUAL(t->jobs[N - 1].submit_ns, (sim_time_t)(N - 1) * SIM_NS_PER_S + SIM_NS_PER_S / 2);
	CU_ASSERT_EQUAL(t->jobs[N - 1].duration_ns, (sim_time_t)(60 + (N - 1) % 1000) * SIM_NS_PER_S);
	sim_trace_destroy(t);
	t = NULL;
	f = fopen(path, "a");
	CU_ASSERT_FATAL(f != NULL);
	fputs("job0000001,400000,10,q0\n", f);
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	CU_ASSERT_EQUAL(trace_native_read(path, &t, &d), -SIM_EPARSE);
	CU_ASSERT(t == NULL);
	char msg[600];
	snprintf(msg, sizeof msg, "%s:400002: column id: expected a unique id, found 'job0000001' again (first at %s:3)",
		 path, path);
	CU_ASSERT(sim_diag_contains(&d, msg));
	sim_diag_fini(&d);
	remove(path);
}

/* The fast pass in two halves (traces/native.c) gives the serial pass's trace byte
 * for byte. The rows are built so that the cut (the first line end past the middle
 * of the rows' bytes, about row 60 of 120) falls inside rows 50-70, which name
 * queue qB, user u2 and the resource mem_gib first: the second half first sees its
 * names in another order than the trace does (queues qB, qC, qA against qA, qB, qC;
 * resources gpu, mem_gib, cpu against gpu, cpu, mem_gib), so every map of the merge
 * is a permutation, not the identity. Comments, a blank line, CRLF and a quoted
 * field sit on both sides, and row 80 is submitted before row 79 (a sort across
 * the halves' rows). */
static char *split_text(size_t *len)
{
	size_t cap = 64 * 1024, n = 0;
	char *s = malloc(cap);
	n += (size_t)snprintf(s + n, cap - n, "# split test\nid,submit_s,duration_s,queue,user,request,estimate_s\n");
	for (int i = 1; i <= 120; i++) {
		const char *q = i < 50 ? (i % 2 ? "qA" : "qB") : i <= 70 ? "qB" : (i % 3 == 0 ? "qA" : "qC");
		const char *u = i < 50 ? "u1" : i <= 70 ? "u2" : (i % 2 ? "u1" : "u3");
		const char *req = i < 50 ? (i % 2 ? "h100:gpu=8" : "\"*:gpu=1,cpu=4\"")
				  : i <= 70 ? "\"a100:gpu=2,mem_gib=16\""
					    : (i % 2 ? "\"h100:gpu=1,cpu=2,mem_gib=8\"" : "b200:gpu=4");
		int submit = i == 80 ? 5 : i * 10;
		n += (size_t)snprintf(s + n, cap - n, "j%03d,%d.25,%d,%s,%s,%s,%d%s", i, submit, 100 + i, q, u, req,
				      200 + i, i % 7 == 0 ? "\r\n" : "\n");
		if (i == 30 || i == 95)
			n += (size_t)snprintf(s + n, cap - n, "  # comment\n\n");
	}
	*len = n;
	return s;
}

static struct sim_trace *parse_split_min(const char *text, size_t len, size_t split_min, struct sim_diag *d, int *rc)
{
	struct sim_trace *t = NULL;
	trace_native_set_split_min(split_min);
	*rc = trace_native_parse("t.csv", text, len, &t, d);
	trace_native_set_split_min(4u << 20);
	return t;
}

static void expect_names_equal(char **a, size_t na, char **b, size_t nb)
{
	CU_ASSERT_EQUAL_FATAL(na, nb);
	for (size_t i = 0; i < na; i++)
		CU_ASSERT_STRING_EQUAL(a[i], b[i]);
}

static void test_native_split_same_trace(void)
{
	size_t len;
	char *text = split_text(&len);
	struct sim_diag d;
	sim_diag_init(&d, 5);
	int rc1, rc2;
	struct sim_trace *one = parse_split_min(text, len, SIZE_MAX, &d, &rc1);
	struct sim_trace *two = parse_split_min(text, len, 0, &d, &rc2);
	CU_ASSERT_EQUAL_FATAL(rc1, 0);
	CU_ASSERT_EQUAL_FATAL(rc2, 0);
	CU_ASSERT_EQUAL(two->n_jobs, 120);
	CU_ASSERT_EQUAL_FATAL(two->n_jobs, one->n_jobs);
	CU_ASSERT_EQUAL_FATAL(two->n_opts, one->n_opts);
	CU_ASSERT_EQUAL(memcmp(two->jobs, one->jobs, one->n_jobs * sizeof *one->jobs), 0);
	CU_ASSERT_EQUAL(memcmp(two->opts, one->opts, one->n_opts * sizeof *one->opts), 0);
	CU_ASSERT_EQUAL_FATAL(two->strings_len, one->strings_len);
	CU_ASSERT_EQUAL(memcmp(two->strings, one->strings, one->strings_len), 0);
	expect_names_equal(two->queues, two->n_queues, one->queues, one->n_queues);
	expect_names_equal(two->users, two->n_users, one->users, one->n_users);
	expect_names_equal(two->flavors, two->n_flavors, one->flavors, one->n_flavors);
	CU_ASSERT_EQUAL_FATAL(two->res.n, one->res.n);
	for (int r = 0; r < one->res.n; r++)
		CU_ASSERT_STRING_EQUAL(two->res.names[r], one->res.names[r]);
	/* By hand: names in order of first use over the whole file. */
	CU_ASSERT_EQUAL_FATAL(two->n_queues, 3);
	CU_ASSERT_STRING_EQUAL(two->queues[0], "qA");
	CU_ASSERT_STRING_EQUAL(two->queues[2], "qC");
	CU_ASSERT_EQUAL_FATAL(two->res.n, 3);
	CU_ASSERT_STRING_EQUAL(two->res.names[1], "cpu");
	CU_ASSERT_STRING_EQUAL(two->res.names[2], "mem_gib");
	CU_ASSERT_EQUAL_FATAL(two->n_flavors, 3); /* h100, a100, b200 ("*" is not a name) */
	CU_ASSERT_STRING_EQUAL(two->flavors[2], "b200");
	/* Row 80 (submit 5.25 s, before row 1's 10.25 s) sorts first. */
	const struct sim_job *j = &two->jobs[0];
	CU_ASSERT_STRING_EQUAL(sim_job_id(two, j), "j080");
	CU_ASSERT_EQUAL(j->line, 2 + 80 + 2); /* header on line 2, two comment lines and a blank line before it */
	CU_ASSERT_STRING_EQUAL(two->queues[j->queue], "qC");
	CU_ASSERT_STRING_EQUAL(two->users[j->user], "u3");
	CU_ASSERT_STRING_EQUAL(two->flavors[two->opts[j->opt_first].flavor_id], "b200");
	/* j119 (row 119, in the second half): h100:gpu=1,cpu=2,mem_gib=8. */
	const struct sim_job *k = &two->jobs[118];
	CU_ASSERT_STRING_EQUAL(sim_job_id(two, k), "j119");
	CU_ASSERT_EQUAL(two->opts[k->opt_first].req[1], 2 * SIM_MILLI);
	CU_ASSERT_EQUAL(two->opts[k->opt_first].req[2], 8 * SIM_MILLI);
	CU_ASSERT_EQUAL(k->estimate_ns, S(319));
	sim_trace_destroy(one);
	sim_trace_destroy(two);
	sim_diag_fini(&d);
	free(text);
}

/* Errors in either half, and a duplicate id across the halves, are reported as the
 * serial pass reports them: the same messages in the same order. */
static void test_native_split_same_errors(void)
{
	size_t len;
	char *text = split_text(&len);
	char *bad = malloc(len + 256);
	/* Row 10 (first half, line 12): a bad duration; row 100 (second half, line 106)
	 * repeats row 3's id (line 5). */
	memcpy(bad, text, len);
	bad[len] = '\0';
	char *r10 = strstr(bad, "j010,100.25,110");
	char *r100 = strstr(bad, "j100,");
	CU_ASSERT_FATAL(r10 != NULL && r100 != NULL);
	memcpy(r10 + 12, "x", 1);
	memcpy(r100, "j003", 4);
	struct sim_diag d1, d2;
	sim_diag_init(&d1, 20);
	sim_diag_init(&d2, 20);
	int rc1, rc2;
	struct sim_trace *one = parse_split_min(bad, len, SIZE_MAX, &d1, &rc1);
	struct sim_trace *two = parse_split_min(bad, len, 0, &d2, &rc2);
	CU_ASSERT_EQUAL(rc1, -SIM_EPARSE);
	CU_ASSERT_EQUAL(rc2, -SIM_EPARSE);
	CU_ASSERT_PTR_NULL(one);
	CU_ASSERT_PTR_NULL(two);
	CU_ASSERT_EQUAL(d1.count, 2);
	CU_ASSERT_EQUAL_FATAL(d2.count, d1.count);
	for (size_t i = 0; i < d1.count && i < d1.limit; i++)
		CU_ASSERT_STRING_EQUAL(d2.lines[i], d1.lines[i]);
	CU_ASSERT(sim_diag_contains(&d2, "t.csv:12: column duration_s"));
	CU_ASSERT(sim_diag_contains(&d2, "t.csv:106: column id: expected a unique id, found 'j003' again (first at t.csv:5)"));
	sim_diag_fini(&d1);
	sim_diag_fini(&d2);
	free(bad);
	free(text);
}

/* One time through the reader's submit_s column: 0 and *ns, or -1 when refused. */
static int submit_through_reader(const char *v, sim_time_t *ns)
{
	char text[128];
	snprintf(text, sizeof text, "id,submit_s,duration_s\nj,%s,1\n", v);
	struct sim_diag d;
	sim_diag_init(&d, 2);
	struct sim_trace *t = NULL;
	int rc = trace_native_parse("t.csv", text, strlen(text), &t, &d);
	if (rc == 0)
		*ns = t->jobs[0].submit_ns;
	sim_trace_destroy(t);
	sim_diag_fini(&d);
	return rc == 0 ? 0 : -1;
}

/* The reader's one-pass read of common times (fast_secs in traces/native.c) accepts
 * what sim_time_parse_s accepts within the trace's limit (0 to 1e9 s) and gives its
 * value: hand-picked edge cases (digits on either side of 9, a lone '.', '+', signs,
 * trailing zeros past the 9th fraction digit, the limit itself) and 3,000 random
 * strings of digits, '.', '+' and '-'. By hand: "1792678.123" is 1,792,678,123,000,000 ns. */
static void test_native_times_as_the_parser(void)
{
	static const char *const cases[] = { "0", "5", "5.", ".5", ".", "", "+5", "-5", "1e3", "123456789",
					     "1234567890", "999999999.999999999", "1000000000", "1000000000.000000001",
					     "1000000001", "0.000000001", "0.0000000001", "0.1000000000", "00000000001",
					     "1.5.", "12a", "1792678.123", "0000000000.5" };
	sim_time_t ns = 0;
	CU_ASSERT_EQUAL(submit_through_reader("1792678.123", &ns), 0);
	CU_ASSERT_EQUAL(ns, 1792678123000000LL);
	uint64_t x = 12345;
	size_t bad = 0;
	for (size_t k = 0; k < sizeof cases / sizeof cases[0] + 3000; k++) {
		char v[32];
		if (k < sizeof cases / sizeof cases[0]) {
			snprintf(v, sizeof v, "%s", cases[k]);
		} else {
			static const char alphabet[] = "0123456789012345678901234567890123456789..+-";
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			size_t n = (size_t)(x >> 59) % 22;
			for (size_t i = 0; i < n; i++) {
				x = x * 6364136223846793005ull + 1442695040888963407ull;
				v[i] = alphabet[(x >> 33) % (sizeof alphabet - 1)];
			}
			v[n] = '\0';
		}
		sim_time_t want = 0, got = 0;
		int ok = sim_time_parse_s(v, strlen(v), &want) == 0 && want <= 1000000000LL * SIM_NS_PER_S;
		int r = submit_through_reader(v, &got);
		if ((r == 0) != ok || (ok && got != want)) {
			bad++;
			fprintf(stderr, "\ntime '%s': reader %d %lld, parser %d %lld\n", v, r, (long long)got, ok,
				(long long)want);
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
}

static CU_TestInfo native_tests[] = {
	{ "test_native_every_field", test_native_every_field },
	{ "test_native_cli_stats_hours_queues_compare", test_native_cli_stats_hours_queues_compare },
	{ "test_native_defaults", test_native_defaults },
	{ "test_native_sort_ties_by_row", test_native_sort_ties_by_row },
	{ "test_native_quoted_fields", test_native_quoted_fields },
	{ "test_native_malformed_located", test_native_malformed_located },
	{ "test_native_all_errors_in_a_row", test_native_all_errors_in_a_row },
	{ "test_native_error_limit", test_native_error_limit },
	{ "test_native_read_file", test_native_read_file },
	{ "test_native_read_not_regular", test_native_read_not_regular },
	{ "test_native_write_round_trip", test_native_write_round_trip },
	{ "test_native_prefs_shared_count", test_native_prefs_shared_count },
	{ "test_native_prefs_shared_round_trip", test_native_prefs_shared_round_trip },
	{ "test_native_bind_unknown_flavor", test_native_bind_unknown_flavor },
	{ "test_native_bind_unknown_resource", test_native_bind_unknown_resource },
	{ "test_native_bind_option_never_fits", test_native_bind_option_never_fits },
	{ "test_native_bind_judges_peak_nodes", test_native_bind_judges_peak_nodes },
	{ "test_native_cli_prefs", test_native_cli_prefs },
	{ "test_native_bundled_sample", test_native_bundled_sample },
	{ "test_native_cli_validate_stats", test_native_cli_validate_stats },
	{ "test_native_large_mapped_trace", test_native_large_mapped_trace },
	{ "test_native_split_same_trace", test_native_split_same_trace },
	{ "test_native_split_same_errors", test_native_split_same_errors },
	{ "test_native_times_as_the_parser", test_native_times_as_the_parser },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo native_suite = { "native", init_native, clean_native, NULL, NULL, native_tests };
