// Command gendocs writes vq's man pages and Markdown docs from the command tree, at release;
// a program of its own so its dependencies stay out of vq's start-up.
//
//	go run ./cmd/gendocs --dir manpages --man
//	go run ./cmd/gendocs --dir docs/commands --markdown
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/visualq/vq/cmd"
	"github.com/visualq/vq/cmd/cmdutil"
)

func main() {
	dir := flag.String("dir", "", "directory to write into (created if missing)")
	man := flag.Bool("man", false, "write man pages (section 1)")
	markdown := flag.Bool("markdown", false, "write Markdown pages")
	flag.Parse()
	if *dir == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gendocs --dir DIR [--man] [--markdown]")
		os.Exit(2)
	}
	if !*man && !*markdown {
		*man, *markdown = true, true
	}
	n, err := generate(cmd.NewRootCmd(cmdutil.NewFactory(cmd.Version())), *dir, *man, *markdown)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "wrote %d files in %s\n", n, filepath.Clean(*dir))
}

// generate writes root's pages into dir and says how many files dir holds.
func generate(root *cobra.Command, dir string, man, markdown bool) (int, error) {
	// No dated "Auto generated" line: a release's pages must be reproducible.
	root.DisableAutoGenTag = true
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	// The trees skip help topics (not "available" to cobra): each is written apart.
	var topics []*cobra.Command
	for _, c := range root.Commands() {
		if c.IsAdditionalHelpTopicCommand() {
			topics = append(topics, c)
		}
	}
	if man {
		header := &doc.GenManHeader{Title: "VQ", Section: "1", Source: "vq " + cmd.Version(), Manual: "vq manual"}
		err := genPages(dir, topics, "vq-%s.1", func() error { return doc.GenManTree(root, header, dir) },
			func(c *cobra.Command, w io.Writer) error { return doc.GenMan(c, header, w) })
		if err != nil {
			return 0, fmt.Errorf("man pages: %w", err)
		}
	}
	if markdown {
		err := genPages(dir, topics, "vq_%s.md", func() error { return doc.GenMarkdownTree(root, dir) }, doc.GenMarkdown)
		if err != nil {
			return 0, fmt.Errorf("markdown pages: %w", err)
		}
	}
	entries, err := os.ReadDir(dir)
	return len(entries), err
}

// genPages writes a tree of pages, then one per help topic, named by nameFmt.
func genPages(dir string, topics []*cobra.Command, nameFmt string, tree func() error, page func(*cobra.Command, io.Writer) error) error {
	err := tree()
	for _, c := range topics {
		if err == nil {
			err = writeDoc(filepath.Join(dir, fmt.Sprintf(nameFmt, c.Name())), func(w io.Writer) error { return page(c, w) })
		}
	}
	return err
}

func writeDoc(path string, gen func(io.Writer) error) error {
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	err = gen(file)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return err
}
