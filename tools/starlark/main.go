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
	"syscall"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
)

const usage = `usage: etsb-starlark --root DIR [--jobs N] [--max-memory-mb M] [REPOSITORIES] PKG [PKG ...]
       etsb-starlark --root DIR [REPOSITORIES] --globals //pkg:file.bzl

REPOSITORIES: --external-dir D (where external/NAME lives, relative to DIR),
--repository NAME[=OVERLAY] (an external repository; OVERLAY holds its BUILD
files), --main-name NAME ('@NAME//' is the main repository). Repeatable.
PRELUDE: --prelude LABEL (a .bzl file whose public globals every BUILD file
sees without a load, as Buck2's prelude; they win over built-ins of the same name).
EMULATE: --emulate etsb|buck2 (default etsb): the rules and names BUILD and .bzl
files see, the driver's or Buck2's (its prelude's attributes, read_config, no Label).

Evaluates DIR/PKG/BUILD.bazel (or DIR/PKG/BUILD) for every PKG ("" or "." is
the root package) and prints the declared targets as JSON on stdout; with
--globals, prints the public values a .bzl file defines (functions left out).
Exit status: 0 all packages evaluated, 1 some package has an error, 2 usage.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError is a problem with the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

type options struct {
	root        string
	jobs        int
	pkgs        []string
	globals     string // a .bzl label: print its values instead of evaluating packages
	maxMemoryMB int
	repos       repositories
	prelude     string // a .bzl label whose public globals BUILD files see without a load
	dialect     string // the build system emulated (--emulate)
}

// parseArgs reads the command line: --root DIR, --jobs N, and the packages.
func parseArgs(args []string) (*options, error) {
	opts := &options{jobs: runtime.NumCPU(), maxMemoryMB: 4096, dialect: "etsb",
		repos: repositories{overlays: map[string]string{}, mainNames: map[string]bool{}}}
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
		if !knownOptions[name] {
			return nil, usageError{fmt.Sprintf("unknown option '%s'", name)}
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, usageError{fmt.Sprintf("option '%s' needs a value", name)}
			}
			i++
			value = args[i]
		}
		if err := opts.set(name, value); err != nil {
			return nil, err
		}
		rootSet = rootSet || name == "--root"
	}
	if !rootSet || opts.root == "" {
		return nil, usageError{"missing --root DIR"}
	}
	if opts.globals != "" {
		if len(opts.pkgs) > 0 {
			return nil, usageError{"--globals takes no packages"}
		}
		return opts, nil
	}
	return opts, opts.normalizePackages()
}

var knownOptions = map[string]bool{"--root": true, "--jobs": true, "--globals": true, "--max-memory-mb": true,
	"--external-dir": true, "--repository": true, "--main-name": true, "--prelude": true,
	"--emulate": true}

// set records the value of option name.
func (opts *options) set(name, value string) error {
	switch name {
	case "--external-dir":
		if value == "" || path.IsAbs(value) || strings.HasPrefix(path.Clean(value), "..") {
			return usageError{fmt.Sprintf("--external-dir wants a directory inside the root, got '%s'", value)}
		}
		opts.repos.dir = path.Clean(value)
	case "--repository", "--main-name":
		return opts.repos.add(name, value)
	case "--root":
		opts.root = value
	case "--prelude":
		opts.prelude = value
	case "--emulate":
		opts.dialect = value
		return checkDialect(value)
	case "--globals":
		opts.globals = value
	case "--jobs", "--max-memory-mb":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 {
			return usageError{fmt.Sprintf("%s wants a positive integer, got '%s'", name, value)}
		}
		if name == "--jobs" {
			opts.jobs = n
		} else {
			opts.maxMemoryMB = n
		}
	}
	return nil
}

// normalizePackages checks that packages were given and normalises each.
func (opts *options) normalizePackages() error {
	if len(opts.pkgs) == 0 {
		return usageError{"no package given"}
	}
	for i, p := range opts.pkgs {
		norm, err := normalizePackage(p)
		if err != nil {
			return err
		}
		opts.pkgs[i] = norm
	}
	return nil
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

// run is the whole program: arguments in, JSON on stdout, the exit status out.
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
	root, err := checkedRoot(opts.root)
	if err != nil {
		fmt.Fprintf(stderr, "etsb-starlark: bad --root '%s': %v\n", opts.root, err)
		return 2
	}
	if err := limitMemory(opts.maxMemoryMB); err != nil {
		fmt.Fprintf(stderr, "etsb-starlark: cannot limit memory: %v\n", err)
		return 2
	}
	useBazelDialect()
	if opts.globals != "" {
		return printGlobals(opts.evaluator(root, stderr), opts.globals, stdout, stderr)
	}
	results := evalAll(opts.evaluator(root, stderr), opts.pkgs, opts.jobs)
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

// evaluator is a new evaluator of the workspace root with the options' repositories.
func (opts *options) evaluator(root string, stderr io.Writer) *evaluator {
	ev := newDialectEvaluator(root, opts.dialect, stderr)
	ev.repos = opts.repos
	ev.prelude = opts.prelude
	return ev
}

// checkedRoot is --root as an absolute path to a directory.
func checkedRoot(dir string) (string, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(root)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", fmt.Errorf("not a directory")
	}
	return root, nil
}

// useBazelDialect sets the language options of Bazel's Starlark: top-level
// names are bound once, no recursion; set() is available.
func useBazelDialect() {
	resolve.AllowSet = true
	resolve.AllowGlobalReassign = false
	resolve.AllowRecursion = false
	resolve.LoadBindsGlobally = false
}

// evalAll evaluates the packages, jobs at a time; the results are in the packages' order.
func evalAll(ev *evaluator, pkgs []string, jobs int) []*pkgResult {
	results := make([]*pkgResult, len(pkgs))
	if jobs > len(pkgs) {
		jobs = len(pkgs)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = ev.evalPackage(pkgs[i])
			}
		}()
	}
	for i := range pkgs {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// printGlobals prints the public values of the .bzl file label names, as one
// JSON object sorted by name (functions are left out); the exit status.
func printGlobals(ev *evaluator, label string, stdout, stderr io.Writer) int {
	file, pkg, err := ev.resolveLabel(label, "")
	if err == nil {
		var globals starlark.StringDict
		if globals, err = ev.load(ev.get(file, pkg)); err == nil {
			var buf []byte
			if buf, err = appendGlobals(nil, globals); err == nil {
				buf = append(buf, '\n')
				if _, err = stdout.Write(buf); err == nil {
					return 0
				}
			}
		}
	}
	if evalErr, ok := err.(*starlark.EvalError); ok {
		fmt.Fprintf(stderr, "etsb-starlark: %s\n", evalErr.Backtrace())
	} else {
		fmt.Fprintf(stderr, "etsb-starlark: %v\n", err)
	}
	return 1
}

// limitMemory caps the process's data segment (the Go heap lives there) at
// mb megabytes, so that a BUILD file building huge values stops the
// evaluator ("out of memory") instead of exhausting the machine.
func limitMemory(mb int) error {
	limit := uint64(mb) << 20
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: limit, Max: limit})
}
