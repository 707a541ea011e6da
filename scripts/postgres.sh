#!/usr/bin/env bash
# A throwaway PostgreSQL 15 for the store's tests on the server engine.
#
#   scripts/postgres.sh run CMD...  start a cluster, run CMD with
#                                   MEMORY_MCP_TEST_POSTGRES set to its URL,
#                                   then stop it and remove its files
#   scripts/postgres.sh start [--tls] [--passwords]
#                                   start a cluster and print its URL; it runs
#                                   until `scripts/postgres.sh stop URL`.
#                                   --tls: ssl = on, with a certificate for
#                                   127.0.0.1 and localhost signed by a CA made
#                                   for the cluster (openssl), files in its
#                                   directory; the URL verifies it
#                                   (sslmode=verify-full&sslrootcert=DIR/ca.crt).
#                                   --passwords: every role but postgres must
#                                   give its password (scram-sha-256)
#   scripts/postgres.sh cert URL NAME...
#                                   reissue a --tls cluster's certificate for
#                                   NAMEs (host names or IP addresses) from its
#                                   CA and reload it (tests of a certificate
#                                   that does not name the host)
#   scripts/postgres.sh stop URL    stop a cluster `start` made and remove it
#   scripts/postgres.sh database URL
#                                   make a new, empty database on the server
#                                   at URL and print its URL (for a server
#                                   under test: --database takes it)
#   scripts/postgres.sh drop URL    drop the database at URL
#   scripts/postgres.sh down URL [immediate]
#                                   shut a cluster `start` made down, keeping it
#                                   (immediate: at once, as a crash would)
#   scripts/postgres.sh up URL      start it again (tests of an outage)
#   scripts/postgres.sh restart URL stop a cluster `start` made as a crash
#                                   would (immediate: no checkpoint, every
#                                   connection cut) and start it again on the
#                                   same port and data, for fault tests
#
# With MEMORY_MCP_TEST_POSTGRES already set (a server of your own), run and
# start (without options) use it as it is and start nothing. Debian's
# postgresql-15 is installed when missing (apt, as root or through sudo),
# and openssl for --tls. The cluster lives in a temporary directory,
# listens on 127.0.0.1 only, trusts local connections (but see
# --passwords), and trades durability for speed (fsync off): it holds test
# data only. PostgreSQL refuses to run as root, so as root it runs as the
# postgres user the package creates.
set -euo pipefail

bin=/usr/lib/postgresql/15/bin

install() {
	local want=
	[ -x "$bin/initdb" ] || want=postgresql-15
	[ -z "${1:-}" ] || command -v openssl >/dev/null || want+=" openssl"
	[ -n "$want" ] || return 0
	local sudo=
	[ "$(id -u)" = 0 ] || sudo=sudo
	echo "postgres: installing Debian's $want" >&2
	$sudo apt-get update >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $want >&2
}

