#!/bin/sh
# Regenerates experiments/imported: the imported traces (data/), the openb cluster object, the runs
# (../../results/imported/*.h5), the plots and the results table. Run from anywhere; needs a built
# gpusched (GPUSCHED=path, default ../../build/gpusched) and gnuplot for the plots.
set -eu
cd "$(dirname "$0")"
G=${GPUSCHED:-../../build/gpusched}
# The full public traces are not in the repository (traces/samples/README.md: layout, sources).
R=${RAW:-${GPUSCHED_RAW_TRACES:-}}
if [ -z "$R" ]; then
	echo "make.sh: set GPUSCHED_RAW_TRACES (or RAW) to the folder of the full public traces" >&2
	exit 2
fi
D=data
mkdir -p "$D" plots ../../results/imported

# Philly: the bundled traces/data/philly.csv is used; check that a fresh import equals it.
"$G" trace import --format philly "$R/philly/philly.csv" -o "$D/philly.tmp.csv"
cmp "$D/philly.tmp.csv" ../../traces/data/philly.csv
rm -f "$D/philly.tmp.csv"
"$G" trace import --format openb "$R/alibaba-openb-2023/openb_pod_list_gpuspec33.csv" -o "$D/openb_gpuspec33.csv"
"$G" trace import --format swf --skip-bad "$R/swf/NASA-iPSC-1993-3.1-cln.swf.gz" -o "$D/nasa_ipsc.csv"
"$G" trace import --format tiresias "$R/tiresias/60_job.csv" -o "$D/tiresias_60.csv"
"$G" trace import --format gavel "$R/gavel/msr-seed0/6214e9.trace" -o "$D/gavel_6214e9.csv"

# Clusters: openb.json inlines this object, philly.json the philly-vc one (352 x 8); check both.
"$G" cluster import --format openb "$R/alibaba-openb-2023/openb_node_list_gpu_node.csv" -o "$D/openb_cluster.json"
"$G" cluster import --format philly-vc "$R/philly/philly_vc.csv" -o "$D/philly_cluster.json"
python3 - <<'PY'
import json
for cfg, obj in (("openb.json", "data/openb_cluster.json"), ("philly.json", "data/philly_cluster.json")):
	assert json.load(open(cfg))["cluster"] == json.load(open(obj)), cfg + ": cluster differs from " + obj
PY
rm -f "$D/philly_cluster.json"

for n in philly openb swf tiresias gavel; do
	"$G" run "$n.json"
	"$G" plot "../../results/imported/$n.h5" -o "../../results/imported/plots-$n" -q
done
cp ../../results/imported/plots-gavel/wait_cdf.png plots/gavel_wait_cdf.png
cp ../../results/imported/plots-gavel/busy_gpus.png plots/gavel_busy_gpus.png
cp ../../results/imported/plots-swf/busy_gpus.png plots/swf_busy_gpus.png

# The README's table: mean/p95 wait (s), mean JCT (s), utilization (%) from gpusched report --json.
for n in philly openb swf tiresias gavel; do
	"$G" report "../../results/imported/$n.h5" --json | python3 -c "
import json, sys
for r in json.load(sys.stdin):
	print('| $n | %s | %.1f | %.1f | %.1f | %.2f |' % (r['policy'], r['mean_wait_s'], r['p95_wait_s'],
	      r['mean_jct_s'], 100 * r['utilization']))"
done
