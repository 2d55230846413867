/* tests/test_flex.c: flex-start flavors (docs/capacity.md, "Flex-start") against
 * hand-computed timelines: all-or-nothing requests in their flavor's line, the start
 * at request + wait, the 7-day cut-off, Kueue's backoff (60, 120, 240 s) and the
 * end after the retries, the fall back to a later option, the longest wait, the
 * cost of provisioned node-hours, the draws, and bad configs. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../experiments/config.h"
#include "../sim/draws.h"
#include "../sim/metrics.h"
#include "testutil.h"

/* One run of variant 0 with its event log in *log_text (owned by the caller) and
 * its summary, cost fields completed as the runner does. */
static void frun(struct tu_crun *r, const char *config, const char *trace, char **log_text, struct sim_summary *sum)
{
	tu_crun_logged(r, config, trace, log_text);
	CU_ASSERT_EQUAL_FATAL(sim_metrics_summarize(r->t, r->c, sim_engine_now(r->e), sum), 0);
	sim_metrics_set_flex(sum, r->t, r->c, r->cfg->variants[0].flex, sim_engine_counters(r->e));
}

/* A flex flavor f of `nodes` nodes of 8 GPUs at 3600 a node-hour (1 a node-second),
 * then extra flavors, a fallback policy and the checkpoint costs. */
#define FX_CFG(nodes, flex, extra, fallback)                                                              \
	"{'name': 'x', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': " nodes   \
	", 'node': {'gpu': 8}, 'price_per_node_hour': 3600, 'flex': " flex "}" extra "]}, 'policies': "     \
	"{'fallback': '" fallback "'}, 'output': 'x.h5'}"

/* All or nothing, in the line. The flavor may have 6 nodes at once; requests are
 * served after exactly 100 s. b (0 s, 1000 s, 24 GPUs = 3 nodes) asks at 0, starts
 * at 100 and ends at 1100; c (0 s, 100 s, 4 GPUs = 1 node) asks at 0 (3 + 1 <= 6),
 * runs 100-200. a (10 s, 200 s, 32 GPUs = 4 nodes) finds 4 nodes asked for and
 * 4 + 4 > 6: it waits, although two nodes of the limit are free, and is not
 * started on them; at 200 (c gone) 3 + 4 > 6 still; at 1100 it asks, and at 1200
 * its 4 nodes arrive together: a runs 1200-1400 on 4 nodes. Its wait is 1190 s.
 * Node-seconds: b 3 x 1000, c 1 x 100, a 4 x 200 = 3900 at 1 a node-second; the
 * jobs' cost 3000 + 100 x 4/8 + 800 = 3850; cost 3900 (c's unused half node is
 * billed too); nothing is on demand. */
static void test_all_or_nothing_hand(void)
{
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	frun(&r, FX_CFG("6", "{'provisioning': {'mean_s': 100}}", "", "strict"),
	     "id,submit_s,duration_s,request\nb,0,1000,f:gpu=24\nc,0,100,f:gpu=4\na,10,200,f:gpu=32\n", &log, &s);
	const struct sim_job *a = tu_crun_job(&r, "a"), *b = tu_crun_job(&r, "b"), *c = tu_crun_job(&r, "c");
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(b->start_ns), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(b->end_ns), 1100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(c->start_ns), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(c->end_ns), 200, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(a->start_ns), 1200, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(a->end_ns), 1400, 1e-9);
	CU_ASSERT_EQUAL(a->state, SIM_JOB_COMPLETED);
	tu_expect_line(log, "[1100.000] job=a event=flex_request flavor=f nodes=4 attempt=1 answer_s=1200.000 served\n");
	tu_expect_line(log, "[0.000] job=b event=flex_request flavor=f nodes=3 attempt=1 answer_s=100.000 served\n");
	CU_ASSERT_PTR_NULL(strstr(log, "[10.000] job=a event=flex_request")); /* not asked on 3 free nodes */
	CU_ASSERT_PTR_NULL(strstr(log, "job=a event=start flavor=f node=")); /* never one node */
	const struct sim_engine_counters *k = sim_engine_counters(r.e);
	CU_ASSERT_EQUAL(k->flex_requests, 3);
	CU_ASSERT_EQUAL(k->flex_failures, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_flex_requests], 3, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_flex_node_h], 3900.0 / 3600, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost_flex], 3900, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost], 3900, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost_on_demand], 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_max_wait_s], 1190, 1e-9);
	free(log);
	tu_crun_free(&r);
}

