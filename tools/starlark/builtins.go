package main

// Predeclared names: native, glob, select, package_name, fail, struct, json...

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkjson"
	"go.starlark.net/starlarkstruct"
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
	nativeMembers["etsb_has_repository"] = starlark.NewBuiltin("etsb_has_repository", ev.hasRepository)
	nativeMembers["existing_rules"] = buildOnly("existing_rules", existingRules)
	nativeMembers["existing_rule"] = buildOnly("existing_rule", existingRuleFn)
	nativeMembers["package"] = env["package"]
	nativeMembers["exports_files"] = env["exports_files"]
	for name, spec := range ev.rules {
		rule := makeRule(spec)
		env[name] = rule
		nativeMembers[name] = rule
	}
	ev.emulate(env, nativeMembers)
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

// native.etsb_has_repository(name): whether this build has the external
// repository NAME (an ExecuTorch tree, CMSIS-NN), so that etsb's rules take a
// kernel library from it only when it is there. etsb's driver alone has it:
// its shim (rules/private/shim_etsb.bzl) is the one caller.
func (ev *evaluator) hasRepository(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &name); err != nil {
		return nil, err
	}
	_, known := ev.repos.overlays[name]
	return starlark.Bool(known), nil
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
