#!/usr/bin/env bash
# The README's two commands on a fresh machine: clones this repository (its committed HEAD) into a
# temp directory and runs, exactly as the README writes them,
#
#   npm install && npm test
#   npm install && ./bin/rein.js run --preset default "What is in this directory?"
#
# Then the package as users get it: `npm pack` in the clone (its package.json must have no install
# script), installed from the registry globally into a temp prefix (the README's plugin example
# runs from a project with no node_modules; `rein bench --html` names the chart packages to
# install), into a project with zod 3 (npm refuses the peer conflict; forced, rein says it needs
# zod 4 when it loads), and into an empty project (its size is printed).
#
# with an empty npm cache, a fresh HOME, no ANTHROPIC_* or REIN_* variables, and a PATH without
# the system packages a fresh machine lacks (ripgrep, chromium, bubblewrap, redis): only Node, npm
# and the base system. npm installs from the registry, so this needs the network. Each step's wall
# time is printed with the machine's cores and load. Exit status: the first failing command's.
#
#   scripts/fresh-clone-check.sh            (.ci/run runs it)
#   KEEP=1 scripts/fresh-clone-check.sh     keeps the temp directory for a look afterwards
#   WORK=DIR scripts/fresh-clone-check.sh   reuses the directory a KEEP=1 run left: only the
#                                           package checks run again
#
# What the machine needs to reach the registry is kept: npm's global config file (where a CA file
# or a proxy is usually set; `npm install -g --prefix` would otherwise look for it under the
# prefix) and the CA and proxy variables.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
reuse="${WORK:-}"
work="${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/rein-fresh-clone-XXXXXX")}"
if [ "${KEEP:-}" != 1 ] && [ -z "$reuse" ]; then trap 'rm -rf "$work"' EXIT; fi
network=("npm_config_globalconfig=$(npm config get globalconfig)")
for v in NODE_EXTRA_CA_CERTS SSL_CERT_FILE SSL_CERT_DIR HTTP_PROXY HTTPS_PROXY NO_PROXY http_proxy https_proxy no_proxy; do
  if [ -n "${!v:-}" ]; then network+=("$v=${!v}"); fi
done

if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
  echo "fresh-clone-check: the working tree has uncommitted changes; this checks the committed HEAD ($(git -C "$repo" rev-parse --short HEAD))"
fi

# A PATH of links to every command on this one except those of the system packages.
absent='^(rg|chromium|chromium-browser|google-chrome|google-chrome-stable|bwrap|redis-server|redis-cli)$'
mkdir -p "$work/bin" "$work/home" "$work/npm-cache"
IFS=: read -r -a dirs <<< "$PATH"
for d in "${dirs[@]}"; do
  [ -d "$d" ] || continue
  for f in "$d"/*; do
    name="$(basename "$f")"
    [ -x "$f" ] && [ ! -d "$f" ] || continue
    [[ "$name" =~ $absent ]] && continue
    [ -e "$work/bin/$name" ] || ln -s "$f" "$work/bin/$name"
  done
done

# The environment of a fresh machine: nothing of the user's, nothing of this machine's extras.
fresh=(env -i "PATH=$work/bin" "HOME=$work/home" "npm_config_cache=$work/npm-cache" "TERM=${TERM:-dumb}" "LANG=${LANG:-C.UTF-8}" "${network[@]}")
for cmd in rg chromium bwrap redis-server; do
  if "${fresh[@]}" bash -c "command -v $cmd" >/dev/null 2>&1; then echo "fresh-clone-check: $cmd is still on PATH" >&2; exit 1; fi
done

step() {
  local started=$SECONDS
  echo "fresh-clone-check: \$ $1   (nproc $(nproc); load $(cut -d' ' -f1-3 /proc/loadavg))"
  "${fresh[@]}" bash -o pipefail -c "$1"
  echo "fresh-clone-check: done in $((SECONDS - started)) s (load $(cut -d' ' -f1-3 /proc/loadavg))"
}

if [ -z "$reuse" ]; then
  git clone --quiet --no-local "$repo" "$work/rein"
  cd "$work/rein"
  step 'npm install && npm test'
  # The second command, in the clone (its npm install finds everything installed and built).
  step 'npm install && ./bin/rein.js run --preset default "What is in this directory?"' | tee "$work/demo.out"
  grep -q '^Here is what I read:' "$work/demo.out"
  echo "fresh-clone-check: both README commands passed on a fresh clone"
else
  cd "$work/rein"
  rm -rf "$work/global" "$work/project" "$work/zod3" "$work/consumer" "$work"/rein-*.tgz
fi

# The package, as a user gets it: packed from the clone, installed from the registry with an
# empty cache, globally into a temp prefix and into projects of the user's.
say() { echo "fresh-clone-check: $*"; }
step 'npm pack --pack-destination ..' >/dev/null
tgz="$(ls "$work"/rein-*.tgz)"
tar xzf "$tgz" -O package/package.json | node -e 'const p = JSON.parse(require("fs").readFileSync(0, "utf8")); for (const s of ["prepare", "prepack", "postpack"]) if (p.scripts?.[s]) { console.error(`the packed package.json has a ${s} script`); process.exit(1); }'
[ "$(git status --porcelain)" = "" ] || { say "npm pack left the clone changed"; git status --short; exit 1; }

step "npm install -g --prefix '$work/global' '$tgz' 2>&1 | tee '$work/global-install.log'"
if grep -q 'install-scripts.*rein@' "$work/global-install.log"; then say "npm lists rein as a package with install scripts"; exit 1; fi
say "global install: $(du -sk "$work/global/lib/node_modules" | cut -f1) KiB, $(find "$work/global/lib/node_modules/rein/node_modules" -name package.json -path '*/node_modules/*/package.json' -not -path '*/node_modules/*/node_modules/*/*/package.json' | wc -l) package.json files"