/* The start is the request plus the drawn wait: a job submitted at 37 s with a
 * fixed wait of 250 s starts at 287, on its 2 nodes (16 GPUs), which drain (no other
 * job may use them) and go when it ends: d (300 s, 8 GPUs), asked at 300, gets a
 * node of its own at 550, not the free part of another. */
static void test_start_is_request_plus_wait(void)
{
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	frun(&r, FX_CFG("4", "{'provisioning': {'distribution': 'fixed', 'mean_s': 250}}", "", "strict"),
	     "id,submit_s,duration_s,request\nj,37,1000,f:gpu=16\nd,300,10,f:gpu=4\n", &log, &s);
	const struct sim_job *j = tu_crun_job(&r, "j"), *d = tu_crun_job(&r, "d");
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->start_ns), 287, 1e-9);
	tu_expect_line(log, "[287.000] job=j event=start flavor=f nodes=0,1 ");
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(d->start_ns), 550, 1e-9);
	tu_expect_line(log, "[550.000] job=d event=start flavor=f node=2 ");
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_flex_node_h], (2 * 1000.0 + 10) / 3600, 1e-12);
	free(log);
	tu_crun_free(&r);
}

/* The 7-day cut-off (the default max_run_s, 604800 s). j (700000 s of work, 8 GPUs,
 * a checkpoint every 100000 s, no checkpoint cost) is served at once (wait 0), runs
 * from 0 and is stopped at 604800 when its node is taken back: it saved 6 x 100000
 * = 600000 s and loses 4800 s x 8 GPUs. It is queued again, asks again at once and
 * runs its last 100000 s from 604800 to 704800. Node-seconds 704800. */
static void test_seven_day_cutoff(void)
{
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	frun(&r, FX_CFG("1", "{'provisioning': {'mean_s': 0}}", "", "strict"),
	     "id,submit_s,duration_s,request,checkpoint_s\nj,0,700000,f:gpu=8,100000\n", &log, &s);
	const struct sim_job *j = tu_crun_job(&r, "j");
	tu_expect_line(log, "[604800.000] job=j event=flex_cutoff\n");
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->last_start_ns), 604800, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->end_ns), 704800, 1e-9);
	CU_ASSERT_EQUAL(j->state, SIM_JOB_COMPLETED);
	CU_ASSERT_EQUAL(j->interruptions, 1);
	CU_ASSERT_DOUBLE_EQUAL(j->lost_gpu_s, 4800.0 * 8, 1e-6);
	const struct sim_engine_counters *k = sim_engine_counters(r.e);
	CU_ASSERT_EQUAL(k->flex_cutoffs, 1);
	CU_ASSERT_EQUAL(k->flex_requests, 2);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_flex_node_h], 704800.0 / 3600, 1e-9);
	free(log);
	tu_crun_free(&r);
}

/* A configured maximum run: 1000 s. j (900 s) is asked at 0, up at 10, and ends at
 * 910 inside the limit. k (1500 s, a checkpoint every 400 s) runs from 10, is cut
 * at 1010 with 800 s saved, asks again, is up at 1020 and runs its last 700 s to
 * 1720. */
static void test_max_run_configured(void)
{
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	frun(&r, FX_CFG("2", "{'provisioning': {'mean_s': 10}, 'max_run_s': 1000}", "", "strict"),
	     "id,submit_s,duration_s,request,checkpoint_s\nj,0,900,f:gpu=8,\nk,0,1500,f:gpu=8,400\n", &log, &s);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(tu_crun_job(&r, "j")->end_ns), 910, 1e-9);
	tu_expect_line(log, "[1010.000] job=k event=flex_cutoff\n");
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(tu_crun_job(&r, "k")->end_ns), 1720, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tu_crun_job(&r, "k")->lost_gpu_s, 200.0 * 8, 1e-6);
	free(log);
	tu_crun_free(&r);
}

