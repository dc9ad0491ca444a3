package main

// Predeclared names: native, glob, select, package_name, fail, struct, json...

import (
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkjson"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

const pkgCtxKey = "etsb.package"

// pkgCtx is the state of the BUILD file being evaluated on a thread. Threads
// executing a .bzl file's top level have none.
type pkgCtx struct {
	ev       *evaluator
	pkg      string
	build    string
	targets  []*target
	byName   map[string]*target
	globDirs map[string]bool
	listings map[string][]dirEntry // directory (relative to the package) -> entries
	packaged bool                  // package() was called
}

func newPkgCtx(ev *evaluator, pkg, build string) *pkgCtx {
	return &pkgCtx{
		ev: ev, pkg: pkg, build: build,
		targets:  []*target{},
		byName:   map[string]*target{},
		globDirs: map[string]bool{},
		listings: map[string][]dirEntry{},
	}
}

func ctxOf(thread *starlark.Thread) *pkgCtx {
	ctx, _ := thread.Local(pkgCtxKey).(*pkgCtx)
	return ctx
}

// buildOnly wraps a function that needs the package being evaluated.
func buildOnly(name string, fn func(ctx *pkgCtx, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)) *starlark.Builtin {
	return starlark.NewBuiltin(name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		ctx := ctxOf(thread)
		if ctx == nil {
			return nil, fmt.Errorf("%s() can only be called while evaluating a BUILD file", name)
		}
		return fn(ctx, thread, b, args, kwargs)
	})
}

func predeclared(ev *evaluator) starlark.StringDict {
	nativeMembers := starlark.StringDict{}
	env := starlark.StringDict{
		"Label":           starlark.NewBuiltin("Label", ev.labelFn),
		"select":          starlark.NewBuiltin("select", selectFn),
		"struct":          starlark.NewBuiltin("struct", starlarkstruct.Make),
		"json":            starlarkjson.Module,
		"fail":            starlark.NewBuiltin("fail", failFn),
		"repository_name": starlark.NewBuiltin("repository_name", repositoryName),
		"package_name":    buildOnly("package_name", packageName),
		"glob":            buildOnly("glob", globFn),
		"package":         buildOnly("package", packageFn),
		"exports_files":   buildOnly("exports_files", exportsFiles),
	}
	for _, name := range []string{"package_name", "glob", "repository_name"} {
		nativeMembers[name] = env[name]
	}
	nativeMembers["existing_rules"] = buildOnly("existing_rules", existingRules)
	nativeMembers["existing_rule"] = buildOnly("existing_rule", existingRuleFn)
	nativeMembers["package"] = env["package"]
	nativeMembers["exports_files"] = env["exports_files"]
	for name, spec := range ruleSpecs {
		rule := makeRule(spec)
		env[name] = rule
		nativeMembers[name] = rule
	}
	native := &starlarkstruct.Module{Name: "native", Members: nativeMembers}
	env["native"] = native
	for name, value := range bazelOnly() {
		env[name] = value
	}
	env.Freeze()
	return env
}

// Bazel's names for defining rules of its own (rule, attr, DefaultInfo,
// depset). etsb's .bzl files define such rules for Bazel only (behind a test
// of the build system), but a .bzl file's names must resolve wherever it
// loads: these resolve, and calling any of them fails, naming it.
func bazelOnly() starlark.StringDict {
	refuse := func(name string) *starlark.Builtin {
		return starlark.NewBuiltin(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return nil, fmt.Errorf("%s() is Bazel's: etsb's driver does not define or run rules of its own", name)
		})
	}
	attrs := starlark.StringDict{}
	for _, kind := range []string{"bool", "int", "label", "label_list", "output", "string", "string_list"} {
		attrs[kind] = refuse("attr." + kind)
	}
	return starlark.StringDict{
		"rule":        refuse("rule"),
		"attr":        &starlarkstruct.Module{Name: "attr", Members: attrs},
		"DefaultInfo": refuse("DefaultInfo"),
		"depset":      refuse("depset"),
	}
}

func packageName(ctx *pkgCtx, _ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0); err != nil {
		return nil, err
	}
	return starlark.String(ctx.pkg), nil
}

