#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# package-lock.json beside this file) against a live `memory-mcp serve` on a scratch data
# directory, and fails unless every scenario in the list below passes: every check of each
# reports SUCCESS (or INFO), none FAILURE or WARNING.
#
# In scope: the suite's general server scenarios. Out of scope, because they call tools,
# resources and prompts that only the suite's reference server has (test_simple_text,
# test://static-text, test_prompt_with_arguments, ...), or server-to-client requests this
# server never makes (sampling, elicitation): tools-call-*, elicitation-*, resources-read-*,
# resources-templates-read, prompts-get-*, json-schema-2020-12, server-sse-polling and
# server-sse-multiple-streams (the last passes today, but it is not a general scenario).
#
# The server runs with --auth none, as one person on one machine would run it: the suite's
# client sends no credential. Node 20 needs node20.mjs (see there); Node 22 does not.
# With COMPAT_POSTGRES set to a PostgreSQL server's URL, the server keeps the memory in a fresh
# database there (--database, dropped at the end).
# Usage: compat/conformance/run.sh [path/to/memory-mcp]   (after `npm ci` here)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-$root/bin/memory-mcp}
suite=$here/node_modules/@modelcontextprotocol/conformance/dist/index.js
[ -f "$suite" ] || { echo "no $suite: run npm ci in compat/conformance"; exit 2; }
[ -x "$bin" ] || { echo "no $bin: run make build"; exit 2; }

scenarios=(server-initialize ping logging-set-level tools-list resources-list resources-subscribe
    resources-unsubscribe prompts-list completion-complete dns-rebinding-protection)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/memory-mcp-conformance-XXXXXX")
pid=
database=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    [ -n "$database" ] && "$root/scripts/postgres.sh" drop "$database"
    rm -rf "$tmp"
}
trap cleanup EXIT
engine=()
if [ -n "${COMPAT_POSTGRES:-}" ]; then
    database=$("$root/scripts/postgres.sh" database "$COMPAT_POSTGRES")
    engine=(--database "$database")
fi
export HOME=$tmp/home
mkdir -p "$HOME"
unset XDG_CONFIG_HOME XDG_DATA_HOME
for v in $(env | sed -n 's/^\(MEMORY_MCP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

"$bin" serve --data-dir "$tmp/data" "${engine[@]}" --addr 127.0.0.1:0 --auth none 2>"$tmp/server.log" &
pid=$!
url=
for _ in $(seq 100); do
    url=$(sed -n 's/.*msg="serving MCP over HTTP" url=\([^ ]*\).*/\1/p' "$tmp/server.log")
    [ -n "$url" ] && break
    kill -0 "$pid" 2>/dev/null || { echo "FAIL  the server stopped:"; cat "$tmp/server.log"; exit 1; }
    sleep 0.1
done
[ -n "$url" ] || { echo "FAIL  the server did not listen:"; cat "$tmp/server.log"; exit 1; }

node_args=()
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -lt 22 ] && node_args=(--import "$here/node20.mjs")
echo "MCP conformance $(node -p "require('$here/node_modules/@modelcontextprotocol/conformance/package.json').version") on node $(node --version) against $url${database:+ (memory in PostgreSQL: $database)}"

failed=0
for s in "${scenarios[@]}"; do
    out=$tmp/out-$s
    set +e
    node "${node_args[@]}" "$suite" server --url "$url" --scenario "$s" --output-dir "$out" >"$tmp/run.log" 2>&1
    rc=$?
    set -e
    verdict=$(node -e '
        const fs = require("fs"), path = require("path");
        const dirs = fs.readdirSync(process.argv[1]).map(d => path.join(process.argv[1], d));
        const checks = dirs.flatMap(d => JSON.parse(fs.readFileSync(path.join(d, "checks.json"), "utf8")));
        const bad = checks.filter(c => !["SUCCESS", "INFO"].includes(c.status));
        if (checks.length === 0) { console.log("no checks ran"); process.exit(1); }
        if (bad.length) { console.log(bad.map(c => `${c.id} ${c.status}: ${c.errorMessage ?? ""}`).join("; ")); process.exit(1); }
        console.log(`${checks.filter(c => c.status === "SUCCESS").length} checks passed`);
    ' "$out" 2>&1) && [ $rc -eq 0 ] && { echo "ok    $s: $verdict"; continue; }
    echo "FAIL  $s (exit $rc): $verdict"
    sed 's/^/      /' "$tmp/run.log" | tail -n 20
    failed=$((failed + 1))
done
echo "${#scenarios[@]} conformance scenarios, $failed failed"
[ $failed -eq 0 ]