/* Kueue's retries: every request fails (probability 1) 10 s after it is made.
 * Asked at 0, fails at 10, retried after 60 s: asked at 70, fails at 80; after
 * 120 s: 200, fails 210; after 240 s: 450, fails 460: 3 retries used
 * (backoffLimitCount 3), the job ends failed at 460. Never started: no cost. */
static void test_backoff_and_give_up(void)
{
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	frun(&r, FX_CFG("1", "{'provisioning': {'mean_s': 10}, 'failure_probability': 1}", "", "strict"),
	     "id,submit_s,duration_s,request\nj,0,100,f:gpu=8\n", &log, &s);
	const struct sim_job *j = tu_crun_job(&r, "j");
	tu_expect_line(log, "[0.000] job=j event=flex_request flavor=f nodes=1 attempt=1 answer_s=10.000 fails\n");
	tu_expect_line(log, "[10.000] job=j event=flex_failed retry_s=70.000\n");
	tu_expect_line(log, "[70.000] job=j event=flex_request flavor=f nodes=1 attempt=2 answer_s=80.000 fails\n");
	tu_expect_line(log, "[80.000] job=j event=flex_failed retry_s=200.000\n");
	tu_expect_line(log, "[200.000] job=j event=flex_request flavor=f nodes=1 attempt=3 answer_s=210.000 fails\n");
	tu_expect_line(log, "[210.000] job=j event=flex_failed retry_s=450.000\n");
	tu_expect_line(log, "[450.000] job=j event=flex_request flavor=f nodes=1 attempt=4 answer_s=460.000 fails\n");
	tu_expect_line(log, "[460.000] job=j event=flex_failed retry_s=none\n");
	CU_ASSERT_EQUAL(j->state, SIM_JOB_FAILED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->end_ns), 460, 1e-9);
	CU_ASSERT_EQUAL(j->start_ns, SIM_TIME_NONE);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_flex_requests], 4, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_flex_requests_failed], 4, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_flex_gave_up], 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_failed], 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_pending_timeouts], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost], 0, 0);
	free(log);
	tu_crun_free(&r);
}

/* The backoff is capped: base 600, max 1000, 2 retries: asked at 0 (fails at 5),
 * 605 (fails 610), then min(1200, 1000): 1610, fails at 1615 and ends. */
static void test_backoff_cap(void)
{
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	frun(&r, FX_CFG("1", "{'provisioning': {'mean_s': 5}, 'failure_probability': 1, 'retry': "
			     "{'backoff_base_s': 600, 'backoff_max_s': 1000, 'limit': 2}}", "", "strict"),
	     "id,submit_s,duration_s,request\nj,0,100,f:gpu=8\n", &log, &s);
	tu_expect_line(log, "[610.000] job=j event=flex_failed retry_s=1610.000\n");
	tu_expect_line(log, "[1615.000] job=j event=flex_failed retry_s=none\n");
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(tu_crun_job(&r, "j")->end_ns), 1615, 1e-9);
	struct sim_flex_flavor ff = { .backoff_base_ns = 60 * SIM_NS_PER_S, .backoff_max_ns = 1800 * SIM_NS_PER_S };
	CU_ASSERT_EQUAL(sim_flex_backoff_ns(&ff, 1), 60 * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(sim_flex_backoff_ns(&ff, 2), 120 * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(sim_flex_backoff_ns(&ff, 3), 240 * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(sim_flex_backoff_ns(&ff, 5), 960 * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(sim_flex_backoff_ns(&ff, 6), 1800 * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(sim_flex_backoff_ns(&ff, 200), 1800 * SIM_NS_PER_S);
	free(log);
	tu_crun_free(&r);
}

/* The longest wait: a request not served within max_provisioning_s fails then.
 * Wait 1000, limit 300, no retry: j fails at 300. Under first_fit with an on-demand
 * second option, it falls back instead and starts on od at 300 (od was free all
 * along: while its request is on, a job is not placed elsewhere). */
static void test_max_provisioning_and_fallback(void)
{
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	frun(&r, FX_CFG("1", "{'provisioning': {'mean_s': 1000}, 'max_provisioning_s': 300, 'retry': {'limit': 0}}",
			"", "strict"),
	     "id,submit_s,duration_s,request\nj,0,100,f:gpu=8\n", &log, &s);
	CU_ASSERT_EQUAL(tu_crun_job(&r, "j")->state, SIM_JOB_FAILED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(tu_crun_job(&r, "j")->end_ns), 300, 1e-9);
	free(log);
	tu_crun_free(&r);
	frun(&r, FX_CFG("1", "{'provisioning': {'mean_s': 1000}, 'max_provisioning_s': 300, 'retry': {'limit': 0}}",
			", {'name': 'od', 'nodes': 1, 'node': {'gpu': 8}, 'price_per_node_hour': 7200}", "first_fit"),
	     "id,submit_s,duration_s,prefs\nj,0,100,f:gpu=8;od:gpu=8\n", &log, &s);
	const struct sim_job *j = tu_crun_job(&r, "j");
	CU_ASSERT_EQUAL(j->state, SIM_JOB_COMPLETED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->start_ns), 300, 1e-9);
	CU_ASSERT_EQUAL(j->alloc.flavor, 1);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost_on_demand], 200, 1e-9); /* 2 a node-second x 100 s */
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost_flex], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_flex_gave_up], 1, 0);
	free(log);
	tu_crun_free(&r);
}