# The README's plugin example, in a project with no node_modules, run by the global rein.
mkdir -p "$work/project/.git"
node -e 'const t = require("fs").readFileSync(process.argv[1], "utf8"); process.stdout.write(/```ts\n(\/\/ word-count\.ts\n[\s\S]*?)```/.exec(t)[1])' "$work/rein/README.md" > "$work/project/word-count.ts"
printf 'extends: minimal\nplugins: { ./word-count.ts: { unit: lines } }\n' > "$work/project/my-agent.yaml"
printf 'turns:\n  - reply: [ { tool_use: { name: WordCount, input: { file_path: my-agent.yaml } } } ]\n  - reply: [ { text: counted } ]\n' > "$work/project/scenario.yaml"
global=(env -i "PATH=$work/global/bin:$work/bin" "HOME=$work/home" "npm_config_cache=$work/npm-cache" "${network[@]}")
(cd "$work/project" && "${global[@]}" rein run 'Count the lines of my-agent.yaml' --preset ./my-agent.yaml --sim scenario.yaml --output-format stream-json --no-layers) > "$work/plugin.out"
node -e 'const ev = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse); const r = ev.flatMap((e) => e.type === "user" ? e.message.content : []).find((b) => b.type === "tool_result"); if (!r || r.is_error || JSON.stringify(r.content) !== JSON.stringify([{ type: "text", text: "3" }])) { console.error("WordCount did not count 3:", JSON.stringify(r)); process.exit(1); }' "$work/plugin.out"
say "the README's plugin runs from the global install (rein and zod resolved to its copies)"

# rein bench --html without the chart packages: says what to install, before replaying.
if (cd "$work/project" && "${global[@]}" rein bench --workload gen:turns=2 --preset minimal --html out.html) 2> "$work/html.err"; then say "rein bench --html ran without vega"; exit 1; fi
grep -q 'npm install vega@' "$work/html.err" || { cat "$work/html.err"; exit 1; }
say "rein bench --html names the chart packages to install: $(cat "$work/html.err")"

# A project with zod 3: npm refuses the peer conflict; forced, rein says so when it loads.
mkdir -p "$work/zod3" && cd "$work/zod3"
"${global[@]}" npm init -y >/dev/null
"${global[@]}" npm install --silent zod@3
if "${global[@]}" npm install "$tgz" > "$work/zod3-install.log" 2>&1; then say "npm installed rein beside zod 3 without a peer conflict"; exit 1; fi
grep -q 'zod' "$work/zod3-install.log"
"${global[@]}" npm install --silent --legacy-peer-deps "$tgz"
cat > agent.mjs <<'JS'
try {
  await import('rein');
  console.error('rein loaded on zod 3');
  process.exit(1);
} catch (err) {
  console.log(err.message);
  if (!/rein needs zod 4/.test(err.message)) process.exit(1);
}
JS
say "zod 3 in the project: $("${global[@]}" node agent.mjs)"

# What a project install of rein brings.
mkdir -p "$work/consumer" && cd "$work/consumer"
"${global[@]}" npm init -y >/dev/null
step "npm install '$tgz'"
say "npm install rein: $(du -sk node_modules | cut -f1) KiB in node_modules, $(ls node_modules | wc -l) top-level entries"
say "all checks passed"
