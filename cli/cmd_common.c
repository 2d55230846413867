/* cli/cmd_common.c: what every verb shares. */
#include <stdio.h>

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