/* A capacity trace in place of the law. Offers (sorted): 100 s for 1 node, 300 s for
 * 4, 500 s for 2. a (0 s, 1 node) takes the first: up at 100; b (0 s, 2 nodes) the
 * first with 2 or more: 300; c (10 s, 1 node) the one left: 500; d (20 s) finds
 * none: never answered, unfinished. With max_provisioning_s 250: b's offer is 300 s
 * away, so b fails at 250, asks again at 310 and takes 500 (190 s away); c fails at
 * 260 (300 is 290 s away), at 570 (none left), at 940 and at 1430, and ends failed. */
static void test_capacity_trace(void)
{
	char cfg[1024];
	const char *offers = tu_write_file("flex_offers.csv", "time_s,nodes\n500,2\n100,1\n300,4\n");
	const char *trace = "id,submit_s,duration_s,request\na,0,50,f:gpu=8\nb,0,50,f:gpu=16\nc,10,50,f:gpu=8\n"
			    "d,20,50,f:gpu=8\n";
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	snprintf(cfg, sizeof cfg, FX_CFG("6", "{'capacity_trace': '%s'}", "", "strict"), offers);
	frun(&r, cfg, trace, &log, &s);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(tu_crun_job(&r, "a")->start_ns), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(tu_crun_job(&r, "b")->start_ns), 300, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(tu_crun_job(&r, "c")->start_ns), 500, 1e-9);
	CU_ASSERT_EQUAL(tu_crun_job(&r, "d")->state, SIM_JOB_UNFINISHED);
	tu_expect_line(log, "[20.000] job=d event=flex_request flavor=f nodes=1 attempt=1 answer_s=none\n");
	free(log);
	tu_crun_free(&r);
	snprintf(cfg, sizeof cfg, FX_CFG("6", "{'capacity_trace': '%s', 'max_provisioning_s': 250}", "", "strict"),
		 offers);
	frun(&r, cfg, trace, &log, &s);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(tu_crun_job(&r, "a")->start_ns), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(tu_crun_job(&r, "b")->start_ns), 500, 1e-9);
	tu_expect_line(log, "[310.000] job=b event=flex_request flavor=f nodes=2 attempt=2 answer_s=500.000 served\n");
	tu_expect_line(log, "[940.000] job=c event=flex_failed retry_s=1180.000\n");
	CU_ASSERT_EQUAL(tu_crun_job(&r, "c")->state, SIM_JOB_FAILED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(tu_crun_job(&r, "c")->end_ns), 1430, 1e-9);
	free(log);
	tu_crun_free(&r);
}

/* The draws: the same key gives the same outcome; exponential waits with mean 100
 * over 20000 keys average 100 within 3%; a failure probability of 0.25 fails about
 * a quarter; the wait drawn for (flavor, job, k) does not depend on the failure law
 * (its own source). */