# as runs a command as the cluster's owner: postgres when we are root.
as() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# start makes and starts a cluster and prints its URL; its options are
# --tls and --passwords (see the top).
start() {
	local tls= passwords=
	while [ $# -gt 0 ]; do
		case $1 in
		--tls) tls=1 ;;
		--passwords) passwords=1 ;;
		*) echo "postgres: start takes --tls and --passwords, not $1" >&2; return 2 ;;
		esac
		shift
	done
	install $tls
	local dir
	dir=$(mktemp -d "${TMPDIR:-/tmp}/memory-mcp-pg.XXXXXX")
	chmod 755 "$dir"
	[ "$(id -u)" = 0 ] && chown postgres: "$dir"
	as "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
		{ cat "$dir/initdb.log" >&2; rm -rf "$dir"; return 1; }
	if [ -n "$passwords" ]; then
		# postgres (the tests' administrator) stays trusted
		printf '%s\n' 'local all all trust' \
			'host all postgres 127.0.0.1/32 trust' 'host all all 127.0.0.1/32 scram-sha-256' \
			'host all postgres ::1/128 trust' 'host all all ::1/128 scram-sha-256' >"$dir/data/pg_hba.conf"
	fi
	local query=sslmode=disable
	if [ -n "$tls" ]; then
		authority "$dir" && certify "$dir" 127.0.0.1 localhost ||
			{ rm -rf "$dir"; echo "postgres: could not make the cluster's certificates (openssl)" >&2; return 1; }
		query="sslmode=verify-full&sslrootcert=$dir/ca.crt"
	fi
	local port tries
	for tries in 1 2 3 4 5 6 7 8; do
		port=$((20000 + RANDOM % 20000))
		if serve "$dir" "$port"; then
			echo "$dir" >"$(record "$port")"
			echo "postgres://postgres@127.0.0.1:$port/postgres?$query"
			return
		fi
		grep -q "already in use" "$dir/server.log" 2>/dev/null || break
	done
	cat "$dir/server.log" >&2 2>/dev/null || true
	rm -rf "$dir"
	echo "postgres: the cluster did not start" >&2
	return 1
}

# serve starts the cluster in $1 on port $2, with TLS when it has a
# certificate.
serve() {
	local ssl=
	[ -f "$1/server.crt" ] && ssl="-c ssl=on -c ssl_cert_file=$1/server.crt -c ssl_key_file=$1/server.key"
	as "$bin/pg_ctl" -D "$1/data" -l "$1/server.log" -w -t 30 start \
		-o "-c listen_addresses=127.0.0.1 -c port=$2 -c unix_socket_directories=$1 \
		    -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
		    -c max_connections=300 -c shared_buffers=64MB $ssl" >/dev/null 2>&1
}

# authority makes the certificate authority of the cluster in $1: ca.key
# and ca.crt, which the clients' sslrootcert names.
authority() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 7 \
		-subj "/CN=memory-mcp test CA" -addext basicConstraints=critical,CA:TRUE \
		-addext keyUsage=critical,keyCertSign,cRLSign \
		-keyout "$1/ca.key" -out "$1/ca.crt" >/dev/null 2>&1 || return 1
	chmod 600 "$1/ca.key"
	chmod 644 "$1/ca.crt"
}

