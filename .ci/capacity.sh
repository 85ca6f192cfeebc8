#!/usr/bin/env bash
# make capacity: the game server's CPU against the floor for its datagrams plus the game's own
# compute, and per datagram against the batched raw-UDP floor's, measured in alternation on this
# host (docs/BENCHMARKS.md "Server capacity").
#
# For each game count (GAMES) and round (ROUNDS), in this order:
#   1. the real rtype-server on core SERVER_CORE with GOMAXPROCS=1, loaded by rtype-load on core
#      LOAD_CORE (4 lightweight clients per game through the lobby, INPUT every tick, stage 1);
#   2. the batched raw-UDP floor (rtype-load -floor-server batch: recvmmsg/sendmmsg and the
#      datagram header, nothing else) on the same core, loaded the same way and made to send
#      each client the datagram rate and size the server just sent (-down-rate, -down-size).
#   3. the game's own compute: BenchmarkInstanceTick/stage1-load (simulation and replication of a
#      four-player game over the game seconds a load run measures, with its clients' inputs, no
#      socket; net/server's test binary, built into OUT) on the same core with GOMAXPROCS=1, and
#      .../stage1-load-<games>games, the same with that many games stepped in turn (the caches).
# The headline, per game count: the whole server's CPU per four-player game-second against the
# floor's for the same datagrams plus the game's compute (its µs per tick × 60), i.e.
# server / (floor + compute): what the runtime around the game costs (issue 35's target 1.25×).
# Each run's figure is the server's CPU time (/proc/PID/stat) over the measured window divided by
# the datagrams it handled (sent up less those its kernel dropped, plus received down, as the
# load generator counted them: rtype-load's server_cpu_us_per_datagram). The summary gives, per
# game count, the mean of each over the rounds and their ratio: the host's speed moves both, the
# ratio is what the code costs above the datagrams themselves. Runs whose figures do not compare
# are marked (the server's socket dropped over 1 % of the datagrams, or the floor's load was more
# than 5 % off the server's): measure on an idle machine.
#
# Environment: BIN (binaries, default bin), GO (go), BENCHTIME (2s: the compute benchmark's), GAMES ("100 300"), ROUNDS (3), WINDOW (10s),
# WARMUP (3s), SERVER_CORE (0), LOAD_CORE (1), STAGE (stage1), PORT (44400: the lobby's TCP and
# the games' UDP port; PORT+1 the server's admin, PORT+2 the floor), OUT (a new directory under
# /tmp: the JSON lines, logs and profiles), PROFILE=1 (a CPU profile of each server run in OUT),
# COMPARE (another rtype-server binary, e.g. an older commit's: each round runs it too, after
# BIN's and before the floor, and the summary gives its figures beside), NICE (-10: the niceness
# of the server, the floor and the load generator, so that other processes on a shared machine
# take their cores less often; needs root, else they run at the usual niceness), RT (a SCHED_FIFO
# priority, e.g. 10, instead of NICE: on a machine others keep busy, the measured processes then
# run whenever they are ready and the figures compare; the kernel keeps 5 % of each core for the
# others; needs root and chrt).
set -euo pipefail
BIN=${BIN:-bin}
GAMES=${GAMES:-"100 300"}
ROUNDS=${ROUNDS:-3}
WINDOW=${WINDOW:-10s}
WARMUP=${WARMUP:-3s}
SERVER_CORE=${SERVER_CORE:-0}
LOAD_CORE=${LOAD_CORE:-1}
STAGE=${STAGE:-stage1}
PORT=${PORT:-44400}
NICE=${NICE:--10}
RT=${RT:-}
pin() { # pin CORE CMD...: exec CMD on CORE at niceness NICE (when allowed), or real-time RT, keeping the PID
	local core=$1
	shift
	if [ -n "$RT" ]; then
		exec chrt -f "$RT" taskset -c "$core" "$@"
	fi
	if nice -n "$NICE" true 2>/dev/null; then
		exec taskset -c "$core" nice -n "$NICE" "$@"
	fi
	exec taskset -c "$core" "$@"
}
ADMIN=127.0.0.1:$((PORT + 1))
FLOOR=127.0.0.1:$((PORT + 2))
OUT=${OUT:-$(mktemp -d /tmp/rtype-capacity.XXXXXX)}
mkdir -p "$OUT"
GO=${GO:-go}
BENCHTIME=${BENCHTIME:-2s}
SRV=$BIN/rtype-server
LOAD=$BIN/rtype-load
servers=("$SRV")
labels=(server)
if [ -n "${COMPARE:-}" ]; then servers+=("$COMPARE"); labels+=(compare); fi
for b in "${servers[@]}" "$LOAD"; do
	[ -x "$b" ] || { echo "capacity: $b missing (make server load)" >&2; exit 2; }
