package main

// Rule functions: attribute tables, validation, and the targets they record.

import (
	"fmt"
	"sort"

	"go.starlark.net/starlark"
)

type attrKind int

const (
	kString attrKind = iota
	kBool
	kStringList
	kStringDict
	kStringListDict // Buck2's genrule outs: name -> [path]
)

var kindNames = map[attrKind]string{
	kString:         "a string",
	kBool:           "a bool",
	kStringList:     "a list of strings",
	kStringDict:     "a dict of string to string",
	kStringListDict: "a dict of string to list of strings",
}

// attrSpec is one attribute of a primitive rule (rules_table.go lists them);
// a fixed attribute takes no select(), as in Bazel.
type attrSpec struct {
	kind     attrKind
	required bool
	nonEmpty bool
	fixed    bool
}

type ruleSpec struct {
	name  string
	attrs map[string]attrSpec
	names []string // sorted attribute names, for suggestions
}

// target is one recorded rule call.
type target struct {
	rule   string
	name   string
	attrs  []byte // the "attrs" JSON object, encoded at the call
	values []namedValue
	stack  starlark.CallStack // outermost first, without the rule itself
}

type namedValue struct {
	name  string
	value starlark.Value
}

// dialects are the rule tables by build system emulated (--emulate): etsb's
// driver's, and Buck2's prelude's (rules_table.go has both).
var dialects = map[string]map[string]map[string]attrSpec{"etsb": ruleTables, "buck2": buck2RuleTables}

// ruleSpecsOf are the primitive rules of one dialect's tables.
func ruleSpecsOf(tables map[string]map[string]attrSpec) map[string]*ruleSpec {
	specs := map[string]*ruleSpec{}
	for rule, table := range tables {
		spec := &ruleSpec{name: rule, attrs: table}
		for k := range table {
			spec.names = append(spec.names, k)
		}
		sort.Strings(spec.names)
		specs[rule] = spec
	}
	return specs
}

func makeRule(spec *ruleSpec) *starlark.Builtin {
	return starlark.NewBuiltin(spec.name, func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		ctx := ctxOf(thread)
		if ctx == nil {
			return nil, fmt.Errorf("rule '%s' can only be called while evaluating a BUILD file", spec.name)
		}
		if len(args) > 0 {
			return nil, fmt.Errorf("%s: rules take keyword arguments only, got %d positional argument(s)", spec.name, len(args))
		}
		return starlark.None, ctx.addTarget(thread, spec, kwargs)
	})
}

// addTarget records a rule call: its name and attributes checked against
// the rule's table, the attributes encoded as JSON, and the call stack.
func (ctx *pkgCtx) addTarget(thread *starlark.Thread, spec *ruleSpec, kwargs []starlark.Tuple) error {
	name, err := targetName(spec, kwargs)
	if err != nil {
		return err
	}
	values, err := checkAttrs(spec, name, kwargs)
	if err != nil {
		return err
	}
	if first := ctx.byName[name]; first != nil {
		return fmt.Errorf("duplicate target '%s' in package '%s' (first defined at %s)", name, ctx.pkg, first.stack[0].Pos)
	}
	attrs, err := encodeAttrs(spec, name, values)
	if err != nil {
		return err
	}
	stack := thread.CallStack()
	stack = ctx.ev.callStack(stack[:len(stack)-1]) // without the rule itself
	t := &target{rule: spec.name, name: name, attrs: attrs, values: values, stack: stack}
	ctx.targets = append(ctx.targets, t)
	ctx.byName[name] = t
	return nil
}

// targetName returns the checked 'name' of a rule call (first: later messages name the target).
func targetName(spec *ruleSpec, kwargs []starlark.Tuple) (string, error) {
	name := ""
	for _, kv := range kwargs {
		if string(kv[0].(starlark.String)) != "name" || kv[1] == starlark.None {
			continue
		}
		s, ok := kv[1].(starlark.String)
		if !ok {
			return "", fmt.Errorf("%s: attribute 'name' must be a string, got %s", spec.name, describeType(kv[1]))
		}
		name = string(s)
	}
	if name == "" {
		return "", fmt.Errorf("%s: missing required attribute 'name'", spec.name)
	}
	if problem := checkTargetName(name); problem != "" {
		return "", fmt.Errorf("%s: invalid target name '%s': %s", spec.name, name, problem)
	}
	return name, nil
}

