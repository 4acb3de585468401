#!/usr/bin/env bash
# The GitHub Action's step (action.yml): install vq from its release archive
# for this runner, verified against the release's checksums.txt and cached
# per version, then run it with the action's arguments. The step's exit code
# is vq's; vq itself writes the run's step outputs, annotations and step
# summary, and this script adds exit-code (also for a vq that never ran).
#
# Inputs (action.yml passes them as environment variables, never on a
# command line):
#   VQ_ACTION_COMMAND     the vq command (ci run-vrt), words of a-z, 0-9 and -
#   VQ_ACTION_BRANCH      branch=VALUE, one word as given (quotes and all)
#   VQ_ACTION_COMMIT      commit=VALUE, one word as given
#   VQ_ACTION_WAIT        true adds --wait; false or empty does not
#   VQ_ACTION_ARGS        the other vq arguments, split as a shell splits
#                         words (quotes and backslashes), never expanded or run
#   VQ_API_KEY            the API key, for vq to read
#   VQ_ACTION_BASE_URL    the VisualQ server (VQ_BASE_URL), when given
#   VQ_ACTION_JUNIT       a path for the JUnit report (--junit), when given
#   VQ_ACTION_VERSION     the release to install (1.4.2 or v1.4.2), else
#   VQ_ACTION_REF         the action's own ref: a release tag (v1.4.2), or a
#                         major tag (v1) or commit resolved to the release
#                         tag on the same commit
#   VQ_ACTION_REPOSITORY  the action's repository (visualq/vq)
#   VQ_ACTION_GITHUB_URL  where releases and tags are (https://github.com);
#                         tests and mirrors set it
# and the runner's RUNNER_OS, RUNNER_ARCH, RUNNER_TOOL_CACHE, RUNNER_TEMP,
# GITHUB_OUTPUT and GITHUB_PATH.
set -euo pipefail

# The platform, checksum and unpacking steps are the install script's.
# shellcheck source=scripts/install.sh
. "$(dirname "${BASH_SOURCE[0]}")/../install.sh"
say_prefix="vq action"
fail() { say "$*"; write_output exit-code 1; exit 1; }

write_output() { # NAME VALUE: GitHub's multi-line form, a random delimiter
  [ -n "${GITHUB_OUTPUT:-}" ] || return 0
  local delimiter
  delimiter="ghadelimiter_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  printf '%s<<%s\n%s\n%s\n' "$1" "$delimiter" "$2" "$delimiter" >>"$GITHUB_OUTPUT"
}

# Git Bash on a Windows runner: the runner's paths as this script's, and
# this script's as the runner's; elsewhere they are the same.
posix_path() { if command -v cygpath >/dev/null; then cygpath -u "$1"; else printf '%s\n' "$1"; fi; }
runner_path() { if command -v cygpath >/dev/null; then cygpath -w "$1"; else printf '%s\n' "$1"; fi; }

# The release version to install: the version input, else the release tag
# the action's ref is or points at (a major tag such as v1 moves with each
# release; the release tag on the same commit names the archive).
release_version() {
  local version="${VQ_ACTION_VERSION:-}" ref="${VQ_ACTION_REF:-}" refs commit tag
  if [ -n "$version" ]; then
    is_release "$version" || fail "version '$version' is not a release version (such as 1.4.2)"
    echo "${version#v}"
    return
  fi
  if is_release "$ref"; then
    echo "${ref#v}"
    return
  fi
  [ -n "$ref" ] || fail "no version to install: set the action's version input (such as version: 1.4.2)"
  refs="$(git ls-remote --tags "$github/$repository" 2>/dev/null)" ||
    fail "cannot list the tags of $github/$repository to find the release of '$ref': set the version input"
  if [[ "$ref" =~ ^[0-9a-f]{40}$ ]]; then
    commit="$ref"
  else # a tag's commit: its peeled line when it is annotated
    commit="$(awk -v t="refs/tags/$ref" '$2 == t || $2 == t"^{}" { c = $1 } END { print c }' <<<"$refs")"
  fi
  [ -n "$commit" ] || fail "'$ref' is no tag of $repository: set the version input (such as version: 1.4.2)"
  tag="$(awk -v c="$commit" '$1 == c { sub("^refs/tags/", "", $2); sub("\\^\\{\\}$", "", $2); print $2 }' <<<"$refs" |
    grep -E '^v[0-9]+\.[0-9]+\.[0-9]+$' | sed 's/^v//' | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)" || true
  [ -n "$tag" ] || fail "'$ref' is no release of $repository: set the version input (such as version: 1.4.2)"
  echo "$tag"
}

