#!/usr/bin/env bash
# Runs the MCP Inspector CLI commands of the "Try it with the MCP Inspector" section of
# docs/development.md and of the README's "Remember something, find it again" as written there, through the Inspector pinned in package-lock.json instead of `npx`, on a
# scratch data directory, and checks each one: exit status, and output that says it worked.
# Also checks the section's prose: `-e MEMORY_MCP_...` reaches the server, and the inline
# command with `--` runs. Exit status 0 only if every command passed.
# With COMPAT_POSTGRES set to a PostgreSQL server's URL, the server keeps the memory in a fresh
# database there (-e MEMORY_MCP_DATABASE=..., dropped at the end) instead of the data directory.
# Usage: compat/inspector.sh (after `make build` and `npm ci` in compat/)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
inspector=$here/node_modules/.bin/mcp-inspector
readme=$root/docs/development.md
[ -x "$inspector" ] || { echo "no $inspector: run npm ci in compat/"; exit 2; }
[ -x "$root/bin/memory-mcp" ] || { echo "no bin/memory-mcp: run make build"; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/memory-mcp-inspector-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# pg is what each Inspector command adds after --cli: nothing, or the database on PostgreSQL.
pg=
if [ -n "${COMPAT_POSTGRES:-}" ]; then
    database=$("$root/scripts/postgres.sh" database "$COMPAT_POSTGRES")
    trap 'rm -rf "$tmp"; "$root/scripts/postgres.sh" drop "$database"' EXIT
    pg="-e MEMORY_MCP_DATABASE=$database"
    echo "memory in PostgreSQL: $database"
fi
data=$tmp/data
# The Inspector hands the server HOME, PATH and a few more variables, nothing else. With HOME
# in the scratch directory, neither the Inspector nor the server reads or writes the user's
# files (config, catalog, default data directory) even if a command lost its --data-dir.
export HOME=$tmp/home
mkdir -p "$HOME"
unset XDG_CONFIG_HOME XDG_DATA_HOME
for v in $(env | sed -n 's/^\(MEMORY_MCP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

failed=0
if version=$("$inspector" --version 2>&1); then
    echo "MCP Inspector $version on node $(node --version)"
else
    echo "FAIL  mcp-inspector --version: $version"
    failed=1
fi
ran=0
state=$tmp/state.json

# run_checked <label> <command line>: runs it from the repository root, then checks the
# output for the command's --method.
run_checked() {
    local label=$1 line=$2 method uri rc
    method=$(sed -n 's/.*--method \([^ ]*\).*/\1/p' <<<"$line")
    uri=$(sed -n 's/.*--uri \([^ ]*\).*/\1/p' <<<"$line")
    ran=$((ran + 1))
    echo "\$ $label"
    set +e
    (cd "$root" && eval "${line/--cli /--cli $pg }") >"$tmp/out" 2>"$tmp/err"
    rc=$?
    set -e
    if [ $rc -ne 0 ]; then
        echo "FAIL  exit status $rc"
        sed 's/^/      /' "$tmp/out" | head -n 40
        grep -v 'level=INFO' "$tmp/err" | sed 's/^/      /' | head -n 20
        failed=$((failed + 1))
        return
    fi
    if ! grep -q "data_dir=$tmp/" "$tmp/err"; then
        echo "FAIL  the server did not run on a data directory under $tmp:"
        grep 'serving MCP' "$tmp/err" | sed 's/^/      /'
        failed=$((failed + 1))
        return
    fi
    node "$here/inspector-check.mjs" "$state" "$method" $uri <"$tmp/out" || failed=$((failed + 1))
}

# sh_block <file> <section>: the section's sh blocks, continuation lines joined.
sh_block() {
    awk -v title="## $2" '
        $0 == title { section = 1; next }
        /^## / { section = 0 }
        section && /^```sh/ { code = 1; next }
        section && code && /^```/ { code = 0; next }
        section && code { print }
    ' "$1" | sed -e ':a' -e '/\\$/N; s/\\\n *//; ta'
}
block=$(sh_block "$readme" "Try it with the MCP Inspector")
[ -n "$block" ] || { echo "FAIL  no sh block under \"## Try it with the MCP Inspector\" in $readme"; exit 1; }
# The README's first example runs memory-mcp from the PATH: here, the one just built.
start=$(sh_block "$root/README.md" "Remember something, find it again" | sed 's#--cli memory-mcp stdio#--cli ./bin/memory-mcp stdio#')
[ -n "$start" ] || { echo "FAIL  no sh block under \"## Remember something, find it again\" in README.md"; exit 1; }
block=$start$'\n'$block

prefix='npx @modelcontextprotocol/inspector '
scratch=/tmp/memory-mcp-try
while IFS= read -r line; do
    case $line in
    '' | '#'*) ;;
    'make build') echo "\$ make build  (done by make compat)" ;;
    "$prefix"*)
        cmd=${line//"$scratch"/"$data"}
        run_checked "$line" "\"\$inspector\" ${cmd#"$prefix"}"
        ;;
    *)
        echo "FAIL  README line this script does not know how to run: $line"
        failed=$((failed + 1))
        ;;
    esac