// checkAttrs checks every attribute given against the rule's table (known,
// given once, of its kind, not empty when it must not be, every required
// one given) and returns those given, None ones left out, sorted by name.
func checkAttrs(spec *ruleSpec, name string, kwargs []starlark.Tuple) ([]namedValue, error) {
	who := fmt.Sprintf("%s '%s'", spec.name, name)
	values := make([]namedValue, 0, len(kwargs))
	given := map[string]bool{}
	for _, kv := range kwargs {
		key := string(kv[0].(starlark.String))
		attr, ok := spec.attrs[key]
		if !ok {
			msg := fmt.Sprintf("%s: unknown attribute '%s'", spec.name, key)
			if near := nearest(key, spec.names); near != "" {
				msg += fmt.Sprintf(" (did you mean '%s'?)", near)
			}
			return nil, fmt.Errorf("%s", msg)
		}
		if given[key] {
			return nil, fmt.Errorf("%s: attribute '%s' given twice", who, key)
		}
		given[key] = true
		if kv[1] == starlark.None || key == "name" { // None means "not given", as in Bazel
			continue
		}
		if _, isSelect := kv[1].(*selectValue); isSelect && attr.fixed {
			return nil, fmt.Errorf("%s: attribute '%s' is not configurable: it takes no select()", who, key)
		}
		if got := checkKind(attr.kind, kv[1]); got != "" {
			return nil, fmt.Errorf("%s: attribute '%s' must be %s, got %s", who, key, kindNames[attr.kind], got)
		}
		if l, ok := kv[1].(starlark.Indexable); ok && attr.nonEmpty && l.Len() == 0 {
			return nil, fmt.Errorf("%s: attribute '%s' must not be empty", who, key)
		}
		values = append(values, namedValue{key, kv[1]})
	}
	for _, attrName := range spec.names {
		if spec.attrs[attrName].required && attrName != "name" && !hasValue(values, attrName) {
			return nil, fmt.Errorf("%s: missing required attribute '%s'", who, attrName)
		}
	}
	sort.Slice(values, func(i, j int) bool { return values[i].name < values[j].name })
	return values, nil
}

func hasValue(values []namedValue, name string) bool {
	for _, v := range values {
		if v.name == name {
			return true
		}
	}
	return false
}

// encodeAttrs encodes checked attributes as the JSON object of the output.
func encodeAttrs(spec *ruleSpec, name string, values []namedValue) ([]byte, error) {
	buf := make([]byte, 0, 256)
	buf = append(buf, '{')
	for i, v := range values {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendString(buf, v.name)
		buf = append(buf, ':')
		var err error
		if spec.attrs[v.name].kind == kBool {
			buf = appendBool(buf, isTrue(v.value))
		} else if buf, err = appendValue(buf, v.value, 0); err != nil {
			return nil, fmt.Errorf("%s '%s': attribute '%s': %v", spec.name, name, v.name, err)
		}
	}
	return append(buf, '}'), nil
}

// existingRules returns native.existing_rules(): name -> dict of attributes
// (with "name" and "kind"), as fresh values.
func (ctx *pkgCtx) existingRule(t *target) *starlark.Dict {
	d := starlark.NewDict(len(t.values) + 2)
	d.SetKey(starlark.String("name"), starlark.String(t.name))
	d.SetKey(starlark.String("kind"), starlark.String(t.rule))
	for _, v := range t.values {
		d.SetKey(starlark.String(v.name), deepCopy(v.value))
	}
	return d
}

func deepCopy(v starlark.Value) starlark.Value {
	switch x := v.(type) {
	case *starlark.List:
		elems := make([]starlark.Value, x.Len())
		for i := range elems {
			elems[i] = deepCopy(x.Index(i))
		}
		return starlark.NewList(elems)
	case starlark.Tuple:
		elems := make(starlark.Tuple, len(x))
		for i := range x {
			elems[i] = deepCopy(x[i])
		}
		return elems
	case *starlark.Dict:
		d := starlark.NewDict(x.Len())
		for _, item := range x.Items() {
			d.SetKey(item[0], deepCopy(item[1]))
		}
		return d
	}
	return v
}