github="${VQ_ACTION_GITHUB_URL:-https://github.com}"
temp="$(posix_path "${RUNNER_TEMP:-${TMPDIR:-/tmp}}")"
repository="${VQ_ACTION_REPOSITORY:-visualq/vq}"
[[ "${VQ_ACTION_COMMAND:-}${VQ_ACTION_ARGS:-}" =~ [^[:space:]] ]] || fail "the command and args inputs are empty (such as command: ci run-vrt)"
[[ "${VQ_ACTION_COMMAND:-}" =~ ^([a-z0-9-]+( [a-z0-9-]+)*)?$ ]] || fail "the command input is not a vq command (such as command: ci run-vrt)"
case "${VQ_ACTION_WAIT:-}" in '' | true | false) ;; *) fail "the wait input is neither true nor false" ;; esac
[ -n "${VQ_API_KEY:-}" ] || fail "the api-key input is empty (such as api-key: \${{ secrets.VQ_API_KEY }}; a pull request from a fork gets no secrets)"

platform="$(archive_platform "${RUNNER_OS:-}" "${RUNNER_ARCH:-}")"
[ -n "$platform" ] || fail "vq has no release archive for ${RUNNER_OS:-an unknown OS} on ${RUNNER_ARCH:-an unknown architecture} (there are archives for Linux, macOS and Windows on X64 and ARM64)"
version="$(release_version)"
binary=vq
[ "${platform%_*}" != windows ] || binary=vq.exe

# The tool cache keeps one verified install per version and platform,
# marked complete only once the binary is in place.
cache="$(posix_path "${RUNNER_TOOL_CACHE:-$temp}")/vq/$version/$platform"
if [ ! -f "$cache.complete" ] || [ ! -x "$cache/$binary" ]; then
  rm -rf "$cache"
  install_release "$version" "$platform" "$cache" "$binary"
  touch "$cache.complete"
else
  say "vq $version from the tool cache"
fi
[ -z "${GITHUB_PATH:-}" ] || runner_path "$cache" >>"$GITHUB_PATH"

# The arguments, split into words as a shell would, without expanding or
# running anything: xargs reads quotes and backslashes and prints the words.
split="$(mktemp "$temp/vq-args.XXXXXX")"
printf '%s' "$VQ_ACTION_ARGS" | xargs printf '%s\0' >"$split" 2>/dev/null ||
  { rm -f "$split"; fail "cannot split the args input into words (an unmatched quote?)"; }
# The typed inputs are words as given, never split: a branch may hold ' or ".
read -r -a words <<<"${VQ_ACTION_COMMAND:-}"
[ -z "${VQ_ACTION_BRANCH:-}" ] || words+=("branch=$VQ_ACTION_BRANCH")
[ -z "${VQ_ACTION_COMMIT:-}" ] || words+=("commit=$VQ_ACTION_COMMIT")
[ "${VQ_ACTION_WAIT:-}" != true ] || words+=(--wait)
while IFS= read -r -d '' word; do words+=("$word"); done <"$split"
rm -f "$split"
[ -z "${VQ_ACTION_JUNIT:-}" ] || words+=(--junit "$VQ_ACTION_JUNIT")
[ -z "${VQ_ACTION_BASE_URL:-}" ] || export VQ_BASE_URL="$VQ_ACTION_BASE_URL"

code=0
"$cache/$binary" "${words[@]}" || code=$?
write_output exit-code "$code"
exit "$code"
