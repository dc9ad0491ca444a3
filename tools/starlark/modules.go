package main

// The .bzl modules a run loads, shared by every package.
//
// Load cycles are found before anything runs: when a .bzl file is first
// asked for, it and everything it loads are read, parsed and compiled (under
// one lock), and the load graph below it is searched for a cycle. A module
// with no cycle below it can then be executed under a sync.Once without any
// risk of two goroutines waiting on each other, and every module's result
// (globals or error) is the same whichever package asked first.

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"go.starlark.net/starlark"
)

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
	if err == nil {
		ev.warnForeignNames(f)
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
		thread := ev.newThread(m.path)
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
