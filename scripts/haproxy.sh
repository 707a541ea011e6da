#!/usr/bin/env bash
# Debian's HAProxy, the round-robin balancer the multi-node fault test and
# its figures run in front of several `memory-mcp serve` nodes.
#
#   scripts/haproxy.sh install   install haproxy unless it is on PATH
#                                (apt, as root or through sudo)
#
# The test writes its own configuration and runs haproxy in the foreground;
# docs/deployment.md holds the configuration it tests.
set -euo pipefail

install() {
	command -v haproxy >/dev/null && return
	local sudo=
	[ "$(id -u)" = 0 ] || sudo=sudo
	echo "haproxy: installing Debian's haproxy" >&2
	$sudo apt-get update >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends haproxy >&2
	# The package starts a service on its sample configuration; the tests
	# run their own instance, so stop it where systemd runs.
	$sudo systemctl disable --now haproxy >/dev/null 2>&1 || true
}

case "${1:-}" in
install) install ;;
*)
	echo "usage: $0 install" >&2
	exit 2
	;;
esac
