/* cli/cmd_explain.c: gpusched explain SCENARIO.json [--json]: decides the one
 * scheduling cycle a scenario file states (policies/scenario.h) and prints it, as
 * docs/scenarios.md's JSON object or as sentences. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../policies/scenario.h"
#include "cmd.h"

static const char explain_usage[] =
	"usage: gpusched explain SCENARIO.json [--json]\n"
	"\n"
	"Decides one scheduling cycle of a scenario file (queues, cohorts, quotas, running\n"
	"and pending jobs) with the Kueue rules gpusched runs with, and says what happens:\n"
	"which jobs are admitted and on which flavors, which jobs are preempted, by whom and\n"
	"why, and why the others wait. The format is described in\n"
	"experiments/scenarios/README.md.\n"
	"\n"
	"  --json   one JSON object: {\"admitted\": [{\"id\", \"flavor\"}], \"preempting\": [...],\n"
	"           \"victims\": [{\"id\", \"reason\", \"preemptor\"}], \"deferred\": [...],\n"
	"           \"left_waiting\": [{\"id\", \"reason\"}]}; for a scenario with \"incoming\":\n"
	"           {\"id\", \"mode\": \"Fit\"|\"Preempt\"|\"NoFit\", \"flavor\", \"victims\"}\n"
	"\n"
	"exit codes: 0 ok, 1 runtime failure, 2 bad input (errors listed with their JSON path)\n";

/* "h100 (gpu, cpu), a100 (tpu)": the flavors of the requested resources. */
static void flavors_text(const struct kq_sched *kq, const struct kq_wl *wl, const int16_t *flavor, char *buf,
			 size_t n)
{
	size_t o = 0;
	int done[SIM_MAX_RES] = { 0 };

	buf[0] = 0;
	for (int r = 0; r < kq->n_res; r++) {
		if (done[r] || wl->req[r] <= 0 || flavor[r] < 0)
			continue;
		o += (size_t)snprintf(buf + o, o < n ? n - o : 0, "%s%s (", o ? ", " : "",
				      kq->flavor_names[flavor[r]]);
		for (int k = r, first = 1; k < kq->n_res; k++) {
			if (done[k] || wl->req[k] <= 0 || flavor[k] != flavor[r])
				continue;
			done[k] = 1;
			o += (size_t)snprintf(buf + o, o < n ? n - o : 0, "%s%s", first ? "" : ", ",
					      kq->res_names[k]);
			first = 0;
		}
		o += (size_t)snprintf(buf + o, o < n ? n - o : 0, ")");
	}
	if (!buf[0])
		snprintf(buf, n, "no flavor (it requests nothing)");
}

static const char *queue_of(const struct scn *s, const struct kq_wl *wl)
{
	return s->kq->nodes[wl->queue].name;
}

/* Why a victim was chosen, in words; pre names the preemptor when v does not (the
 * incoming form, which only asks: the verb is then "would preempt"). */
static void print_victim(const struct scn *s, const struct kq_victim *v, const struct kq_wl *pre, FILE *f)
{
	const struct kq_wl *p = v->by ? v->by : pre;
	const char *vq = queue_of(s, v->wl), *pq = p ? queue_of(s, p) : "?";
	const char *by = p ? p->name : "a pending job";

	fprintf(f, "%s %s %s (%s: ", by, s->incoming ? "would preempt" : "preempts", v->wl->name,
		kq_reason_name(v->reason));
	switch (v->reason) {
	case KQ_R_IN_QUEUE:
		fprintf(f, "both are in queue %s, whose within_queue policy lets %s preempt it)\n", vq, by);
		break;
	case KQ_R_RECLAIM:
		fprintf(f, "its queue %s borrows quota that queue %s reclaims)\n", vq, pq);
		break;
	case KQ_R_RECLAIM_WHILE_BORROWING:
		fprintf(f,
			"its queue %s borrows, and borrow_within_cohort lets queue %s preempt lower-priority "
			"jobs while borrowing itself)\n",
			vq, pq);
		break;
	case KQ_R_FAIR_SHARING:
		fprintf(f, "its queue %s holds a larger share of the cohort than queue %s would with %s)\n",
			vq, pq, by);
		break;
	default:
		fprintf(f, "its queue %s is above its quota)\n", vq);
		break;
	}
}

