package main

// Labels, the shared cache of .bzl modules, and the evaluation of one package.
//
// Load cycles are found before anything runs: when a .bzl file is first
// asked for, it and everything it loads are read, parsed and compiled (under
// one lock), and the load graph below it is searched for a cycle. A module
// with no cycle below it can then be executed under a sync.Once without any
// risk of two goroutines waiting on each other, and every module's result
// (globals or error) is the same whichever package asked first.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

type evaluator struct {
	root        string
	predeclared starlark.StringDict

	mu      sync.Mutex // guards modules and the static fields of every module
	modules map[string]*module

	buildFiles sync.Map // package path -> string ("" when the directory has no BUILD file)
	callStarts sync.Map // file -> map[lparen key]syntax.Position, see callPos

	stderrMu sync.Mutex
	stderr   io.Writer
}

// module is one .bzl file.
type module struct {
	path string // relative to the root
	pkg  string

	// Static part, filled in by analyze under evaluator.mu.
	analyzed     bool
	read         bool // the file was read (it is one of the "files")
	prog         *starlark.Program
	staticErr    error // read, syntax or resolve error
	edges        map[string]*edge
	order        []*edge // edges in load-statement order
	cycleChecked bool
	cycleErr     error
	closure      []string // this file and every file it loads, transitively, sorted

	// Dynamic part.
	once    sync.Once
	globals starlark.StringDict
	err     error
}

// edge is one load statement's label, resolved.
type edge struct {
	label  string
	target *module // nil when err != nil
	err    error
}

func newEvaluator(root string, stderr io.Writer) *evaluator {
	ev := &evaluator{root: root, modules: map[string]*module{}, stderr: stderr}
	ev.predeclared = predeclared()
	return ev
}

// buildFile returns the BUILD file of package pkg relative to the root, or ""
// when the package directory has neither BUILD.bazel nor BUILD.
func (ev *evaluator) buildFile(pkg string) string {
	if v, ok := ev.buildFiles.Load(pkg); ok {
		return v.(string)
	}
	found := ""
	for _, name := range []string{"BUILD.bazel", "BUILD"} {
		rel := path.Join(pkg, name)
		if st, err := os.Stat(ev.abs(rel)); err == nil && !st.IsDir() {
			found = rel
			break
		}
	}
	ev.buildFiles.Store(pkg, found)
	return found
}

func (ev *evaluator) abs(rel string) string {
	return filepath.Join(ev.root, filepath.FromSlash(rel))
}

// ---------------------------------------------------------------- labels

// resolveLabel turns a load label into the loaded file's path relative to
// the root and its package. from is the package of the loading file.
func (ev *evaluator) resolveLabel(label, from string) (file, pkg string, err error) {
	rest := label
	if strings.HasPrefix(rest, "@//") {
		rest = rest[1:]
	} else if strings.HasPrefix(rest, "@") {
		return "", "", fmt.Errorf("invalid label '%s': external repositories are not supported", label)
	}
	var name string
	switch {
	case strings.HasPrefix(rest, "//"):
		body := rest[2:]
		colon := strings.IndexByte(body, ':')
		if colon < 0 {
			return "", "", fmt.Errorf("invalid label '%s': no ':' before the file name (write '//pkg:file.bzl')", label)
		}
		pkg, name = body[:colon], body[colon+1:]
	case strings.HasPrefix(rest, ":"):
		pkg, name = from, rest[1:]
	default:
		return "", "", fmt.Errorf("invalid label '%s': a label starts with '//', '@//' or ':'", label)
	}
	if pkg != "" {
		if strings.HasPrefix(pkg, "/") {
			return "", "", fmt.Errorf("label '%s' escapes the workspace root", label)
		}
		for _, seg := range strings.Split(pkg, "/") {
			switch seg {
			case ".", "..":
				return "", "", fmt.Errorf("label '%s' escapes the workspace root", label)
			case "":
				return "", "", fmt.Errorf("invalid label '%s': empty package path segment", label)
			}
		}
	}
	if name == "" {
		return "", "", fmt.Errorf("invalid label '%s': empty file name", label)
	}
	if strings.HasPrefix(name, "/") {
		return "", "", fmt.Errorf("label '%s' escapes the workspace root", label)
	}
	if strings.ContainsAny(name, ":\\") {
		return "", "", fmt.Errorf("invalid label '%s': bad character in file name", label)
	}
	for _, seg := range strings.Split(name, "/") {
		switch seg {
		case ".", "..":
			return "", "", fmt.Errorf("label '%s' escapes the workspace root", label)
		case "":
			return "", "", fmt.Errorf("invalid label '%s': empty path segment in file name", label)
		}
	}
	if !strings.HasSuffix(name, ".bzl") {
		return "", "", fmt.Errorf("cannot load '%s': only .bzl files can be loaded", label)
	}
	if ev.buildFile(pkg) == "" {
		return "", "", fmt.Errorf("no such package '%s' (no BUILD file in %s)", pkg, ev.abs(pkg))
	}
	// A file belongs to its nearest enclosing package: the label must not
	// reach into a subdirectory that is a package of its own.
	if dir := path.Dir(name); dir != "." {
		for d := dir; d != "."; d = path.Dir(d) {
			sub := path.Join(pkg, d)
			if ev.buildFile(sub) != "" {
				return "", "", fmt.Errorf("label '%s' crosses into package '%s' (write '//%s:%s')",
					label, sub, sub, strings.TrimPrefix(name, d+"/"))
			}
		}
	}
	file = path.Join(pkg, name)
	if st, err := os.Stat(ev.abs(file)); err != nil || st.IsDir() {
		return "", "", fmt.Errorf("no such file '%s'", file)
	}
	return file, pkg, nil
}