done
command -v taskset >/dev/null || { echo "capacity: taskset missing (util-linux)" >&2; exit 2; }
if [ "$(nproc)" -lt 2 ]; then echo "capacity: needs 2 cores (server and load generator pinned apart)" >&2; exit 2; fi

"$GO" test -c -o "$OUT/server.test" ./net/server || { echo "capacity: cannot build net/server's benchmark" >&2; exit 2; }

pid=""
cleanup() { if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi; }
trap cleanup EXIT INT TERM

# field NAME JSON: a number of the one-line JSON report (0 when absent).
field() { sed -n "s/.*\"$1\":\([-0-9.e+]*\).*/\1/p" <<<"$2" | grep . || echo 0; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
# wait_tcp ADDR: until something listens on ADDR (10 s).
wait_tcp() {
	for _ in $(seq 100); do
		if (exec 3<>"/dev/tcp/${1%:*}/${1##*:}") 2>/dev/null; then return 0; fi
		sleep 0.1
	done
	echo "capacity: nothing listens on $1" >&2
	return 1
}
# wait_log FILE TEXT: until FILE holds TEXT (10 s).
wait_log() {
	for _ in $(seq 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
	echo "capacity: no \"$2\" in $1" >&2
	return 1
}

loadflags=(-duration "$WINDOW" -warmup "$WARMUP" -source 127.0.0.2 -addrs 8)
echo "capacity: $(uname -srm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "capacity: games {$GAMES}, $ROUNDS rounds, ${WINDOW} windows; server on core $SERVER_CORE (GOMAXPROCS=1), load on core $LOAD_CORE, $(if [ -n "$RT" ]; then echo "real-time priority $RT"; else echo "niceness $(nice -n "$NICE" nice 2>/dev/null || nice)"; fi); results in $OUT"
echo "capacity: $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(loadavg)"
printf '%-6s %-5s %-7s %10s %10s %9s %9s %8s %8s %s\n' games round run "up dg/s" "down dg/s" "cpu s" "µs/dg" "late≤2ms" "k.drops" "load avg"

flagged=""
runs=$OUT/runs.txt
: >"$runs"
for n in $GAMES; do
	for r in $(seq "$ROUNDS"); do
		# The game server (and COMPARE's).
		for si in "${!servers[@]}"; do
			lab=${labels[$si]}
			prof=()
			if [ "${PROFILE:-}" = 1 ]; then prof=(-cpuprofile "$OUT/$lab-$n-$r.pprof"); fi
			(pin "$SERVER_CORE" env GOMAXPROCS=1 "${servers[$si]}" -addr "127.0.0.1:$PORT" -admin "$ADMIN" -stage "$STAGE" -db off \
				-max-lobbies $((n + 100)) -max-lobbies-per-addr $((n + 100)) -max-conns $((8 * n + 100)) \
				-max-conns-per-addr $((8 * n + 100)) -udp-rate -1 "${prof[@]}" 2>"$OUT/$lab-$n-$r.log") &
			pid=$!
			wait_tcp "$ADMIN"
			la=$(loadavg)
			js=$(pin "$LOAD_CORE" "$LOAD" -server "127.0.0.1:$PORT" -games "$n" -server-pid "$pid" -server-admin "$ADMIN" \
				"${loadflags[@]}" 2>"$OUT/load-$lab-$n-$r.log") || {
				echo "capacity: rtype-load failed (a busy machine? see $OUT/load-$lab-$n-$r.log): $(tail -2 "$OUT/load-$lab-$n-$r.log")" >&2
				exit 1
			}
			kill -TERM "$pid"; wait "$pid" || true; pid=""
			echo "$js" >>"$OUT/$lab-$n.jsonl"
			playing=$(field playing "$js")
			if [ "$playing" != "$n" ]; then echo "capacity: only $playing of $n games were playing: $js" >&2; exit 1; fi
			sup=$(field up_datagrams_per_s "$js"); sdown=$(field down_datagrams_per_s "$js")
			us=$(field server_cpu_us_per_datagram "$js")
			kd=$(field server_kernel_drops "$js")
			snote=$(awk -v k="$kd" -v u="$sup" -v w="$(field window_s "$js")" \
				'BEGIN{ if (k > 0.01*u*w) { printf "  (the socket dropped %.0f %% of the datagrams up: the server did not keep up)", 100*k/(u*w); } }')
			if [ -n "$snote" ]; then flagged=1; fi
			printf '%-6s %-5s %-7s %10.0f %10.0f %9.2f %9.3f %7.2f%% %8.0f %s%s\n' "$n" "$r" "$lab" "$sup" "$sdown" \
				"$(field server_cpu_s "$js")" "$us" "$(field tick_late_le_2ms_pct "$js")" "$kd" "$la" "$snote"
			echo "$n $r $lab $us $sup $sdown $(field server_cpu_ms_per_game_s "$js") $(field server_kernel_drops "$js") $(field tick_late_le_2ms_pct "$js") $(field server_cpu_s "$js") $(field window_s "$js")" >>"$runs"
			if [ "$si" = 0 ]; then
				up=$sup down=$sdown
				rate=$(awk -v d="$down" -v n="$n" 'BEGIN{printf "%.2f", d/(4*n)}')
				size=$(awk -v b="$(field down_bytes_per_s "$js")" -v d="$down" 'BEGIN{printf "%d", b/d+0.5}')
			fi
		done

		# The floor, with the datagram rate and size the server just sent.
		(pin "$SERVER_CORE" "$LOAD" -floor-server batch -listen "$FLOOR" -down-rate "$rate" -down-size "$size" \
			2>"$OUT/floor-$n-$r.log") &
		pid=$!
		wait_log "$OUT/floor-$n-$r.log" "floor server listening"
		la=$(loadavg)
		js=$(pin "$LOAD_CORE" "$LOAD" -floor -server "$FLOOR" -games "$n" -server-pid "$pid" \
			"${loadflags[@]}" 2>"$OUT/floorload-$n-$r.log") || { echo "capacity: rtype-load -floor failed" >&2; exit 1; }
		kill -TERM "$pid"; wait "$pid" || true; pid=""
		echo "$js" >>"$OUT/floor-$n.jsonl"
		fup=$(field up_datagrams_per_s "$js"); fdown=$(field down_datagrams_per_s "$js")
		fus=$(field server_cpu_us_per_datagram "$js")
		note=$(awk -v a="$up" -v b="$fup" -v c="$down" -v d="$fdown" \
			'BEGIN{ if (b < 0.95*a || b > 1.05*a || d < 0.95*c || d > 1.05*c) print "  (datagram counts differ from the server run by >5 %: the load generator was starved?)" }')
		if [ -n "$note" ]; then flagged=1; fi
		printf '%-6s %-5s %-7s %10.0f %10.0f %9.2f %9.3f %8s %8s %s%s\n' "$n" "$r" floor "$fup" "$fdown" \
			"$(field server_cpu_s "$js")" "$fus" - - "$la" "$note"
		echo "$n $r floor $fus $fup $fdown $(awk -v c="$(field server_cpu_s "$js")" -v w="$(field window_s "$js")" -v n="$n" 'BEGIN{printf "%.4f", 1000*c/w/n}') 0 0 $(field server_cpu_s "$js") $(field window_s "$js")" >>"$runs"

		# The game's own compute: one four-player game's ticks, no socket; then n such games in turn.
		la=$(loadavg)
		bt=$( (cd net/server && pin "$SERVER_CORE" env GOMAXPROCS=1 "$OUT/server.test" -test.run '^$' \
			-test.bench "BenchmarkInstanceTick/stage1-load(-${n}games)?\$" -test.benchtime "$BENCHTIME") 2>&1) || {
			echo "capacity: the compute benchmark failed: $bt" >&2; exit 1; }
		for v in "" "-${n}games"; do
			nst=$(awk -v b="stage1-load$v" '$1 ~ ("/" b "(-[0-9]+)?$") { for (i = 2; i <= NF; i++) if ($i == "ns/tick") print $(i-1) }' <<<"$bt")
			[ -n "$nst" ] || { echo "capacity: no stage1-load$v ns/tick in the compute benchmark's output: $bt" >&2; exit 1; }
			lab=compute; [ -n "$v" ] && lab=computen
			printf '%-6s %-5s %-7s %10s %10s %9s %9s %8s %8s %s\n' "$n" "$r" "$lab" - - - "$(awk -v t="$nst" 'BEGIN{printf "%.2f/t", t/1000}')" - - "$la"
			echo "$n $r $lab $nst 0 0 $(awk -v t="$nst" 'BEGIN{printf "%.4f", t*60/1e6}') 0 0 0 0" >>"$runs"
		done
	done
done

echo
echo "capacity: $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(loadavg)"
echo "Per datagram, means over the rounds (min-max); ratio = server mean / floor mean, and per round (min-max):"
printf '%-6s %-8s %-22s %-22s %-8s %-14s %-18s %s\n' games server "floor µs/datagram" "server µs/datagram" ratio "round ratios" "server ms/game-s" "kernel drops"
for n in $GAMES; do
	for lab in "${labels[@]}"; do
		awk -v n="$n" -v lab="$lab" '
		$1 == n && $3 == "floor" { f[$2] = $4; fs += $4; fn++; fmin = (fn == 1 || $4 < fmin) ? $4 : fmin; fmax = ($4 > fmax) ? $4 : fmax }
		$1 == n && $3 == lab     { s[$2] = $4; ss += $4; sn++; smin = (sn == 1 || $4 < smin) ? $4 : smin; smax = ($4 > smax) ? $4 : smax
		                           g += $7; gmin = (sn == 1 || $7 < gmin) ? $7 : gmin; gmax = ($7 > gmax) ? $7 : gmax; kd += $8 }
		END {
			rmin = -1; rmax = 0
			for (r in s) if (r in f && f[r] > 0) { q = s[r] / f[r]; if (rmin < 0 || q < rmin) rmin = q; if (q > rmax) rmax = q }
			printf "%-6s %-8s %-22s %-22s %-8s %-14s %-18s %d\n", n, lab,
				sprintf("%.3f (%.3f-%.3f)", fs / fn, fmin, fmax), sprintf("%.3f (%.3f-%.3f)", ss / sn, smin, smax),
				sprintf("%.2fx", (ss / sn) / (fs / fn)), sprintf("%.2f-%.2f", rmin, rmax),
				sprintf("%.2f (%.2f-%.2f)", g / sn, gmin, gmax), kd
		}' "$runs"
	done
done
echo
echo "Per four-player game-second (ms of CPU), means over the rounds (min-max); ratio = server / (floor + compute), and per round (min-max);"
echo "compute: one game alone (the issue's figure); compute-n: the same game among n stepped in turn (ratio-n against it):"
printf '%-6s %-8s %-20s %-20s %-20s %-20s %-8s %-12s %s\n' games server floor "compute" "compute-n" "whole server" ratio "round ratios" ratio-n
for n in $GAMES; do
	for lab in "${labels[@]}"; do
		awk -v n="$n" -v lab="$lab" '
		function acc(k, v) { sum[k] += v; cnt[k]++; if (cnt[k] == 1 || v < lo[k]) lo[k] = v; if (cnt[k] == 1 || v > hi[k]) hi[k] = v }
		function fig(k) { return sprintf("%.3f (%.3f-%.3f)", sum[k] / cnt[k], lo[k], hi[k]) }
		function m(k) { return sum[k] / cnt[k] }
		$1 == n && $3 == "floor"    { f[$2] = $7; acc("f", $7) }
		$1 == n && $3 == "compute"  { c[$2] = $7; acc("c", $7) }
		$1 == n && $3 == "computen" { acc("cn", $7) }
		$1 == n && $3 == lab        { s[$2] = $7; acc("s", $7) }
		END {
			rmin = -1; rmax = 0
			for (r in s) if ((r in f) && (r in c)) { q = s[r] / (f[r] + c[r]); if (rmin < 0 || q < rmin) rmin = q; if (q > rmax) rmax = q }
			printf "%-6s %-8s %-20s %-20s %-20s %-20s %-8s %-12s %s\n", n, lab, fig("f"), fig("c"), fig("cn"), fig("s"),
				sprintf("%.2fx", m("s") / (m("f") + m("c"))), sprintf("%.2f-%.2f", rmin, rmax), sprintf("%.2fx", m("s") / (m("f") + m("cn")))
		}' "$runs"
	done
done
echo "(floor: the batched raw-UDP floor's CPU for the server's datagram counts and sizes; compute: BenchmarkInstanceTick/stage1-load,"
echo " its µs per tick × 60, compute-n: .../stage1-load-<n>games; whole server: rtype-server under rtype-load. Target (issue 35): ratio ≤ 1.25.)"
echo "(server ms/game-s: the server's CPU per four-player game per second of play; 1000 / it = games per core by CPU."
echo " Kernel drops: datagrams the kernel dropped at the server's socket in the windows, summed; above 0 the core is at its limit.)"
if [ -n "$flagged" ]; then
	echo "capacity: some runs are marked above: the cores were not the server's and the load generator's alone (see the load"
	echo "          average), or the server is past its capacity at that game count; compare only unmarked rounds, on an idle machine."
fi
