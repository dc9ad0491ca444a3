package main

// JSON output, written by hand for speed and a fixed key order.

import (
	"bufio"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string (as encoding/json does, without
// HTML escaping; invalid UTF-8 becomes U+FFFD).
func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

func appendBool(buf []byte, b bool) []byte {
	if b {
		return append(buf, "true"...)
	}
	return append(buf, "false"...)
}

// appendValue appends an attribute value as JSON: None, bools, ints and
// strings as such, lists and tuples as arrays, dicts (string keys) as objects
// in insertion order, select() as {"$select": [...]}.
func appendValue(buf []byte, v starlark.Value, depth int) ([]byte, error) {
	if depth > 64 {
		return buf, fmt.Errorf("value nested too deeply (does a list contain itself?)")
	}
	switch x := v.(type) {
	case starlark.NoneType:
		return append(buf, "null"...), nil
	case starlark.Bool:
		return appendBool(buf, bool(x)), nil
	case starlark.Int:
		if n, ok := x.Int64(); ok {
			return strconv.AppendInt(buf, n, 10), nil
		}
		return append(buf, x.String()...), nil
	case starlark.String:
		return appendString(buf, string(x)), nil
	case *starlark.List:
		return appendArray(buf, x, depth)
	case starlark.Tuple:
		return appendArray(buf, x, depth)
	case *starlark.Dict:
		return appendObject(buf, x.Items(), depth)
	case *selectValue:
		return appendSelect(buf, x, depth)
	case *starlarkstruct.Struct:
		return appendStruct(buf, x, depth)
	}
	return buf, fmt.Errorf("a %s cannot be converted to JSON", v.Type())
}

// appendArray appends the elements of a list or tuple as a JSON array.
func appendArray(buf []byte, elems starlark.Indexable, depth int) ([]byte, error) {
	var err error
	buf = append(buf, '[')
	for i := 0; i < elems.Len(); i++ {
		if i > 0 {
			buf = append(buf, ',')
		}
		if buf, err = appendValue(buf, elems.Index(i), depth+1); err != nil {
			return buf, err
		}
	}
	return append(buf, ']'), nil
}

// appendObject appends (key, value) items with string keys as a JSON object, in order.
func appendObject(buf []byte, items []starlark.Tuple, depth int) ([]byte, error) {
	var err error
	buf = append(buf, '{')
	for i, item := range items {
		key, ok := item[0].(starlark.String)
		if !ok {
			return buf, fmt.Errorf("a dict with a %s key cannot be converted to JSON", item[0].Type())
		}
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendString(buf, string(key))
		buf = append(buf, ':')
		if buf, err = appendValue(buf, item[1], depth+1); err != nil {
			return buf, err
		}
	}
	return append(buf, '}'), nil
}

// appendStruct appends a struct as a JSON object of its fields, sorted by name.
func appendStruct(buf []byte, x *starlarkstruct.Struct, depth int) ([]byte, error) {
	names := x.AttrNames()
	sort.Strings(names)
	items := make([]starlark.Tuple, len(names))
	for i, name := range names {
		value, _ := x.Attr(name)
		items[i] = starlark.Tuple{starlark.String(name), value}
	}
	return appendObject(buf, items, depth)
}

// appendGlobals appends a module's public values (not functions), sorted by name.
func appendGlobals(buf []byte, globals starlark.StringDict) ([]byte, error) {
	var items []starlark.Tuple
	for _, name := range globals.Keys() { // sorted
		value := globals[name]
		switch value.(type) {
		case *starlark.Function, *starlark.Builtin:
			continue
		}
		if !strings.HasPrefix(name, "_") {
			items = append(items, starlark.Tuple{starlark.String(name), value})
		}
	}
	return appendObject(buf, items, 0)
}

// appendSelect appends a select() value: its parts in '+' order, each a plain
// value or {"$conditions": {...}} with the conditions sorted by label.
func appendSelect(buf []byte, x *selectValue, depth int) ([]byte, error) {
	var err error
	buf = append(buf, `{"$select":[`...)
	for i, part := range x.parts {
		if i > 0 {
			buf = append(buf, ',')
		}
		if part.conditions == nil {
			buf, err = appendValue(buf, part.value, depth+1)
		} else {
			items := part.conditions.Items()
			sort.Slice(items, func(i, j int) bool {
				return items[i][0].(starlark.String) < items[j][0].(starlark.String)
			})
			buf = append(buf, `{"$conditions":`...)
			buf, err = appendObject(buf, items, depth+1)
			buf = append(buf, '}')
		}
		if err != nil {
			return buf, err
		}
	}
	return append(buf, "]}"...), nil
}

func appendStrings(buf []byte, strs []string) []byte {
	buf = append(buf, '[')
	for i, s := range strs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendString(buf, s)
	}
	return append(buf, ']')
}

// writeResults prints {"packages": [...]} followed by a newline, one package a line.
func writeResults(out *bufio.Writer, results []*pkgResult) {
	buf := make([]byte, 0, 1<<16)
	buf = append(buf, `{"packages":[`...)
	for i, r := range results {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "\n"...)
		buf = append(buf, `{"package":`...)
		buf = appendString(buf, r.pkg)
		buf = append(buf, `,"build_file":`...)
		buf = appendString(buf, r.buildFile)
		buf = append(buf, `,"files":`...)
		buf = appendStrings(buf, r.files)
		buf = append(buf, `,"glob_dirs":`...)
		buf = appendStrings(buf, r.globDirs)
		buf = append(buf, `,"targets":[`...)
		for j, t := range r.targets {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = appendTarget(buf, t)
			if len(buf) > 1<<15 {
				out.Write(buf)
				buf = buf[:0]
			}
		}
		buf = append(buf, `],"error":`...)
		buf = appendError(buf, r.err)
		buf = append(buf, '}')
		out.Write(buf)
		buf = buf[:0]
	}
	buf = append(buf, "\n]}\n"...)
	out.Write(buf)
}

// appendTarget appends one target: its rule, name, attributes (encoded when
// the rule was called) and call stack.
func appendTarget(buf []byte, t *target) []byte {
	buf = append(buf, `{"rule":`...)
	buf = appendString(buf, t.rule)
	buf = append(buf, `,"name":`...)
	buf = appendString(buf, t.name)
	buf = append(buf, `,"attrs":`...)
	buf = append(buf, t.attrs...)
	buf = append(buf, `,"stack":[`...)
	for k, fr := range t.stack {
		if k > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"function":`...)
		buf = appendString(buf, fr.Name)
		buf = append(buf, `,"file":`...)
		buf = appendString(buf, fr.Pos.Filename())
		buf = append(buf, `,"line":`...)
		buf = strconv.AppendInt(buf, int64(fr.Pos.Line), 10)
		buf = append(buf, `,"col":`...)
		buf = strconv.AppendInt(buf, int64(fr.Pos.Col), 10)
		buf = append(buf, '}')
	}
	return append(buf, "]}"...)
}

// appendError appends a package's error, or null.
func appendError(buf []byte, e *evalError) []byte {
	if e == nil {
		return append(buf, "null"...)
	}
	buf = append(buf, `{"message":`...)
	buf = appendString(buf, e.message)
	buf = append(buf, `,"file":`...)
	buf = appendString(buf, e.file)
	buf = append(buf, `,"line":`...)
	buf = strconv.AppendInt(buf, int64(e.line), 10)
	buf = append(buf, `,"col":`...)
	buf = strconv.AppendInt(buf, int64(e.col), 10)
	buf = append(buf, `,"backtrace":`...)
	buf = appendString(buf, e.backtrace)
	return append(buf, '}')
}