done <<<"$block"

# The section's prose: settings through -e, and a server flag the Inspector also has after --.
run_checked "$prefix--cli -e MEMORY_MCP_DATA_DIR=... -e MEMORY_MCP_HUMAN=true ./bin/memory-mcp stdio --method tools/call --tool-name publish_fact ... category=core_policy" \
    "\"\$inspector\" --cli -e MEMORY_MCP_DATA_DIR=\"$data\" -e MEMORY_MCP_HUMAN=true ./bin/memory-mcp stdio --method tools/call --tool-name publish_fact --tool-arg content='Every deploy is reviewed.' --tool-arg category=core_policy"
inline=$(awk '/^## Try it with the MCP Inspector/ { s = 1; next } /^## / { s = 0 } s' "$readme" |
    grep -o "\`$prefix[^\`]*\`" | tr -d '`' || true)
[ -n "$inline" ] || { echo "FAIL  no inline Inspector command in the section's prose"; failed=$((failed + 1)); }
while IFS= read -r line; do
    [ -n "$line" ] || continue
    run_checked "$line" "\"\$inspector\" ${line#"$prefix"} --data-dir \"$data\""
done <<<"$inline"
run_checked "$prefix--cli ./bin/memory-mcp stdio --data-dir ... --method resources/read --uri memory://facts/snapshot" \
    "\"\$inspector\" --cli ./bin/memory-mcp stdio --data-dir \"$data\" --method resources/read --uri memory://facts/snapshot"

# Schema portability as the Inspector judges it: error-severity problems make --strict exit 6.
ran=$((ran + 1))
echo "\$ $prefix--cli ./bin/memory-mcp stdio --data-dir ... --method tools/list --strict"
set +e
"$inspector" --cli $pg "$root/bin/memory-mcp" stdio --data-dir "$data" --method tools/list --strict >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
summary=$("$inspector" --cli $pg "$root/bin/memory-mcp" stdio --data-dir "$data" --method tools/list 2>&1 >/dev/null | grep 'Schema portability' || true)
if [ $rc -ne 0 ]; then
    echo "FAIL  exit status $rc; $summary"
    grep -B1 -A3 '^Error' "$tmp/err" | sed 's/^/      /' | head -n 60
    failed=$((failed + 1))
else
    echo "ok    tools/list --strict: ${summary:-no portability summary printed}"
fi

if [ -n "$pg" ] && [ -e "$data/memory.db" ]; then
    echo "FAIL  a server given MEMORY_MCP_DATABASE made $data/memory.db: the memory did not go to PostgreSQL"
    failed=$((failed + 1))
fi
echo "$ran Inspector commands, $failed failed"
[ $failed -eq 0 ]