func repositoryName(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0); err != nil {
		return nil, err
	}
	return starlark.String("@"), nil
}

// Label(text): text made absolute for the repository of the .bzl file that
// calls Label, as Bazel resolves it: '//pkg:name' of an external repository's
// file becomes '@NAME//pkg:name', and of the main repository's
// '@MAIN//pkg:name' (MAIN: its name, such as 'etsb' inside etsb's checkout,
// or none). A label naming its repository is returned as it is. The value is
// the label's text (Bazel's is a Label object; str() of either is the text).
func (ev *evaluator) labelFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var text string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &text); err != nil {
		return nil, err
	}
	if strings.HasPrefix(text, "@") {
		return starlark.String(text), nil
	}
	if !strings.HasPrefix(text, "//") {
		return nil, fmt.Errorf("Label: '%s' must start with '//' or '@' (write a label relative to a package as '//pkg:name')", text)
	}
	if name, _, ok := splitExternal(thread.CallFrame(1).Pos.Filename()); ok {
		return starlark.String("@" + name + text), nil
	}
	return starlark.String("@" + ev.repos.mainName() + text), nil
}

// fail(*args, sep=" ", attr=None): the message is "fail: " and the arguments
// joined by sep, strings unquoted; attr names the offending attribute.
func failFn(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	sep := " "
	var attr starlark.Value = starlark.None
	if err := starlark.UnpackArgs("fail", nil, kwargs, "sep?", &sep, "attr?", &attr); err != nil {
		return nil, err
	}
	var buf strings.Builder
	buf.WriteString("fail: ")
	if attr != starlark.None {
		if s, ok := starlark.AsString(attr); ok {
			fmt.Fprintf(&buf, "attribute %s: ", s)
		} else {
			fmt.Fprintf(&buf, "attribute %s: ", attr)
		}
	}
	for i, v := range args {
		if i > 0 {
			buf.WriteString(sep)
		}
		if s, ok := starlark.AsString(v); ok {
			buf.WriteString(s)
		} else {
			buf.WriteString(v.String())
		}
	}
	return nil, fmt.Errorf("%s", buf.String())
}

// package(...) and exports_files(...) are accepted, checked and otherwise
// ignored, so that ordinary Bazel BUILD files evaluate.
func packageFn(ctx *pkgCtx, _ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) > 0 {
		return nil, fmt.Errorf("package: keyword arguments only")
	}
	if ctx.packaged {
		return nil, fmt.Errorf("package() can only be called once per BUILD file")
	}
	if len(ctx.targets) > 0 {
		return nil, fmt.Errorf("package() must be called before any rule")
	}
	ctx.packaged = true
	for _, kv := range kwargs {
		key := string(kv[0].(starlark.String))
		switch key {
		case "default_visibility", "licenses", "features", "default_applicable_licenses":
			if got := checkList(kStringList, kv[1]); got != "" {
				return nil, fmt.Errorf("package: argument '%s' must be a list of strings, got %s", key, got)
			}
		case "default_testonly":
		default:
			return nil, fmt.Errorf("package: unknown argument '%s'", key)
		}
	}
	return starlark.None, nil
}

func exportsFiles(ctx *pkgCtx, _ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var srcs, visibility, licenses starlark.Value = nil, starlark.None, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "srcs", &srcs, "visibility?", &visibility, "licenses?", &licenses); err != nil {
		return nil, err
	}
	if got := checkList(kStringList, srcs); got != "" {
		return nil, fmt.Errorf("exports_files: srcs must be a list of strings, got %s", got)
	}
	return starlark.None, nil
}

func existingRules(ctx *pkgCtx, _ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0); err != nil {
		return nil, err
	}
	d := starlark.NewDict(len(ctx.targets))
	for _, t := range ctx.targets {
		d.SetKey(starlark.String(t.name), ctx.existingRule(t))
	}
	return d, nil
}

func existingRuleFn(ctx *pkgCtx, _ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &name); err != nil {
		return nil, err
	}
	if t := ctx.byName[name]; t != nil {
		return ctx.existingRule(t), nil
	}
	return starlark.None, nil
}

// ---------------------------------------------------------------- glob

