package main

// The build system emulated (--emulate): which rule table calls are checked
// against and which names .bzl files may use. "etsb" is the driver's own
// dialect; "buck2" offers what Buck2's prelude and `native` offer, so that
// etsb's macros are evaluated as Buck2 would see them (nothing is built).

import (
	"fmt"
	"sort"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// dialectNames lists the values --emulate takes.
func dialectNames() []string {
	names := make([]string, 0, len(dialects))
	for name := range dialects {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// checkDialect returns a usage error unless name is a dialect.
func checkDialect(name string) error {
	if _, ok := dialects[name]; !ok {
		return usageError{fmt.Sprintf("--emulate wants one of %s, got '%s'", strings.Join(dialectNames(), ", "), name)}
	}
	return nil
}

// missingInBuck2 are predeclared names of Bazel (and of the driver, which
// resolves them so that etsb's .bzl files load) that Buck2 does not define.
// Buck2 resolves a file's names when it loads it, so a file naming one fails
// to load there even if the code naming it never runs. They stay resolvable
// here (calling one fails), and every reference is reported (warnForeignNames).
var missingInBuck2 = map[string]bool{"Label": true, "attr": true, "depset": true}

// emulate adapts the predeclared names env and native's members to the
// dialect: Buck2's native.read_config in both (so that macros written for
// Buck2, such as ExecuTorch's, evaluate in the driver too); under Buck2,
// Label refused when called, and read_config and read_root_config globals
// and native's members.
func (ev *evaluator) emulate(env, nativeMembers starlark.StringDict) {
	readConfig := starlark.NewBuiltin("read_config", readConfigFn)
	nativeMembers["read_config"] = readConfig
	if ev.dialect != "buck2" {
		return
	}
	env["Label"] = starlark.NewBuiltin("Label", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		return nil, fmt.Errorf("Label() is not a Buck2 global (labels are written as text there)")
	})
	env["read_config"] = readConfig
	readRootConfig := starlark.NewBuiltin("read_root_config", readConfigFn)
	env["read_root_config"] = readRootConfig
	nativeMembers["read_root_config"] = readRootConfig
}

// read_config(section, key, default = None), and read_root_config alike: no
// .buckconfig is read, so the default.
func readConfigFn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var section, key string
	var def starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "section", &section, "key", &key, "default?", &def); err != nil {
		return nil, err
	}
	return def, nil
}

// warnForeignNames reports, under Buck2, every reference of a compiled file
// to a name Buck2 does not define (the file would not load there).
func (ev *evaluator) warnForeignNames(f *syntax.File) {
	if ev.dialect != "buck2" || f == nil {
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		id, ok := n.(*syntax.Ident)
		if !ok || !missingInBuck2[id.Name] {
			return true
		}
		if b, ok := id.Binding.(*resolve.Binding); ok && b.Scope == resolve.Predeclared {
			ev.stderrMu.Lock()
			fmt.Fprintf(ev.stderr, "etsb-starlark: warning: %s: '%s' is not a Buck2 global: Buck2 refuses to load %s\n",
				id.NamePos, id.Name, id.NamePos.Filename())
			ev.stderrMu.Unlock()
		}
		return true
	})
}