# certify issues the server certificate of the cluster in $1 for the names
# after it (IP addresses or host names), signed by its authority:
# server.crt, and server.key, which PostgreSQL reads only when its owner
# alone may (mode 0600, owned by postgres when we are root).
certify() {
	local dir=$1 san= n
	shift
	for n in "$@"; do
		if [[ $n =~ ^[0-9.]+$|: ]]; then san+=",IP:$n"; else san+=",DNS:$n"; fi
	done
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$1" \
		-keyout "$dir/server.key.new" -out "$dir/server.csr" >/dev/null 2>&1 &&
		openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -days 7 \
			-extfile <(printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n' "${san#,}") \
			-out "$dir/server.crt.new" >/dev/null 2>&1 || return 1
	chmod 600 "$dir/server.key.new"
	chmod 644 "$dir/server.crt.new"
	[ "$(id -u)" = 0 ] && chown postgres: "$dir/server.key.new" "$dir/server.crt.new"
	mv "$dir/server.key.new" "$dir/server.key"
	mv "$dir/server.crt.new" "$dir/server.crt"
}

# cluster prints the port and directory of the cluster whose URL start printed.
cluster() {
	local port=${1#*@127.0.0.1:}
	port=${port%%/*}
	local dir
	if ! dir=$(cat "$(record "$port")" 2>/dev/null) || [ -z "$dir" ]; then
		echo "postgres: $1 is not a cluster this script started" >&2
		return 1
	fi
	echo "$port $dir"
}

# record is the file naming the directory of the cluster on a port.
record() { echo "${TMPDIR:-/tmp}/memory-mcp-pg-$1.dir"; }

# stop stops the cluster whose URL start printed and removes its files.
stop() {
	local port=${1#*@127.0.0.1:}
	port=${port%%/*}
	local rec dir
	rec=$(record "$port")
	if ! dir=$(cat "$rec" 2>/dev/null) || [ -z "$dir" ]; then
		echo "postgres: $1 is not a cluster this script started" >&2
		return 1
	fi
	as "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$dir" "$rec"
}

# psql runs the client of the installed PostgreSQL, else the one on PATH.
psql() {
	if [ -x "$bin/psql" ]; then "$bin/psql" "$@"; else command psql "$@"; fi
}

# database makes a new, empty database on the server at URL (a postgres://
# URL whose user may create databases) and prints its URL.
database() {
	local url=$1 base query name
	base=${url%%\?*}
	query=${url#"$base"}
	name=memory_mcp_$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
	psql "$url" -v ON_ERROR_STOP=1 -qAtc "CREATE DATABASE $name" >/dev/null
	echo "${base%/*}/$name$query"
}

# drop drops the database at URL (one database made), from the server's
# postgres database.
drop() {
	local url=$1 base query name
	base=${url%%\?*}
	query=${url#"$base"}
	name=${base##*/}
	psql "${base%/*}/postgres$query" -v ON_ERROR_STOP=1 -qAtc "DROP DATABASE IF EXISTS $name WITH (FORCE)" >/dev/null
}

# restart stops the cluster whose URL start printed as a crash would and
# starts it again with the options it was started with (postmaster.opts).
# fsync=off loses nothing here: the data stays in the page cache. A client
# that needs every acknowledged commit to survive asks for
# synchronous_commit=on in its URL, which overrides the cluster's off.
restart() {
	local port=${1#*@127.0.0.1:}
	port=${port%%/*}
	local dir
	if ! dir=$(cat "$(record "$port")" 2>/dev/null) || [ -z "$dir" ]; then
		echo "postgres: $1 is not a cluster this script started" >&2
		return 1
	fi
	as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m immediate -w -t 60 restart >/dev/null
}

case "${1:-}" in
start)
	shift
	if [ -n "${MEMORY_MCP_TEST_POSTGRES:-}" ] && [ $# = 0 ]; then echo "$MEMORY_MCP_TEST_POSTGRES"; else start "$@"; fi
	;;
cert)
	read -r port dir < <(cluster "${2:?usage: $0 cert URL NAME...}")
	[ -f "$dir/ca.key" ] || { echo "postgres: $2 was not started with --tls" >&2; exit 1; }
	shift 2
	certify "$dir" "${@:?usage: $0 cert URL NAME...}" || { echo "postgres: openssl could not issue the certificate" >&2; exit 1; }
	as "$bin/pg_ctl" -D "$dir/data" reload >/dev/null
	;;
stop)
	stop "${2:?usage: $0 stop URL}"
	;;
database)
	database "${2:?usage: $0 database URL}"
	;;
drop)
	drop "${2:?usage: $0 drop URL}"
	;;
down)
	read -r port dir < <(cluster "${2:?usage: $0 down URL}")
	as "$bin/pg_ctl" -D "$dir/data" -m "${3:-fast}" -w -t 30 stop >/dev/null
	;;
up)
	read -r port dir < <(cluster "${2:?usage: $0 up URL}")
	serve "$dir" "$port" || { cat "$dir/server.log" >&2; exit 1; }
	;;
restart)
	restart "${2:?usage: $0 restart URL}"
	;;
run)
	shift
	if [ -n "${MEMORY_MCP_TEST_POSTGRES:-}" ]; then exec "$@"; fi
	url=$(start)
	trap 'stop "$url"' EXIT
	MEMORY_MCP_TEST_POSTGRES=$url "$@"
	;;
*)
	echo "usage: $0 run CMD... | start [--tls] [--passwords] | cert URL NAME... | stop URL | restart URL | down URL [immediate] | up URL | database URL | drop URL" >&2
	exit 2
	;;
esac
