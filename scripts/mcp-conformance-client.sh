#!/usr/bin/env bash
# Adapter between the MCP conformance runner (@modelcontextprotocol/conformance
# client mode) and vq: the runner starts a scenario's test server, then runs
# this script with the server URL as its last argument and the scenario name
# in MCP_CONFORMANCE_SCENARIO (some scenarios add JSON in
# MCP_CONFORMANCE_CONTEXT). Each scenario maps to the vq commands a user
# would run. VQ_BIN names the vq binary (default: vq on PATH).
set -euo pipefail

url="${*: -1}"
vq="${VQ_BIN:-vq}"
scenario="${MCP_CONFORMANCE_SCENARIO:?the conformance runner sets MCP_CONFORMANCE_SCENARIO}"

# A private config per run: no stored key or token leaks between scenarios.
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
export VQ_CONFIG="$home/config.json" VQ_NO_KEYRING=1 VQ_NO_TUI=1

mcp() { "$vq" --endpoint "$url" --no-retry "$@"; }

case "$scenario" in
  initialize)
    mcp tools ;;
  tools_call)
    mcp tools
    mcp invoke add_numbers a:=5 b:=3 ;;
  sse-retry)
    mcp tools
    mcp invoke test_reconnection ;;
  elicitation-sep1034-client-defaults)
    mcp tools
    mcp invoke test_client_elicitation_defaults --elicit-defaults ;;
  request-metadata | json-schema-ref-no-deref)
    mcp tools ;;
  json-schema-2020-12-preservation)
    # The focal tool's schema, as vq tools --json carries it, echoed back.
    schema="$(mcp tools --jq '.data.tools[] | select(.name == "json_schema_2020_12_tool") | .inputSchema | tojson')"
    mcp invoke json_schema_echo "schema:=$schema" ;;
  sep-2322-client-request-state)
    for tool in test_mrtr_echo_state test_mrtr_no_state test_mrtr_unrelated test_mrtr_no_result_type; do
      mcp invoke "$tool" --elicit-defaults || true
    done ;;
  http-standard-headers)
    tool="$(mcp tools --jq '.data.tools[0].name')"
    mcp invoke "$tool" || true
    uri="$(mcp mcp resources --jq '.data.resources[0].uri')"
    mcp mcp resource "$uri" || true
    prompt="$(mcp mcp prompts --jq '.data.prompts[0].name')"
    mcp mcp prompt "$prompt" || true ;;
  http-custom-headers)
    # The runner names the calls to make in MCP_CONFORMANCE_CONTEXT.
    mcp tools >/dev/null
    while IFS= read -r call; do
      [ -n "$call" ] || continue
      mcp invoke "${call%% *}" --args "${call#* }" || true
    done < <(printf '%s' "${MCP_CONFORMANCE_CONTEXT:-{\}}" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{for(const c of (JSON.parse(s).toolCalls||[]))console.log(c.name+" "+JSON.stringify(c.arguments||{}))})') ;;
  http-invalid-tool-headers)
    for tool in $(mcp tools --jq '.data.tools[].name'); do
      mcp invoke "$tool" region=us-west1 || true
    done ;;
  auth/*)
    if [ -n "${MCP_CONFORMANCE_CONTEXT:-}" ]; then
      VQ_OAUTH_CLIENT_ID="$(printf '%s' "$MCP_CONFORMANCE_CONTEXT" | sed -n 's/.*"client_id" *: *"\([^"]*\)".*/\1/p')"
      VQ_OAUTH_CLIENT_SECRET="$(printf '%s' "$MCP_CONFORMANCE_CONTEXT" | sed -n 's/.*"client_secret" *: *"\([^"]*\)".*/\1/p')"
      export VQ_OAUTH_CLIENT_ID VQ_OAUTH_CLIENT_SECRET
    fi
    # The suite's authorization servers approve at once: headless vq
    # follows the authorization URL where a person would use the browser,
    # at the login and at a sign-in again inside a refused call (step-up).
    export VQ_OAUTH_HEADLESS=1
    login=(auth login --oauth)
    # The client id the suite expects as a Client ID Metadata Document; its
    # authorization server does not fetch it.
    [ "$scenario" = auth/basic-cimd ] && login+=(--client-metadata-url https://conformance-test.local/client-metadata.json)
    mcp "${login[@]}"
    mcp tools
    mcp invoke test-tool ;;
  *)
    echo "mcp-conformance-client: no vq mapping for scenario $scenario" >&2
    exit 2 ;;
esac