// ---------------------------------------------------------------- modules

// get returns the module for file (of package pkg), read, compiled, with its
// whole load graph analysed and checked for cycles.
func (ev *evaluator) get(file, pkg string) *module {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	m := ev.moduleLocked(file, pkg)
	ev.analyzeLocked(m)
	ev.checkCycleLocked(m)
	ev.closureLocked(m)
	return m
}

func (ev *evaluator) moduleLocked(file, pkg string) *module {
	m, ok := ev.modules[file]
	if !ok {
		m = &module{path: file, pkg: pkg}
		ev.modules[file] = m
	}
	return m
}

// analyzeLocked reads and compiles m and, recursively, everything it loads.
func (ev *evaluator) analyzeLocked(m *module) {
	if m.analyzed {
		return
	}
	m.analyzed = true
	src, err := os.ReadFile(ev.abs(m.path))
	if err != nil {
		m.staticErr = fmt.Errorf("cannot read '%s': %v", m.path, err)
		return
	}
	m.read = true
	f, prog, err := starlark.SourceProgram(m.path, src, ev.predeclared.Has)
	if f != nil {
		ev.indexCalls(f)
	}
	if err != nil {
		m.staticErr = err
		return
	}
	m.prog = prog
	m.edges = map[string]*edge{}
	for i := 0; i < prog.NumLoads(); i++ {
		label, _ := prog.Load(i)
		if _, dup := m.edges[label]; dup {
			continue
		}
		e := &edge{label: label}
		file, pkg, err := ev.resolveLabel(label, m.pkg)
		if err != nil {
			e.err = err
		} else {
			e.target = ev.moduleLocked(file, pkg)
			ev.analyzeLocked(e.target)
		}
		m.edges[label] = e
		m.order = append(m.order, e)
	}
}

// checkCycleLocked sets m.cycleErr when a load cycle is reachable from m.
// The cycle named is the first one a depth-first search from m meets, in
// load-statement order, so the message does not depend on timing.
func (ev *evaluator) checkCycleLocked(root *module) {
	if root.cycleChecked {
		return
	}
	var stack []*module
	onStack := map[*module]bool{}
	var visit func(m *module) []*module
	visit = func(m *module) []*module {
		if m.cycleChecked && m.cycleErr == nil {
			return nil
		}
		if onStack[m] {
			for i, s := range stack {
				if s == m {
					return append(append([]*module{}, stack[i:]...), m)
				}
			}
		}
		stack = append(stack, m)
		onStack[m] = true
		for _, e := range m.order {
			if e.target != nil {
				if cycle := visit(e.target); cycle != nil {
					return cycle
				}
			}
		}
		stack = stack[:len(stack)-1]
		onStack[m] = false
		m.cycleChecked = true // nothing below m cycles
		return nil
	}
	if cycle := visit(root); cycle != nil {
		names := make([]string, len(cycle))
		for i, m := range cycle {
			names[i] = m.path
		}
		root.cycleChecked = true
		root.cycleErr = fmt.Errorf("load cycle: %s", strings.Join(names, " -> "))
	}
}