static void test_draws(void)
{
	struct sim_flex *x = sim_flex_create(1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	x->fl[0] = (struct sim_flex_flavor){ .on = 1, .law = SIM_FLEX_EXPONENTIAL, .wait_s = 100 };
	struct sim_draws d;
	CU_ASSERT_EQUAL_FATAL(sim_draws_init(&d, 7), 0);
	double sum = 0;
	sim_time_t w[100];
	for (uint32_t j = 0; j < 20000; j++) {
		struct sim_flex_outcome o = sim_flex_draw(x, &d, 0, j, 0);
		CU_ASSERT_TRUE(o.served);
		sum += sim_time_to_s(o.after_ns);
		if (j < 100)
			w[j] = o.after_ns;
	}
	CU_ASSERT_DOUBLE_EQUAL(sum / 20000, 100, 3);
	x->fl[0].fail_p = 0.25;
	size_t failed = 0;
	for (uint32_t j = 0; j < 20000; j++) {
		struct sim_flex_outcome o = sim_flex_draw(x, &d, 0, j, 0);
		failed += !o.served;
		if (j < 100)
			CU_ASSERT_EQUAL(o.after_ns, w[j]);
	}
	CU_ASSERT_TRUE(failed > 4700 && failed < 5300);
	CU_ASSERT_NOT_EQUAL(sim_flex_draw(x, &d, 0, 3, 1).after_ns, sim_flex_draw(x, &d, 0, 3, 2).after_ns);
	sim_draws_fini(&d);
	sim_flex_destroy(x);
}

/* Per-job and per-queue cost, through the CLI and `gpusched export`. f is flex (8
 * GPUs a node, 1 a node-second, requests served in 10 s), g on demand (8 GPUs, 2 a
 * node-second). a (q1, f, 4 GPUs, 100 s) runs 10-110 on a node of its own: its
 * cost is its GPU share, 4/8 x 1 x 100 = 50, type flex; b (q1, g, 8 GPUs, 50 s)
 * costs 2 x 50 = 100, on_demand; c (q2, g, 2 GPUs, 200 s, after b) 2/8 x 2 x 200 =
 * 100. Queues: q1 150 = 100 on demand + 50 flex, q2 100 on demand. The summary's
 * cost adds a's unused half node: cost_flex 100 (1 node x 100 s), cost 300. */
static void test_job_and_queue_cost(void)
{
	char cfg[1024], args[1400], *out = NULL;
	const char *tr = tu_write_file("flex_cost.csv", "id,submit_s,duration_s,request,queue\n"
							"a,0,100,f:gpu=4,q1\nb,0,50,g:gpu=8,q1\nc,0,200,g:gpu=2,q2\n");
	snprintf(cfg, sizeof cfg,
		 "{\"name\": \"c\", \"trace\": {\"path\": \"%s\"}, \"cluster\": {\"flavors\": [{\"name\": \"f\", "
		 "\"nodes\": 2, \"node\": {\"gpu\": 8}, \"price_per_node_hour\": 3600, \"flex\": {\"provisioning\": "
		 "{\"mean_s\": 10}}}, {\"name\": \"g\", \"nodes\": 1, \"node\": {\"gpu\": 8}, "
		 "\"price_per_node_hour\": 7200}]}, \"output\": \"%s/flex_cost.h5\"}",
		 tr, tu_tmpdir());
	snprintf(args, sizeof args, "run %s -q", tu_write_file("flex_cost.json", cfg));
	CU_ASSERT_EQUAL_FATAL(tu_run_gpusched(args, &out), 0);
	free(out);
	snprintf(args, sizeof args, "export %s/flex_cost.h5 --table queues", tu_tmpdir());
	CU_ASSERT_EQUAL_FATAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ",cost,cost_on_demand,cost_spot,cost_plan,cost_autoscaled,cost_flex\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ",150,100,0,0,0,50\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ",100,100,0,0,0,0\n"));
	free(out);
	snprintf(args, sizeof args, "export %s/flex_cost.h5 --table jobs", tu_tmpdir());
	CU_ASSERT_EQUAL_FATAL(tu_run_gpusched(args, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ",cost_type,cost_type_label\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ",a,q1,,f,0,4,4,0,10,110,10,110,100,"));
	CU_ASSERT(strstr(out, ",50,1,") != NULL && strstr(out, ",COMPLETED,COMPLETED,4,flex\n") != NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ",COMPLETED,COMPLETED,0,on_demand\n"));
	free(out);
	snprintf(args, sizeof args, "export %s/flex_cost.h5 --table summary", tu_tmpdir());
	CU_ASSERT_EQUAL_FATAL(tu_run_gpusched(args, &out), 0);
	/* flex_requests .. cost_flex: 1 request, 100 node-seconds, 100; then no restarts
	 * in place or full, no replay row ignored */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ",1,0,0,0,0.027777777777777776,100,0,0,0\n"));
	free(out);
}

