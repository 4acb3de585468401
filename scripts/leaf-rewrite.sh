#!/bin/sh
# leaf-rewrite.sh rewrites cmd/'s references to what moved from format to
# the leaf packages internal/textsafe, internal/exitcode and internal/layout,
# and fixes cmd's imports to match. It changes only files under cmd/, needs
# only gofmt, sed and grep, and running it again changes nothing.
#
#	sh scripts/leaf-rewrite.sh    # from anywhere in the repository
set -eu
cd "$(git rev-parse --show-toplevel)"
files=$(grep -rl --include='*.go' 'format\.' cmd || true)
[ -n "$files" ] || exit 0

# Calls whose arguments change: the leaves take what they need of a
# response, not the response.
for rule in \
	'format.ForResponse(r) -> exitcode.Of(exitcode.Shown(r))' \
	'&format.ResponseError{Response: r} -> exitcode.Shown(r)' \
	'format.ChecksOf(r) -> layout.ChecksOf(r.Data)' \
	'format.LayoutResponse(r) -> layout.Response(r.Data, r.DataMembers)' \
	'format.ShowsSummary(r) -> layout.ShowsSummary(r.OK, r.Summary, r.ErrorMessage())' \
	'format.RecoverableText(r) -> exitcode.RecoverableText(r.IsRecoverable())'; do
	gofmt -r "$rule" -w $files
done

# Names that moved, renamed where the package name now says it.
sed -i -E \
	-e 's/\bformat\.ExitCodes\b/exitcode.Table/g' \
	-e 's/\bformat\.ExitCode\b/exitcode.Row/g' \
	-e 's/\bformat\.WriteExitCodes\b/exitcode.WriteTable/g' \
	-e 's/\bformat\.ExitError\b/exitcode.Error/g' \
	-e 's/\bformat\.Exit(OK|Internal|Usage|RunFailed|Unauthorized|Timeout|RunError|RunCancelled|Interrupted|Terminated)\b/exitcode.\1/g' \
	-e 's/\bformat\.Exit\b/exitcode.Of/g' \
	-e 's/\bformat\.(UsageError|Usagef|ResponseError|ErrTerminated|Silent)\b/exitcode.\1/g' \
	-e 's/\bformat\.(Sanitize|SanitizeLine|ShellQuote|DisplayWidth|WriteJSON|EscapeJSON)\b/textsafe.\1/g' \
	-e 's/\bformat\.LayoutData\b/layout.Data/g' \
	-e 's/\bformat\.(Check|Checks|Node|ParseNode|Table|Records|Layout|Field|TitledTable)\b/layout.\1/g' \
	$files

# Imports: add each leaf a file now uses, drop format where it no longer
# is; gofmt sorts the block.
for f in $files; do
	for leaf in textsafe exitcode layout; do
		if grep -q "\b$leaf\." "$f" && ! grep -q "\"github.com/visualq/vq/internal/$leaf\"" "$f"; then
			sed -i "s#^\(\t*\)\"github.com/visualq/vq/format\"#&\n\1\"github.com/visualq/vq/internal/$leaf\"#" "$f"
		fi
	done
	if ! grep -q '\bformat\.' "$f"; then
		sed -i '\#^\t*"github.com/visualq/vq/format"$#d' "$f"
	fi
done
gofmt -w $files
