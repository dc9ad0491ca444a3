// etsb-starlark evaluates BUILD files with go.starlark.net and prints the
// targets they declare as JSON.
//
//	etsb-starlark --root DIR [--jobs N] PKG [PKG ...]
//
// See README.md in this directory for the output format.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"go.starlark.net/resolve"
)

const usage = `usage: etsb-starlark --root DIR [--jobs N] PKG [PKG ...]

Evaluates DIR/PKG/BUILD.bazel (or DIR/PKG/BUILD) for every PKG ("" or "." is
the root package) and prints the declared targets as JSON on stdout.
Exit status: 0 all packages evaluated, 1 some package has an error, 2 usage.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError is a problem with the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

type options struct {
	root string
	jobs int
	pkgs []string
}

func parseArgs(args []string) (*options, error) {
	opts := &options{jobs: runtime.NumCPU()}
	rootSet := false
	onlyPositional := false
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if onlyPositional || arg == "" || arg == "." || !strings.HasPrefix(arg, "-") {
			opts.pkgs = append(opts.pkgs, arg)
			continue
		}
		if arg == "--" {
			onlyPositional = true
			continue
		}
		if arg == "-h" || arg == "--help" {
			return nil, usageError{""}
		}
		name, value, hasValue := arg, "", false
		if eq := strings.IndexByte(arg, '='); eq >= 0 {
			name, value, hasValue = arg[:eq], arg[eq+1:], true
		}
		switch name {
		case "--root", "--jobs":
		default:
			return nil, usageError{fmt.Sprintf("unknown option '%s'", name)}
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, usageError{fmt.Sprintf("option '%s' needs a value", name)}
			}
			i++
			value = args[i]
		}
		switch name {
		case "--root":
			opts.root, rootSet = value, true
		case "--jobs":
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 {
				return nil, usageError{fmt.Sprintf("--jobs wants a positive integer, got '%s'", value)}
			}
			opts.jobs = n
		}
	}
	if !rootSet || opts.root == "" {
		return nil, usageError{"missing --root DIR"}
	}
	if len(opts.pkgs) == 0 {
		return nil, usageError{"no package given"}
	}
	for i, p := range opts.pkgs {
		norm, err := normalizePackage(p)
		if err != nil {
			return nil, err
		}
		opts.pkgs[i] = norm
	}
	return opts, nil
}

// normalizePackage turns a command-line package into a clean path relative to
// the root: "" for the root package, no leading "//", no trailing "/".
func normalizePackage(p string) (string, error) {
	p = strings.TrimPrefix(p, "//")
	p = strings.TrimRight(p, "/")
	if p == "" || p == "." {
		return "", nil
	}
	if strings.HasPrefix(p, "/") || filepath.IsAbs(p) {
		return "", usageError{fmt.Sprintf("package '%s' must be relative to the root", p)}
	}
	clean := path.Clean(p)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", usageError{fmt.Sprintf("package '%s' escapes the workspace root", p)}
	}
	if clean == "." {
		return "", nil
	}
	return clean, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	opts, err := parseArgs(args)
	if err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintf(stderr, "etsb-starlark: %s\n", msg)
		}
		fmt.Fprint(stderr, usage)
		if err.Error() == "" {
			return 0
		}
		return 2
	}
	root, err := filepath.Abs(opts.root)
	if err == nil {
		var st os.FileInfo
		if st, err = os.Stat(root); err == nil && !st.IsDir() {
			err = fmt.Errorf("not a directory")
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "etsb-starlark: bad --root '%s': %v\n", opts.root, err)
		return 2
	}

	// Bazel's dialect: top-level names are bound once, no while loops or
	// recursion; set() is available.
	resolve.AllowSet = true
	resolve.AllowGlobalReassign = false
	resolve.AllowRecursion = false
	resolve.LoadBindsGlobally = false

	ev := newEvaluator(root, stderr)
	results := make([]*pkgResult, len(opts.pkgs))
	jobs := opts.jobs
	if jobs > len(opts.pkgs) {
		jobs = len(opts.pkgs)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = ev.evalPackage(opts.pkgs[i])
			}
		}()
	}
	for i := range opts.pkgs {
		next <- i
	}
	close(next)
	wg.Wait()

	out := bufio.NewWriterSize(stdout, 1<<16)
	status := 0
	writeResults(out, results)
	for _, r := range results {
		if r.err != nil {
			status = 1
		}
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "etsb-starlark: writing output: %v\n", err)
		return 1
	}
	return status
}