/* Keyed draws in a run: j's exponential wait on flavor f comes from (seed, f, j, 0)
 * alone: x's requests on flavor g, served at once or failing four times, move
 * nothing of j's, and j starts at its submit plus exactly that draw. */
static void test_draws_keyed_in_run(void)
{
	const char *trace = "id,submit_s,duration_s,request\nj,5,10,f:gpu=8\nx,0,10,g:gpu=8\n";
	double start[2];
	for (int k = 0; k < 2; k++) {
		char cfg[1024];
		snprintf(cfg, sizeof cfg,
			 "{'name': 'x', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 1, "
			 "'node': {'gpu': 8}, 'flex': {'provisioning': {'distribution': 'exponential', 'mean_s': 100}}}, "
			 "{'name': 'g', 'nodes': 1, 'node': {'gpu': 8}, 'flex': {'provisioning': {'mean_s': 7}, "
			 "'failure_probability': %d}}]}, 'output': 'x.h5'}",
			 k);
		struct tu_crun r;
		tu_crun_with(&r, cfg, trace, &(struct tu_crun_opts){ .seed = 1 });
		const struct sim_job *j = tu_crun_job(&r, "j");
		start[k] = sim_time_to_s(j->start_ns);
		CU_ASSERT_EQUAL(sim_engine_counters(r.e)->flex_requests, k ? 5u : 2u);
		struct sim_draws d;
		CU_ASSERT_EQUAL_FATAL(sim_draws_init(&d, 1), 0);
		struct sim_flex_outcome o = sim_flex_draw(r.cfg->variants[0].flex, &d, 0, j->idx, 0);
		CU_ASSERT_DOUBLE_EQUAL(start[k], 5 + sim_time_to_s(o.after_ns), 1e-9);
		sim_draws_fini(&d);
		tu_crun_free(&r);
	}
	CU_ASSERT_DOUBLE_EQUAL(start[0], start[1], 0);
	CU_ASSERT_TRUE(start[0] > 5);
}

#define BAD_FX(flex, extra)                                                                             \
	"{'name': 'b', 'trace': {'path': 't.csv'}, 'cluster': {'flavors': [{'name': 'a', 'nodes': 2, "     \
	"'node': {'gpu': 8}, 'flex': " flex extra "}]}, 'output': 'x.h5'}"

static void expect_config_error(const char *config, const char *want)
{
	tu_expect_config_error("bad_flex.json", config, want);
}