// closureLocked computes the files read to load m.
func (ev *evaluator) closureLocked(root *module) {
	if root.closure != nil {
		return
	}
	seen := map[*module]bool{}
	var files []string
	var visit func(m *module)
	visit = func(m *module) {
		if seen[m] {
			return
		}
		seen[m] = true
		if m.read {
			files = append(files, m.path)
		}
		for _, e := range m.order {
			if e.target != nil {
				visit(e.target)
			}
		}
	}
	visit(root)
	sort.Strings(files)
	root.closure = files
}

// load returns the globals of m, executing it the first time.
func (ev *evaluator) load(m *module) (starlark.StringDict, error) {
	if m.staticErr != nil {
		return nil, m.staticErr
	}
	if m.cycleErr != nil {
		return nil, m.cycleErr
	}
	m.once.Do(func() {
		thread := &starlark.Thread{Name: m.path, Print: ev.print}
		thread.Load = func(_ *starlark.Thread, label string) (starlark.StringDict, error) {
			e := m.edges[label]
			if e == nil { // cannot happen: every load statement was analysed
				return nil, fmt.Errorf("internal error: unknown load '%s'", label)
			}
			if e.err != nil {
				return nil, e.err
			}
			return ev.load(e.target) // analysed, and free of cycles since m is
		}
		globals, err := m.prog.Init(thread, ev.predeclared)
		globals.Freeze()
		m.globals, m.err = globals, err
	})
	return m.globals, m.err
}

func (ev *evaluator) print(thread *starlark.Thread, msg string) {
	pos := ev.callPos(thread.CallFrame(1).Pos)
	ev.stderrMu.Lock()
	fmt.Fprintf(ev.stderr, "DEBUG: %s: %s\n", pos, msg)
	ev.stderrMu.Unlock()
}

// ---------------------------------------------------------------- packages

type pkgResult struct {
	pkg       string
	buildFile string
	files     []string
	globDirs  []string
	targets   []*target
	err       *evalError
}

// evalError is a package's error as printed.
type evalError struct {
	message   string
	file      string
	line, col int
	backtrace string
}

// positionedError is a static error of our own (like a def in a BUILD file)
// reported at its own position, as syntax errors are.
type positionedError struct {
	pos syntax.Position
	msg string
}

func (e positionedError) Error() string { return e.pos.String() + ": " + e.msg }

func (ev *evaluator) evalPackage(pkg string) *pkgResult {
	res := &pkgResult{pkg: pkg, files: []string{}, globDirs: []string{}, targets: []*target{}}
	build := ev.buildFile(pkg)
	if build == "" {
		res.err = &evalError{message: fmt.Sprintf("no such package '%s' (no BUILD file in %s)", pkg, ev.abs(pkg))}
		return res
	}
	res.buildFile = build
	src, err := os.ReadFile(ev.abs(build))
	if err != nil {
		res.err = &evalError{message: fmt.Sprintf("cannot read '%s': %v", build, err), file: build}
		return res
	}
	res.files = []string{build}

	f, err := syntax.Parse(build, src, 0)
	if err == nil {
		ev.indexCalls(f)
		for _, stmt := range f.Stmts {
			if def, ok := stmt.(*syntax.DefStmt); ok {
				err = positionedError{def.Def, "function definitions are not allowed in BUILD files"}
				break
			}
		}
	}
	var prog *starlark.Program
	if err == nil {
		prog, err = starlark.FileProgram(f, ev.predeclared.Has)
	}
	if err != nil {
		res.err = ev.describe(err, build)
		return res
	}

	// Resolve the BUILD file's loads up front: the files they read are the
	// package's inputs even when evaluation fails.
	edges := map[string]*edge{}
	fileSet := map[string]bool{build: true}
	for i := 0; i < prog.NumLoads(); i++ {
		label, _ := prog.Load(i)
		if edges[label] != nil {
			continue
		}
		e := &edge{label: label}
		if file, lpkg, err := ev.resolveLabel(label, pkg); err != nil {
			e.err = err
		} else {
			e.target = ev.get(file, lpkg)
			for _, f := range e.target.closure {
				fileSet[f] = true
			}
		}
		edges[label] = e
	}
	res.files = sortedKeys(fileSet)

	ctx := newPkgCtx(ev, pkg, build)
	thread := &starlark.Thread{Name: build, Print: ev.print}
	thread.Load = func(_ *starlark.Thread, label string) (starlark.StringDict, error) {
		e := edges[label]
		if e == nil {
			return nil, fmt.Errorf("internal error: unknown load '%s'", label)
		}
		if e.err != nil {
			return nil, e.err
		}
		return ev.load(e.target)
	}
	thread.SetLocal(pkgCtxKey, ctx)
	if _, err := prog.Init(thread, ev.predeclared); err != nil {
		res.err = ev.describe(err, build)
	} else {
		res.targets = ctx.targets
	}
	res.globDirs = sortedKeys(ctx.globDirs)
	return res
}

