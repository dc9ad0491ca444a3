package main

// Rule functions: attribute tables, validation, and the targets they record.

import (
	"fmt"
	"sort"
	"strings"

	"go.starlark.net/starlark"
)

type attrKind int

const (
	kString attrKind = iota
	kBool
	kStringList
	kStringDict
)

var kindNames = map[attrKind]string{
	kString:     "a string",
	kBool:       "a bool",
	kStringList: "a list of strings",
	kStringDict: "a dict of string to string",
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

// ruleSpecs are the primitive rules, from the generated ruleTables.
var ruleSpecs = func() map[string]*ruleSpec {
	specs := map[string]*ruleSpec{}
	for rule, table := range ruleTables {
		spec := &ruleSpec{name: rule, attrs: table}
		for k := range table {
			spec.names = append(spec.names, k)
		}
		sort.Strings(spec.names)
		specs[rule] = spec
	}
	return specs
}()

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

// checkTargetName returns what is wrong with a target name, or "".
func checkTargetName(name string) string {
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_.+=,@~-/", c) >= 0
		if !ok {
			return fmt.Sprintf("character %q is not allowed (use A-Z a-z 0-9 and _ . / + = , @ ~ -)", string(rune(c)))
		}
	}
	if name[0] == '/' {
		return "must not start with '/'"
	}
	for _, seg := range strings.Split(name, "/") {
		switch seg {
		case "..", ".":
			return fmt.Sprintf("must not contain a '%s' path segment", seg)
		case "":
			return "must not contain an empty path segment"
		}
	}
	return ""
}

func isTrue(v starlark.Value) bool {
	if i, ok := v.(starlark.Int); ok {
		n, _ := i.Int64()
		return n != 0
	}
	return bool(v.Truth())
}

// checkKind returns "" when v fits kind, else a description of what v is.
func checkKind(kind attrKind, v starlark.Value) string {
	switch kind {
	case kString:
		if _, ok := v.(starlark.String); ok {
			return ""
		}
	case kBool:
		switch x := v.(type) {
		case starlark.Bool:
			return ""
		case starlark.Int: // Bazel accepts 0 and 1
			if n, ok := x.Int64(); ok && (n == 0 || n == 1) {
				return ""
			}
			return "int other than 0 or 1"
		}
	case kStringList:
		switch x := v.(type) {
		case *selectValue:
			for _, part := range x.parts {
				if part.conditions == nil {
					if got := checkList(kind, part.value); got != "" {
						return "select concatenated with " + got
					}
					continue
				}
				for _, item := range part.conditions.Items() {
					if item[1] == starlark.None {
						continue
					}
					if got := checkList(kind, item[1]); got != "" {
						return fmt.Sprintf("%s in select branch %s", got, item[0])
					}
				}
			}
			return ""
		default:
			return checkList(kind, v)
		}
	case kStringDict:
		if d, ok := v.(*starlark.Dict); ok {
			for _, item := range d.Items() {
				if _, ok := item[0].(starlark.String); !ok {
					return "dict with " + item[0].Type() + " key"
				}
				if _, ok := item[1].(starlark.String); !ok {
					return "dict with " + item[1].Type() + " value"
				}
			}
			return ""
		}
	}
	return describeType(v)
}

func checkList(kind attrKind, v starlark.Value) string {
	var elems starlark.Indexable
	switch x := v.(type) {
	case *starlark.List:
		elems = x
	case starlark.Tuple:
		elems = x
	default:
		return describeType(v)
	}
	if kind == kStringList {
		for i := 0; i < elems.Len(); i++ {
			if _, ok := elems.Index(i).(starlark.String); !ok {
				return v.Type() + " containing " + describeType(elems.Index(i))
			}
		}
	}
	return ""
}

func describeType(v starlark.Value) string {
	if v == starlark.None {
		return "None"
	}
	return v.Type()
}

// nearest suggests the candidate closest to name, or "" when none is close.
func nearest(name string, candidates []string) string {
	best, bestDist := "", 1<<30
	for _, c := range candidates {
		d := editDistance(name, c)
		close := d <= 2 && d < len(c)
		if !close && len(c) >= 3 && len(name) >= 3 {
			close = isSubsequence(c, name) || isSubsequence(name, c)
		}
		if close && d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

func isSubsequence(short, long string) bool {
	if len(short) > len(long) {
		return false
	}
	j := 0
	for i := 0; i < len(long) && j < len(short); i++ {
		if long[i] == short[j] {
			j++
		}
	}
	return j == len(short)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min3(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func min3(a, b, c int) int {
	if b < a {
		a = b
	}
	if c < a {
		a = c
	}
	return a
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
