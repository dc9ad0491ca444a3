package main

// select(): a value chosen by configuration, kept unresolved for the driver to resolve.

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

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