func sortedKeys(set map[string]bool) []string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// describe turns an error from compiling or running a BUILD file into its
// printed form.
func (ev *evaluator) describe(err error, build string) *evalError {
	out := &evalError{message: err.Error()}

	// Compile-time errors (here or in a loaded .bzl) are placed at their own
	// position.
	var (
		synErr syntax.Error
		resErr resolve.ErrorList
		ourErr positionedError
		static bool
		pos    syntax.Position
		msg    string
	)
	switch {
	case errors.As(err, &synErr):
		static, pos, msg = true, synErr.Pos, synErr.Msg
	case errors.As(err, &resErr):
		static, pos, msg = true, resErr[0].Pos, resErr[0].Msg
	case errors.As(err, &ourErr):
		static, pos, msg = true, ourErr.pos, ourErr.msg
	}

	var top *starlark.EvalError
	if !errors.As(err, &top) {
		// The BUILD file itself did not compile.
		out.message = msg
		if !static {
			out.message = err.Error()
		}
		out.file, out.line, out.col = pos.Filename(), int(pos.Line), int(pos.Col)
		if resErr != nil && len(resErr) > 1 {
			lines := make([]string, len(resErr))
			for i, e := range resErr {
				lines[i] = e.Error()
			}
			out.backtrace = strings.Join(lines, "\n")
		} else {
			out.backtrace = err.Error()
		}
		return out
	}
	out.message = top.Msg

	// Join the call stacks of the nested evaluation errors: the BUILD file's
	// at its load statement, then each loaded module's, down to the error.
	var frames starlark.CallStack
	innermost := top
	for e := top; e != nil; {
		innermost = e
		frames = append(frames, ev.callStack(e.CallStack)...)
		var next *starlark.EvalError
		if cause := errors.Unwrap(e); cause == nil || !errors.As(cause, &next) {
			break
		}
		e = next
	}
	suffix := ""
	if n := len(frames); n > 0 && frames[n-1].Pos.Filename() == "<builtin>" {
		suffix = " in " + frames[n-1].Name
		frames = frames[:n-1]
	}
	out.backtrace = fmt.Sprintf("%sError%s: %s", frames.String(), suffix, innermost.Msg)

	if static {
		out.file, out.line, out.col = pos.Filename(), int(pos.Line), int(pos.Col)
		return out
	}
	for _, fr := range ev.callStack(top.CallStack) {
		if fr.Pos.Filename() == build {
			out.file, out.line, out.col = build, int(fr.Pos.Line), int(fr.Pos.Col)
			break
		}
	}
	return out
}

// ---------------------------------------------------------------- positions

// starlark-go places a call at its opening parenthesis; etsb reports the
// start of the call expression (the callee's first character), so that
// a rule called at the start of a line is at column 1. indexCalls records,
// for every call in a file, where its expression starts.
func (ev *evaluator) indexCalls(f *syntax.File) {
	starts := map[uint64]syntax.Position{}
	var visit func(n syntax.Node) bool
	visit = func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			starts[posKey(n.Lparen)] = syntax.Start(n)
		case *syntax.WhileStmt: // syntax.Walk of this snapshot panics on it
			syntax.Walk(n.Cond, visit)
			for _, stmt := range n.Body {
				syntax.Walk(stmt, visit)
			}
			return false
		}
		return true
	}
	syntax.Walk(f, visit)
	ev.callStarts.Store(f.Path, starts)
}

func posKey(pos syntax.Position) uint64 {
	return uint64(uint32(pos.Line))<<32 | uint64(uint32(pos.Col))
}

// callPos maps a call's parenthesis to the start of the call expression;
// other positions are returned unchanged.
func (ev *evaluator) callPos(pos syntax.Position) syntax.Position {
	if starts, ok := ev.callStarts.Load(pos.Filename()); ok {
		if start, ok := starts.(map[uint64]syntax.Position)[posKey(pos)]; ok {
			return start
		}
	}
	return pos
}

func (ev *evaluator) callStack(stack starlark.CallStack) starlark.CallStack {
	out := make(starlark.CallStack, len(stack))
	for i, fr := range stack {
		out[i] = starlark.CallFrame{Name: fr.Name, Pos: ev.callPos(fr.Pos)}
	}
	return out
}