static void test_bad_flex_configs(void)
{
	expect_config_error(BAD_FX("{}", ""),
			    "$.cluster.flavors[0].flex.provisioning: expected object {\"distribution\", \"mean_s\"} "
			    "(required without capacity_trace), got nothing");
	expect_config_error(BAD_FX("{'provisioning': {'mean_s': -5}}", ""),
			    "$.cluster.flavors[0].flex.provisioning.mean_s: expected number >= 0, got -5");
	expect_config_error(BAD_FX("{'provisioning': {'mean_s': 5}, 'failure_probability': 1.5}", ""),
			    "$.cluster.flavors[0].flex.failure_probability: expected number in [0, 1], got 1.5");
	expect_config_error(BAD_FX("{'provisioning': {'mean_s': 5}, 'max_run_s': 0}", ""),
			    "$.cluster.flavors[0].flex.max_run_s: expected seconds > 0, got 0");
	expect_config_error(BAD_FX("{'provisioning': {'mean_s': 5}, 'retry': {'backoff_base_s': 600, "
				   "'backoff_max_s': 60}}", ""),
			    "$.cluster.flavors[0].flex.retry.backoff_max_s: expected seconds >= backoff_base_s (600), "
			    "got 60");
	expect_config_error(BAD_FX("{'provisioning': {'mean_s': 5}, 'retry': {'limit': 1.5}}", ""),
			    "$.cluster.flavors[0].flex.retry.limit: expected integer >= 0, got 1.5");
	expect_config_error(BAD_FX("{'provisioning': {'mean_s': 5}, 'retry': {'tries': 2}}", ""),
			    "$.cluster.flavors[0].flex.retry.tries");
	expect_config_error(BAD_FX("{'provisioning': {'mean_s': 5}}", ", 'price_per_node_hour': 1, 'spot': "
				   "{'times_s': [10]}"),
			    "$.cluster.flavors[0].flex: expected a flavor without stockout, reservations, autoscale or "
			    "spot (its requests set its nodes), got spot");
	expect_config_error(BAD_FX("[]", ""), "$.cluster.flavors[0].flex: expected object");
	expect_config_error(BAD_FX("{'provisioning': {'mean_s': 5}, 'capacity_trace': 'o.csv'}", ""),
			    "$.cluster.flavors[0].flex.provisioning: expected provisioning or capacity_trace, not both");
	const char *bad = tu_write_file("flex_bad_offers.csv", "time_s,nodes\n10,2\n-5,1\n20,0\n");
	char cfg[512];
	snprintf(cfg, sizeof cfg, BAD_FX("{'capacity_trace': '%s'}", ""), bad);
	expect_config_error(cfg, "$.cluster.flavors[0].flex.capacity_trace: ");
	expect_config_error(cfg, "flex_bad_offers.csv:3: column time_s: expected 2 fields and seconds >= 0, found '-5'");
	expect_config_error(cfg, "flex_bad_offers.csv:4: column nodes: expected an integer >= 1, found '0'");
	const char *hdr = tu_write_file("flex_bad_header.csv", "t,nodes\n10,2\n");
	snprintf(cfg, sizeof cfg, BAD_FX("{'capacity_trace': '%s'}", ""), hdr);
	expect_config_error(cfg, "flex_bad_header.csv:1: expected the header time_s,nodes");
}

/* Through the CLI: exit 2, the located message, no output file. */
static void test_bad_flex_exit_2(void)
{
	char cfg[1024], args[600], *out = NULL;
	const char *tr = tu_write_file("flex_t.csv", "id,submit_s,duration_s,request\nj,0,10,a:gpu=1\n");
	snprintf(cfg, sizeof cfg,
		 "{\"name\": \"c\", \"trace\": {\"path\": \"%s\"}, \"cluster\": {\"flavors\": [{\"name\": \"a\", "
		 "\"nodes\": 1, \"node\": {\"gpu\": 8}, \"flex\": {\"provisioning\": {\"mean_s\": 1}, "
		 "\"failure_probability\": -1}}]}, \"output\": \"%s/flex_bad.h5\"}",
		 tr, tu_tmpdir());
	snprintf(args, sizeof args, "run %s", tu_write_file("flex_bad.json", cfg));
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT(out && strstr(out, "flex_bad.json: $.cluster.flavors[0].flex.failure_probability: "
				     "expected number >= 0, got -1") != NULL);
	char h5[600];
	snprintf(h5, sizeof h5, "%s/flex_bad.h5", tu_tmpdir());
	CU_ASSERT_FALSE(tu_exists(h5));
	free(out);
}

static CU_TestInfo flex_tests[] = {
	{ "test_all_or_nothing_hand", test_all_or_nothing_hand },
	{ "test_start_is_request_plus_wait", test_start_is_request_plus_wait },
	{ "test_seven_day_cutoff", test_seven_day_cutoff },
	{ "test_max_run_configured", test_max_run_configured },
	{ "test_backoff_and_give_up", test_backoff_and_give_up },
	{ "test_backoff_cap", test_backoff_cap },
	{ "test_max_provisioning_and_fallback", test_max_provisioning_and_fallback },
	{ "test_capacity_trace", test_capacity_trace },
	{ "test_draws", test_draws },
	{ "test_draws_keyed_in_run", test_draws_keyed_in_run },
	{ "test_job_and_queue_cost", test_job_and_queue_cost },
	{ "test_bad_flex_configs", test_bad_flex_configs },
	{ "test_bad_flex_exit_2", test_bad_flex_exit_2 },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo flex_suite = { "flex", NULL, NULL, NULL, NULL, flex_tests };