type dirEntry struct {
	name  string
	isDir bool
}

func globFn(ctx *pkgCtx, _ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var include, exclude starlark.Value = nil, starlark.NewList(nil)
	allowEmpty := true
	excludeDirectories := 1
	if err := starlark.UnpackArgs("glob", args, kwargs,
		"include", &include, "exclude?", &exclude,
		"exclude_directories?", &excludeDirectories, "allow_empty?", &allowEmpty); err != nil {
		return nil, err
	}
	if excludeDirectories != 1 {
		return nil, fmt.Errorf("glob: only exclude_directories = 1 is supported")
	}
	includes, err := globPatterns("include", include)
	if err != nil {
		return nil, err
	}
	excludes, err := globPatterns("exclude", exclude)
	if err != nil {
		return nil, err
	}
	found := map[string]bool{}
	for _, p := range includes {
		ctx.expand("", p, found)
	}
	var files []string
	for f := range found {
		excluded := false
		segs := strings.Split(f, "/")
		for _, p := range excludes {
			if matchPath(p, segs) {
				excluded = true
				break
			}
		}
		if !excluded {
			files = append(files, f)
		}
	}
	if len(files) == 0 && !allowEmpty {
		return nil, fmt.Errorf("glob: no files match %s, and allow_empty is False", include)
	}
	sort.Strings(files)
	elems := make([]starlark.Value, len(files))
	for i, f := range files {
		elems[i] = starlark.String(f)
	}
	return starlark.NewList(elems), nil
}

// globPatterns checks a list of patterns and splits each into segments.
func globPatterns(what string, v starlark.Value) ([][]string, error) {
	if got := checkList(kStringList, v); got != "" {
		return nil, fmt.Errorf("glob: %s must be a list of strings, got %s", what, got)
	}
	seq := v.(starlark.Indexable)
	out := make([][]string, 0, seq.Len())
	for i := 0; i < seq.Len(); i++ {
		p := string(seq.Index(i).(starlark.String))
		if p == "" {
			return nil, fmt.Errorf("glob: empty pattern")
		}
		if strings.HasPrefix(p, "/") {
			return nil, fmt.Errorf("glob: pattern '%s' must be relative to the package (no leading '/')", p)
		}
		segs := strings.Split(p, "/")
		for _, s := range segs {
			switch {
			case s == ".." || s == ".":
				return nil, fmt.Errorf("glob: pattern '%s' must not contain '%s' segments", p, s)
			case s == "":
				return nil, fmt.Errorf("glob: pattern '%s' has an empty segment", p)
			case s != "**" && strings.Contains(s, "**"):
				return nil, fmt.Errorf("glob: pattern '%s': '**' must be a whole path segment", p)
			}
		}
		out = append(out, segs)
	}
	return out, nil
}

// list reads a directory of the package once per evaluation.
func (ctx *pkgCtx) list(dir string) []dirEntry {
	if entries, ok := ctx.listings[dir]; ok {
		return entries
	}
	rel := path.Join(ctx.pkg, dir)
	var entries []dirEntry
	infos, err := os.ReadDir(ctx.ev.abs(rel))
	if err == nil {
		ctx.globDirs[rel] = true
		for _, info := range infos {
			e := dirEntry{name: info.Name(), isDir: info.IsDir()}
			if info.Type()&os.ModeSymlink != 0 {
				// A link to a file counts as a file; links to directories are
				// not followed (no loops, no way out of the root).
				st, err := os.Stat(ctx.ev.abs(path.Join(rel, e.name)))
				if err != nil || st.IsDir() {
					continue
				}
			}
			entries = append(entries, e)
		}
	}
	ctx.listings[dir] = entries
	return entries
}

// descend tells whether glob may enter subdirectory dir of the package.
func (ctx *pkgCtx) descend(dir string) bool {
	if strings.HasPrefix(path.Base(dir), ".") {
		return false
	}
	return ctx.ev.buildFile(path.Join(ctx.pkg, dir)) == ""
}

