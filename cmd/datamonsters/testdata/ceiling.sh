#!/bin/bash
# The raw-Postgres ceiling of an accepted submission (docs/performance.md):
# sets up ceiling.sql's tables in the database named by $1 (default bench),
# runs it with pgbench as the bench runs its clients (16, 10 s; PGHOST,
# PGUSER and CLIENTS and DURATION in seconds to change them) and prints its rate and the
# p50 and p99 of its transactions, read from pgbench's own log.
set -euo pipefail
db=${1:-bench}
here=$(cd "$(dirname "$0")" && pwd)
export PGHOST=${PGHOST:-127.0.0.1} PGUSER=${PGUSER:-postgres}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
psql -q "$db" -f "$here/ceiling_setup.sql" 2>/dev/null >/dev/null
cd "$logs"
pgbench -n -M prepared -c "${CLIENTS:-16}" -j 2 -T "${DURATION:-10}" -l -f "$here/ceiling.sql" "$db" 2>/dev/null |
	grep -E '^tps' | sed 's/ (without initial connection time)//'
# Each log line: client, transaction, latency in µs, ...
cat pgbench_log.* | awk '{print $3}' | sort -n | awk '
	{ v[NR] = $1 }
	END {
		if (NR == 0) { print "no transactions logged"; exit 1 }
		printf "transactions: %d; p50 %.2fms, p99 %.2fms\n", NR, v[int((NR - 1) * 0.50) + 1] / 1000, v[int((NR - 1) * 0.99) + 1] / 1000
	}'
