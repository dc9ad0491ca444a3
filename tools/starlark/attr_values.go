package main

// Attribute values checked against their kind, target names, and the nearest
// name to suggest for a misspelled one.

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"
)

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
	case kStringDict, kStringListDict:
		if d, ok := v.(*starlark.Dict); ok {
			return checkDict(kind, d)
		}
	}
	return describeType(v)
}

// checkDict returns "" when d's keys are strings and its values strings
// (kStringDict) or lists of strings (kStringListDict), else what is wrong.
func checkDict(kind attrKind, d *starlark.Dict) string {
	for _, item := range d.Items() {
		if _, ok := item[0].(starlark.String); !ok {
			return "dict with " + item[0].Type() + " key"
		}
		if kind == kStringListDict {
			if got := checkList(kStringList, item[1]); got != "" {
				return "dict with " + got + " value"
			}
		} else if _, ok := item[1].(starlark.String); !ok {
			return "dict with " + item[1].Type() + " value"
		}
	}
	return ""
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