// expand adds to out the files under dir (relative to the package) matching segs.
func (ctx *pkgCtx) expand(dir string, segs []string, out map[string]bool) {
	seg, last := segs[0], len(segs) == 1
	entries := ctx.list(dir)
	if seg == "**" {
		if !last {
			ctx.expand(dir, segs[1:], out) // ** matches no directory at all
		}
		for _, e := range entries {
			child := path.Join(dir, e.name)
			if e.isDir {
				if ctx.descend(child) {
					ctx.expand(child, segs, out)
				}
			} else if last {
				out[child] = true
			}
		}
		return
	}
	for _, e := range entries {
		if !matchSegment(seg, e.name) {
			continue
		}
		child := path.Join(dir, e.name)
		if last {
			if !e.isDir {
				out[child] = true
			}
		} else if e.isDir && ctx.descend(child) {
			ctx.expand(child, segs[1:], out)
		}
	}
}

// matchPath matches a path, split into segments, against a pattern.
func matchPath(pat, segs []string) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if matchPath(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	return len(segs) > 0 && matchSegment(pat[0], segs[0]) && matchPath(pat[1:], segs[1:])
}

// matchSegment matches one name against a pattern with '*' (any run of
// characters) and '?' (one character); everything else is literal.
func matchSegment(pat, name string) bool {
	if !strings.ContainsAny(pat, "*?") {
		return pat == name
	}
	p, n := []rune(pat), []rune(name)
	pi, ni := 0, 0
	starP, starN := -1, 0
	for ni < len(n) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == n[ni]):
			pi++
			ni++
		case pi < len(p) && p[pi] == '*':
			starP, starN = pi, ni
			pi++
		case starP >= 0:
			starN++
			pi, ni = starP+1, starN
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// ---------------------------------------------------------------- select

// selectValue is select({...}), possibly concatenated with plain values and
// other selects: select(a) + [x] is two parts.
type selectValue struct {
	parts []selectPart
}

type selectPart struct {
	conditions *starlark.Dict // for a select({...}) part
	value      starlark.Value // for a plain part
}

var _ starlark.HasBinary = (*selectValue)(nil)

func selectFn(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var conditions *starlark.Dict
	noMatchError := ""
	if err := starlark.UnpackArgs("select", args, kwargs, "x", &conditions, "no_match_error?", &noMatchError); err != nil {
		return nil, err
	}
	if conditions.Len() == 0 {
		return nil, fmt.Errorf("select: the dict of conditions is empty")
	}
	copied := starlark.NewDict(conditions.Len())
	for _, item := range conditions.Items() {
		key, ok := item[0].(starlark.String)
		if !ok {
			return nil, fmt.Errorf("select: conditions must be label strings, got %s", item[0].Type())
		}
		if key == "" {
			return nil, fmt.Errorf("select: empty condition label")
		}
		copied.SetKey(key, item[1])
	}
	return &selectValue{parts: []selectPart{{conditions: copied}}}, nil
}

func (s *selectValue) Type() string          { return "select" }
func (s *selectValue) Truth() starlark.Bool  { return true }
func (s *selectValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: select") }
func (s *selectValue) Freeze() {
	for _, p := range s.parts {
		if p.conditions != nil {
			p.conditions.Freeze()
		} else {
			p.value.Freeze()
		}
	}
}

func (s *selectValue) String() string {
	strs := make([]string, len(s.parts))
	for i, p := range s.parts {
		if p.conditions != nil {
			strs[i] = "select(" + p.conditions.String() + ")"
		} else {
			strs[i] = p.value.String()
		}
	}
	return strings.Join(strs, " + ")
}

func (s *selectValue) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	if op != syntax.PLUS {
		return nil, nil
	}
	var other []selectPart
	switch y := y.(type) {
	case *selectValue:
		other = y.parts
	case *starlark.List, *starlark.Dict: // copied: later changes to y must not show
		other = []selectPart{{value: deepCopy(y)}}
	case starlark.String:
		other = []selectPart{{value: y}}
	default:
		return nil, nil
	}
	parts := make([]selectPart, 0, len(s.parts)+len(other))
	if side == starlark.Left {
		parts = append(append(parts, s.parts...), other...)
	} else {
		parts = append(append(parts, other...), s.parts...)
	}
	return &selectValue{parts: parts}, nil
}
