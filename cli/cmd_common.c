/* cli/cmd_common.c: what every verb shares. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../sim/outpath.h"
#include "../sim/sim.h"
#include "cmd.h"

/* Prints a refusal from diag; maps rc. */
static int report_check(int rc, struct sim_diag *diag)
{
	if (rc)
		sim_diag_print(diag, stderr);
	sim_diag_fini(diag);
	return rc ? cmd_exit_code(rc) : GPUSCHED_EXIT_OK;
}

int cmd_check_output(const char *out, const char *what_in, const char *in)
{
	struct sim_diag diag;
	sim_diag_init(&diag, 4);
	struct sim_out_input input = { .what = what_in, .path = in };
	return report_check(sim_out_check(out, &input, 1, &diag), &diag);
}

int cmd_check_output_dir(const char *dir, const char *what_in, const char *in)
{
	struct sim_diag diag;
	sim_diag_init(&diag, 4);
	struct sim_out_input input = { .what = what_in, .path = in };
	return report_check(sim_out_check_dir(dir, &input, 1, &diag), &diag);
}

int cmd_exit_code(int err)
{
	switch (-err) {
	case 0:
		return GPUSCHED_EXIT_OK;
	case SIM_EPARSE:
	case SIM_ENOENT:
	case SIM_EINVAL:
	case SIM_ERANGE:
		return GPUSCHED_EXIT_BADINPUT;
	default:
		return GPUSCHED_EXIT_RUNTIME;
	}
}

int cmd_usage_error(const char *verb, const char *usage, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "gpusched %s: ", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	const char *end = strstr(usage, "\n\n");
	size_t n = end ? (size_t)(end - usage) + 1 : strlen(usage);
	fprintf(stderr, "\n%.*sTry 'gpusched %s --help' for the full text.\n", (int)n, usage, verb);
	return GPUSCHED_EXIT_BADINPUT;
}

int cmd_getopt_error(const char *verb, const char *usage, int c, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	if (c == ':') {
		if (optopt && strncmp(arg, "--", 2) != 0)
			return cmd_usage_error(verb, usage, "option '-%c' needs a value", optopt);
		return cmd_usage_error(verb, usage, "option '%s' needs a value", arg);
	}
	if (optopt && strncmp(arg, "--", 2) != 0)
		return cmd_usage_error(verb, usage, "unknown option '-%c'", optopt);
	return cmd_usage_error(verb, usage, "unknown option '%s'", arg);
}

int cmd_stdout_failed(void)
{
	int flush_failed = fflush(stdout) != 0;
	return flush_failed || ferror(stdout);
}
