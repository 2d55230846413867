/* tests/fuzz/fuzz_scenario.c: scenario files (policies/scenario.c), as `gpusched
 * explain [--json]` uses them: scn_parse, then for a valid scenario scn_decide (one
 * kq_cycle or kq_incoming over the file's state) and scn_outcome_json, printed. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "policies/kq.h"
#include "policies/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct sim_diag d;
	struct scn *s = NULL;
	sim_diag_init(&d, 20);
	if (scn_parse("fuzz.json", text, size, &s, &d) == 0) {
		struct kq_decision dec;
		struct kq_assign inc;
		memset(&dec, 0, sizeof dec);
		memset(&inc, 0, sizeof inc);
		if (scn_decide(s, &dec, &inc) == 0) {
			cJSON *o = scn_outcome_json(s, &dec, &inc);
			char *js = o ? cJSON_PrintUnformatted(o) : NULL;
			free(js);
			cJSON_Delete(o);
		}
		kq_decision_free(&dec);
	}
	scn_destroy(s);
	sim_diag_fini(&d);
	free(text);
	return 0;
}