static void print_cycle(const struct scn *s, const struct kq_decision *d, FILE *f)
{
	char fl[256];

	for (size_t i = 0; i < d->admitted.n; i++) {
		const struct kq_assign *a = &d->admitted.v[i];
		flavors_text(s->kq, a->wl, a->flavor, fl, sizeof fl);
		fprintf(f, "admitted %s on %s\n", a->wl->name, fl);
	}
	for (size_t i = 0; i < d->preempting.n; i++) {
		const struct kq_assign *a = &d->preempting.v[i];
		flavors_text(s->kq, a->wl, a->flavor, fl, sizeof fl);
		fprintf(f, "%s preempts to run on %s, and waits for its victims to go\n", a->wl->name, fl);
	}
	for (size_t i = 0; i < d->victims.n; i++)
		print_victim(s, &d->victims.v[i], NULL, f);
	for (size_t i = 0; i < d->deferred.n; i++) {
		const struct kq_assign *a = &d->deferred.v[i];
		flavors_text(s->kq, a->wl, a->flavor, fl, sizeof fl);
		fprintf(f, "%s will fit on %s once this cycle's victims are gone (deferred)\n", a->wl->name,
			fl);
	}
	for (size_t i = 0; i < d->waiting.n; i++)
		fprintf(f, "%s left waiting: %s\n", d->waiting.v[i].wl->name,
			kq_wait_text(d->waiting.v[i].why));
	if (!d->admitted.n && !d->preempting.n && !d->victims.n && !d->deferred.n && !d->waiting.n)
		fprintf(f, "nothing to decide: no pending jobs\n");
}

static void print_incoming(const struct scn *s, const struct kq_decision *d, const struct kq_assign *a,
			   FILE *f)
{
	const struct kq_wl *wl = &s->jobs[s->n_running];
	char fl[256];

	flavors_text(s->kq, wl, a->flavor, fl, sizeof fl);
	if (a->mode == KQ_FIT)
		fprintf(f, "%s fits on %s without preemption\n", wl->name, fl);
	else if (a->mode == KQ_NOFIT)
		fprintf(f,
			"%s does not fit: no flavor of queue %s can hold its request, even with preemption\n",
			wl->name, queue_of(s, wl));
	else if (!d->victims.n)
		fprintf(f, "%s needs preemption on %s, but no set of preemption candidates frees enough\n",
			wl->name, fl);
	else
		fprintf(f, "%s would run on %s after preempting %zu job%s:\n", wl->name, fl, d->victims.n,
			d->victims.n == 1 ? "" : "s");
	for (size_t i = 0; a->mode != KQ_NOFIT && i < d->victims.n; i++)
		print_victim(s, &d->victims.v[i], wl, f);
}

static void print_text(const struct scn *s, const struct kq_decision *d, const struct kq_assign *inc, FILE *f)
{
	fprintf(f, "scenario %s at t=%.9g s: %zu running, %zu %s\n", s->id ? s->id : s->path,
		sim_time_to_s(s->now), s->n_running, s->n_pending, s->incoming ? "incoming" : "pending");
	if (s->incoming)
		print_incoming(s, d, inc, f);
	else
		print_cycle(s, d, f);
}

static int print_json(const struct scn *s, const struct kq_decision *d, const struct kq_assign *inc, FILE *f)
{
	cJSON *o = scn_outcome_json(s, d, inc);
	char *text = o ? cJSON_PrintUnformatted(o) : NULL;

	cJSON_Delete(o);
	if (!text)
		return -SIM_ENOMEM;
	fprintf(f, "%s\n", text);
	cJSON_free(text);
	return 0;
}

int cmd_explain(int argc, char **argv)
{
	const char *path = NULL;
	int json = 0;

	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'J' },
		{ NULL, 0, NULL, 0 },
	};
	optind = 0; /* glibc: a full restart of getopt's scan */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
		if (c == 'h') {
			fputs(explain_usage, stdout);
			return GPUSCHED_EXIT_OK;
		} else if (c == 'J') {
			json = 1;
		} else {
			return cmd_getopt_error("explain", explain_usage, c, argv);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (path)
			return cmd_usage_error("explain", explain_usage, "unexpected argument '%s'", argv[i]);
		path = argv[i];
	}
	if (!path)
		return cmd_usage_error("explain", explain_usage, "no scenario file given");

	struct sim_diag diag;
	struct kq_decision d;
	struct kq_assign inc;
	struct scn *s = NULL;

	sim_diag_init(&diag, 20);
	memset(&d, 0, sizeof d);
	memset(&inc, 0, sizeof inc);
	int rc = scn_load(path, &s, &diag);
	if (!rc)
		rc = scn_decide(s, &d, &inc);
	if (!rc && json)
		rc = print_json(s, &d, &inc, stdout);
	else if (!rc)
		print_text(s, &d, &inc, stdout);
	if (rc) {
		sim_diag_print(&diag, stderr);
		if (!diag.count)
			fprintf(stderr, "gpusched explain: %s\n", sim_strerror(rc));
	}
	kq_decision_free(&d);
	scn_destroy(s);
	sim_diag_fini(&diag);
	if (cmd_stdout_failed() && !rc) {
		perror("gpusched explain: stdout");
		return GPUSCHED_EXIT_RUNTIME;
	}
	return cmd_exit_code(rc);
}
