#!/usr/bin/env bash
# Install vq from its GitHub release: the archive for this OS and
# architecture, checked against the release's checksums.txt (and that file's
# cosign signature when cosign is installed), its binary refused unless it
# is a regular file, installed into $BINDIR (default ~/.local/bin).
#
#   curl -fsSLO https://raw.githubusercontent.com/visualq/vq/main/scripts/install.sh
#   less install.sh                 # read it first
#   bash install.sh                 # the newest release
#   bash install.sh --version 1.4.2 # one release
#   BINDIR=/usr/local/bin bash install.sh
#
# Nothing downloaded is ever run by a shell. The GitHub Action's script
# (scripts/action/install-and-run.sh) sources this file for the same
# platform, checksum and unpacking steps; sourced, it only defines them.
#
# Environment: BINDIR; VQ_VERSION (as --version); VQ_INSTALL_GITHUB_URL,
# where releases are (https://github.com; tests and mirrors set it).
set -euo pipefail

say() { printf '%s: %s\n' "${say_prefix:-vq install}" "$*" >&2; }
fail() { say "$*"; exit 1; }

# archive_platform OS ARCH: the archive's OS_ARCH as .goreleaser.yaml names
# them (linux_amd64 ...), for uname's names and a GitHub runner's alike;
# empty when vq has no archive for them.
archive_platform() {
  local os arch
  case "$1" in
    Linux | linux) os=linux ;;
    Darwin | macOS | darwin) os=darwin ;;
    Windows | MINGW* | MSYS* | CYGWIN* | windows) os=windows ;;
    *) os="" ;;
  esac
  case "$2" in
    X64 | x86_64 | amd64) arch=amd64 ;;
    ARM64 | aarch64 | arm64) arch=arm64 ;;
    *) arch="" ;;
  esac
  if [ -n "$os" ] && [ -n "$arch" ]; then echo "${os}_${arch}"; fi
}

is_release() { [[ "$1" =~ ^v?[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$ ]]; }

sha256() {
  if command -v sha256sum >/dev/null; then
    sha256sum "$1" | awk '{ print $1 }'
  else
    shasum -a 256 "$1" | awk '{ print $1 }'
  fi
}

download() { # URL FILE: https only once redirected
  curl --fail --silent --show-error --location --retry 3 --proto-redir '=https' --output "$2" "$1"
}

# verify_signature DIR VERSION: with cosign installed, checksums.txt must
# carry the release workflow's keyless signature for tag vVERSION.
verify_signature() {
  command -v cosign >/dev/null || return 0
  local dir="$1" version="$2"
  download "$url/checksums.txt.sigstore.json" "$dir/checksums.txt.sigstore.json" ||
    fail "cannot download $url/checksums.txt.sigstore.json to check checksums.txt's signature"
  cosign verify-blob --bundle "$dir/checksums.txt.sigstore.json" \
    --certificate-identity "https://github.com/$repository/.github/workflows/release.yml@refs/tags/v$version" \
    --certificate-oidc-issuer https://token.actions.githubusercontent.com \
    "$dir/checksums.txt" >/dev/null 2>&1 ||
    fail "refusing vq $version: checksums.txt does not carry the release workflow's cosign signature"
  say "checksums.txt carries the release workflow's signature (cosign)"
}

# install_release VERSION PLATFORM DIR BINARY: download the archive and
# checksums.txt, refuse an archive whose digest is not the one listed, or
# whose binary is no regular file (a link would make chmod +x, and the run,
# reach a file outside it), and unpack the binary into DIR.
install_release() {
  local version="$1" platform="$2" dir="$3" binary="$4" archive ext want got listing file
  ext=tar.gz
  [ "${platform%_*}" != windows ] || ext=zip
  archive="vq_${version}_${platform}.${ext}"
  url="$github/$repository/releases/download/v$version"
  tmp="$(mktemp -d "${temp:-${TMPDIR:-/tmp}}/vq-download.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  say "installing vq $version ($archive) from $url"
  for file in "$archive" checksums.txt; do
    download "$url/$file" "$tmp/$file" || fail "cannot download $url/$file"
  done
  verify_signature "$tmp" "$version"
  want="$(awk -v f="$archive" '$2 == f || $2 == "*"f { print $1 }' "$tmp/checksums.txt")"
  got="$(sha256 "$tmp/$archive")"
  if [ -z "$want" ] || [ "$want" != "$got" ]; then
    fail "refusing $archive: its SHA-256 $got is not the one checksums.txt lists (${want:-none})"
  fi
  # Each entry of that name, listed as ls -l does: - is a regular file, l
  # a symbolic link, h a hard link. The listing is not shown: it is the
  # archive's text.
  if [ "$ext" = zip ]; then
    listing="$(unzip -Z "$tmp/$archive" "$binary" 2>/dev/null)" || listing=""
  else
    listing="$(tar -tvzf "$tmp/$archive" "$binary" 2>/dev/null)" || listing=""
  fi
  if [ -z "$listing" ] || grep -qv '^-' <<<"$listing"; then
    fail "refusing $archive: its $binary is not a regular file (a link, or missing)"
  fi
  mkdir -p "$tmp/unpacked"
  if [ "$ext" = zip ]; then
    unzip -q -o "$tmp/$archive" "$binary" -d "$tmp/unpacked"
  else
    tar -xzf "$tmp/$archive" -C "$tmp/unpacked" "$binary"
  fi
  mkdir -p "$dir"
  mv "$tmp/unpacked/$binary" "$dir/$binary"
  chmod +x "$dir/$binary"
  rm -rf "$tmp"
}

# latest_version: the tag releases/latest redirects to, not followed.
latest_version() {
  local location
  location="$(curl --fail --silent --show-error --output /dev/null --write-out '%{redirect_url}' "$github/$repository/releases/latest")" ||
    fail "cannot ask $github/$repository for its newest release: give one with --version"
  location="${location##*/tag/}"
  is_release "$location" || fail "$github/$repository named no release as its newest: give one with --version"
  echo "${location#v}"
}

main() {
  local version="${VQ_VERSION:-}" platform bindir="${BINDIR:-$HOME/.local/bin}"
  while [ $# -gt 0 ]; do
    case "$1" in
      --version) [ $# -ge 2 ] || fail "--version needs a release, such as --version 1.4.2"; version="$2"; shift 2 ;;
      --version=*) version="${1#--version=}"; shift ;;
      -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
      *) fail "unknown argument '$1' (usage: install.sh [--version X.Y.Z]; BINDIR=DIR sets where)" ;;
    esac
  done
  platform="$(archive_platform "$(uname -s)" "$(uname -m)")"
  [ -n "$platform" ] || fail "vq has no release archive for $(uname -s) on $(uname -m) (there are archives for Linux, macOS and Windows on amd64 and arm64)"
  [ "${platform%_*}" != windows ] || fail "on Windows, install vq with scoop or winget (README, Install)"
  if [ -z "$version" ]; then
    version="$(latest_version)"
  fi
  is_release "$version" || fail "'$version' is not a release version (such as 1.4.2)"
  version="${version#v}"
  install_release "$version" "$platform" "$bindir" vq
  say "installed vq $version as $bindir/vq"
  case ":$PATH:" in
    *":$bindir:"*) ;;
    *) say "$bindir is not on your PATH: add it (export PATH=\"$bindir:\$PATH\") to run vq" ;;
  esac
}

github="${VQ_INSTALL_GITHUB_URL:-https://github.com}"
repository="visualq/vq"
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  main "$@"
fi
