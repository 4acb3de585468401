// Package testkit is what the tests of vq's packages share to stand in for
// a VisualQ server: ToolResponse bodies built from a few arguments, and a
// fake invoke endpoint that answers from a script or a function of the
// call and records every call it received; and for an MCP server behind
// OAuth (OAuthServer), which records the sign-ins it authorized; a stdio
// MCP server of one large text answer that holds none of it
// (ServeStdioText), for measures of vq's memory; and ValidJUnit, the check
// of a JUnit report against the Jenkins schema.
//
// It is a leaf: it imports nothing of vq, so that the tests of every vq
// package (api's included) can use it, and it speaks plain JSON, HTTP and
// the MCP SDK rather than api's types. Nothing shipped imports it; the architecture
// test holds both rules.
package testkit
