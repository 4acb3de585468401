package cmdtest

import (
	"bytes"
	"context"
	"testing"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
)

// Parse runs newCmd on args with runF replaced, testing flag parsing apart
// from the network: it returns the options it would run with, or its error.
func Parse[T any](t *testing.T, newCmd func(*cmdutil.Factory, func(context.Context, T) error) *cobra.Command, args ...string) (got T, ran bool, err error) {
	t.Helper()
	c := newCmd(NewFactory(), func(_ context.Context, v T) error { got, ran = v, true; return nil })
	return got, ran, Execute(c, args...)
}

// NewFactory is a factory with buffer streams and an empty environment.
func NewFactory() *cmdutil.Factory {
	return &cmdutil.Factory{IOStreams: &iostreams.IOStreams{In: &bytes.Buffer{}, Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
}

// Execute runs c on args, its output discarded.
func Execute(c *cobra.Command, args ...string) error {
	c.SetArgs(args)
	c.SetOut(&bytes.Buffer{})
	c.SetErr(&bytes.Buffer{})
	return c.ExecuteContext(context.Background())
}
