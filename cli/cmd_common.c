/* cli/cmd_common.c: what every verb shares. */
#include "../sim/sim.h"
#include "cmd.h"

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
